import Foundation

/// The process's memory, read from `/proc/self/status`.
enum ProcessMemory {
    /// Peak resident set size (`VmHWM`) in megabytes, 0 where unavailable.
    static var peakResidentMegabytes: Double { megabytes("VmHWM:") }

    /// Resident set size now (`VmRSS`) in megabytes, 0 where unavailable.
    static var residentMegabytes: Double { megabytes("VmRSS:") }

    private static func megabytes(_ field: String) -> Double {
        guard let status = try? String(contentsOfFile: "/proc/self/status", encoding: .utf8) else { return 0 }
        for line in status.split(separator: "\n") where line.hasPrefix(field) {
            let kilobytes = line.split(separator: " ").compactMap { Double($0) }.first ?? 0
            return kilobytes / 1024
        }
        return 0
    }
}
