import ArgumentParser
import Foundation
import TIP
import TIPImageTables

/// `tip-sample table show`: opens the tables a `fill` left (in this new process) and retrieves every entry,
/// timing each retrieval.
struct TableShowCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "show",
        abstract: "Retrieve every entry of a table filled by `table fill` (same options) and time the hits.",
        discussion: """
            The first pass is each entry's first retrieval in this process (a page fault and a checksum of its \
            pixels): first_median_ns, first_p99_ns. Then five more passes time warm hits: median_ns, p99_ns. \
            corrupt counts entries whose pixels did not match their checksum (dropped). Exits 1 when corrupt > 0.
            """
    )

    @OptionGroup var options: TableOptions

    func run() throws {
        var err = StandardError()
        GlobalConfiguration.shared.callbackQueue = DispatchQueue(label: "tip-sample.table")
        let store: ImageTableStore
        do {
            store = try ImageTableStore(directory: options.tablesDirectory, formats: [try options.tableFormat()])
        } catch {
            print("error: \(error)", to: &err)
            throw ExitCode(2)
        }
        let entities = (0..<options.count).map { options.entity($0) }
        let sheet = options.contactSheet.map { _ in ContactSheet(cellSize: max(options.size.width, options.size.height))
        }
        var hits = 0, misses = 0
        var first: [UInt64] = [], warm: [UInt64] = []
        first.reserveCapacity(entities.count)
        warm.reserveCapacity(entities.count * 5)
        for (index, entity) in entities.enumerated() {
            let start = Self.now()
            let image = store.image(for: entity, formatName: options.format)
            first.append(Self.now() - start)
            if let image {
                hits += 1
                options.addToSheet(sheet, index: index, image: image)
            } else {
                misses += 1
            }
        }
        for _ in 0..<5 {
            for entity in entities {
                let start = Self.now()
                let image = store.image(for: entity, formatName: options.format)
                let elapsed = Self.now() - start
                if image != nil { warm.append(elapsed) }
            }
        }
        let stats = store.statistics(formatName: options.format)
        let corrupt = stats?.corruptEntries ?? 0
        let summary: [(String, Any)] = [
            ("entries", options.count), ("hits", hits), ("misses", misses), ("corrupt", corrupt),
            ("median_ns", Self.percentile(warm, 0.5)), ("p99_ns", Self.percentile(warm, 0.99)),
            ("first_median_ns", Self.percentile(first, 0.5)), ("first_p99_ns", Self.percentile(first, 0.99)),
            ("discarded", stats?.discardedEntries ?? 0), ("rebuilt", stats?.rebuildReason ?? NSNull()),
            ("resident_mb", (ProcessMemory.residentMegabytes * 10).rounded() / 10),
        ]
        TableSummary.print(summary, json: options.json)
        if let path = options.contactSheet, let sheet { try sheet.write(to: path) }
        if corrupt > 0 { throw ExitCode(1) }
    }

    /// Monotonic nanoseconds (a vDSO call, about 20 ns, included in every timing).
    private static func now() -> UInt64 {
        var ts = timespec()
        clock_gettime(CLOCK_MONOTONIC, &ts)
        return UInt64(ts.tv_sec) * 1_000_000_000 + UInt64(ts.tv_nsec)
    }

    /// The nearest-rank percentile `p` of `values` (0 when empty).
    private static func percentile(_ values: [UInt64], _ p: Double) -> UInt64 {
        guard !values.isEmpty else { return 0 }
        let sorted = values.sorted()
        return sorted[min(sorted.count - 1, max(0, Int((p * Double(sorted.count)).rounded(.up)) - 1))]
    }
}
