import Foundation

/// The process's memory, read from `/proc/self/status`.
enum ProcessMemory {
    /// Peak resident set size (`VmHWM`) in megabytes, 0 where unavailable.
    static var peakResidentMegabytes: Double {
        guard let status = try? String(contentsOfFile: "/proc/self/status", encoding: .utf8) else { return 0 }
        for line in status.split(separator: "\n") where line.hasPrefix("VmHWM:") {
            let kilobytes = line.split(separator: " ").compactMap { Double($0) }.first ?? 0
            return kilobytes / 1024
        }
        return 0
    }
}
