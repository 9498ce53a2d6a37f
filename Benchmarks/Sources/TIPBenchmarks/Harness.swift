import Foundation
import TIPImageServer

/// Timing and reporting shared by every benchmark: one warm-up, then at least 7 measured runs,
/// median and range, and a ratio against a baseline measured in the same run.
enum Harness {
    /// Measured runs per benchmark (after one warm-up).
    nonisolated(unsafe) static var iterations = 9

    /// Scratch directories (caches roots) that ``removeScratch()`` deletes when the suite ends. The groups run one
    /// at a time on the main thread.
    nonisolated(unsafe) private static var scratch: [URL] = []

    /// Deletes `directory` when the suite ends rather than when its group does. On an ext4 without a journal (this
    /// machine's), the inode allocator walks past every inode freed in the last minutes (`recently_deleted`), so a
    /// group deleting thousands of cache files made the next group's file creations, which only our side makes,
    /// several times slower (1,000 fetches: `openat` went from 2% to 22% of the process's samples).
    static func removeAtExit(_ directory: URL) {
        scratch.append(directory)
    }

    /// Deletes the directories given to ``removeAtExit(_:)``.
    static func removeScratch() {
        for directory in scratch { try? FileManager.default.removeItem(at: directory) }
        scratch = []
    }

    /// Wall-clock samples of `body` in milliseconds.
    static func measure(_ body: () throws -> Void) rethrows -> Samples {
        try body()
        var values: [Double] = []
        for _ in 0..<iterations {
            let start = DispatchTime.now().uptimeNanoseconds
            try body()
            values.append(Double(DispatchTime.now().uptimeNanoseconds - start) / 1e6)
        }
        return Samples(values)
    }

    /// Process CPU-time samples of `body` in milliseconds (all threads).
    static func measureCPU(_ body: () throws -> Void) rethrows -> Samples {
        try body()
        var values: [Double] = []
        for _ in 0..<iterations {
            let start = cpuNanoseconds()
            try body()
            values.append(Double(cpuNanoseconds() - start) / 1e6)
        }
        return Samples(values)
    }

    static func cpuNanoseconds() -> UInt64 {
        var ts = timespec()
        clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &ts)
        return UInt64(ts.tv_sec) * 1_000_000_000 + UInt64(ts.tv_nsec)
    }

    /// The process's context switches so far, voluntary (a thread waited) and involuntary (it was preempted),
    /// all threads included.
    static func contextSwitches() -> (voluntary: Int, involuntary: Int) {
        var usage = rusage()
        getrusage(RUSAGE_SELF.rawValue, &usage)
        return (usage.ru_nvcsw, usage.ru_nivcsw)
    }

    /// One result row: `name: ours X ms, baseline Y ms, ratio X/Y` plus the target verdict.
    struct Row {
        let name: String
        let ours: Samples
        let baselineName: String
        let baseline: Samples
        let target: Double?
        let note: String
        /// What the samples count: "ms" unless said (the memory row counts MB).
        var unit = "ms"

        var ratio: Double { ours.median / baseline.median }
        var verdict: String {
            guard let target else { return "" }
            return ratio <= target ? "meets ≤ \(format(target))" : "MISSES ≤ \(format(target))"
        }
    }

    nonisolated(unsafe) static var rows: [Row] = []

    /// Records and prints a row.
    static func report(
        _ name: String, ours: Samples, baselineName: String, baseline: Samples, target: Double?, note: String = "",
        unit: String = "ms"
    ) {
        let row = Row(
            name: name, ours: ours, baselineName: baselineName, baseline: baseline, target: target, note: note,
            unit: unit)
        rows.append(row)
        print(
            """
            \(name): ours \(ours.description(unit: unit)), baseline \(baseline.description(unit: unit)) \
            [\(baselineName)], ratio \(format(row.ratio, digits: 3)) \
            \(row.verdict)\(note.isEmpty ? "" : " — \(note)")
            """
        )
    }

    /// Prints a closing Markdown table of every row.
    static func printSummary() {
        print("\n| benchmark | ours (ms) | baseline | baseline (ms) | ratio | target |")
        print("|---|---|---|---|---|---|")
        for row in rows {
            let unit = row.unit == "ms" ? "" : " \(row.unit)"
            print(
                """
                | \(row.name) | \(format(row.ours.median))\(unit) | \(row.baselineName) | \
                \(format(row.baseline.median))\(unit) | \(format(row.ratio, digits: 3)) | \
                \(row.target.map { "≤ \(format($0)) (\(row.ratio <= $0 ? "met" : "missed"))" } ?? "—") |
                """
            )
        }
    }

    static func format(_ value: Double, digits: Int = 2) -> String {
        String(format: "%.\(digits)f", value)
    }
}

/// Timing samples in milliseconds.
struct Samples: CustomStringConvertible {
    let values: [Double]

    init(_ values: [Double]) { self.values = values.sorted() }

    /// A single externally measured median (peers measured by the Python script).
    init(median: Double, min: Double, max: Double) { self.values = [min, median, max] }

    var median: Double {
        let n = values.count
        return n % 2 == 1 ? values[n / 2] : (values[n / 2 - 1] + values[n / 2]) / 2
    }

    var description: String { description(unit: "ms") }

    /// Median and range in `unit`.
    func description(unit: String) -> String {
        "\(Harness.format(median)) \(unit) (\(Harness.format(values.first ?? 0))–\(Harness.format(values.last ?? 0)))"
    }
}

extension TIPImageServer {
    /// Throws unless the log holds exactly `expected` requests, every one answered 200 (`what` made them).
    func checkRequestLog(expected: Int, what: String) throws {
        let requests = allRequests
        let bad = requests.filter { $0.status != 200 }
        guard requests.count == expected, bad.isEmpty else {
            throw BenchmarkFailure(
                "\(what) made \(requests.count) requests (expected \(expected)), \(bad.count) not answered 200")
        }
    }
}
