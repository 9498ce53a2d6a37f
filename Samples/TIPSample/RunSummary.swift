import Foundation
import TIP

/// The end-of-run summary: a table for people (`render()`), one JSON object for programs (`json()`).
struct RunSummary {
    /// Latency percentiles, milliseconds.
    struct Percentiles {
        let p50: Double
        let p95: Double
        let p99: Double

        /// Nearest-rank percentiles of `values` (zeros when empty).
        init(_ values: [Double]) {
            let sorted = values.sorted()
            func rank(_ p: Double) -> Double {
                guard !sorted.isEmpty else { return 0 }
                return sorted[min(sorted.count - 1, max(0, Int((p * Double(sorted.count)).rounded(.up)) - 1))]
            }
            p50 = rank(0.50)
            p95 = rank(0.95)
            p99 = rank(0.99)
        }

        var json: [String: Any] { ["p50": round1(p50), "p95": round1(p95), "p99": round1(p99)] }
    }

    /// The sources in report order, with their JSON names.
    static let sources: [(ImageLoadSource, String)] = [
        (.memoryCache, "memory"), (.diskCache, "disk"), (.additionalCache, "additional"),
        (.network, "network"), (.networkResumed, "network_resumed"),
    ]

    let scenario: Scenario
    let api: FetchAPI
    let stats: FetchStats
    let fetches: Int
    /// Requests the embedded server received (nil with `--base-url`).
    let serverRequests: Int?
    /// Body bytes the embedded server sent (nil with `--base-url`).
    let bytesDownloaded: Int?
    let wallSeconds: Double
    let peakRSSMegabytes: Double
    /// rendered, memory, disk.
    let cacheBytes: [Int64]
    /// rendered, memory, disk.
    let budgets: [Int64]
    let root: String

    /// Fetches that joined a download another fetch started: network-sourced fetches beyond the requests the
    /// server completed (nil without the embedded server).
    var coalesced: Int? {
        guard let completedRequests else { return nil }
        let network = (stats.bySource[.network] ?? 0) + (stats.bySource[.networkResumed] ?? 0)
        return max(0, network - completedRequests)
    }
    /// Requests the server answered completely (set by the command).
    var completedRequests: Int?
    /// Distinct URLs the run fetched (set by the command): with ample budgets, every one is requested once.
    var uniqueURLs = 0
    /// Problems TIP reported during the run (set by the command; printed on stderr as they happened).
    var problems = 0

    var resumed: Int { stats.bySource[.networkResumed] ?? 0 }

    func json() -> String {
        var bySource: [String: Any] = [:]
        var latencyBySource: [String: Any] = [:]
        for (source, name) in Self.sources {
            bySource[name] = stats.bySource[source] ?? 0
            latencyBySource[name] = Percentiles(stats.latencies[source] ?? []).json
        }
        var latency = Percentiles(stats.latencies.values.flatMap { $0 }).json
        latency["by_source"] = latencyBySource
        let kinds = ["rendered", "memory", "disk"]
        let object: [String: Any] = [
            "scenario": scenario.rawValue,
            "api": api.rawValue,
            "fetches": fetches,
            "succeeded": stats.succeeded,
            "failed": stats.failed,
            "cancelled": stats.cancelled,
            "unexpected_failures": stats.unexpectedFailures(scenario),
            "by_source": bySource,
            "server_requests": serverRequests.map { $0 as Any } ?? NSNull(),
            "unique_urls": uniqueURLs,
            "bytes_downloaded": bytesDownloaded.map { $0 as Any } ?? NSNull(),
            "coalesced": coalesced.map { $0 as Any } ?? NSNull(),
            "resumed": resumed,
            "revalidated": stats.revalidated,
            "previews": stats.previews,
            "progressive_frames": stats.progressiveFrames,
            "processed": stats.processed,
            "latency_ms": latency,
            "wall_s": (wallSeconds * 100).rounded() / 100,
            "peak_rss_mb": Self.round1(peakRSSMegabytes),
            "cache_bytes": Dictionary(uniqueKeysWithValues: zip(kinds, cacheBytes)),
            "budgets": Dictionary(uniqueKeysWithValues: zip(kinds, budgets)),
            "mismatches": stats.mismatches,
            "problems": problems,
            "root": root,
        ]
        guard let data = try? JSONSerialization.data(withJSONObject: object, options: [.sortedKeys]) else {
            return "{}"
        }
        return String(decoding: data, as: UTF8.self)
    }

    func render() -> String {
        var lines: [String] = []
        func row(_ label: String, _ value: String) {
            lines.append(label.padding(toLength: 22, withPad: " ", startingAt: 0) + value)
        }
        row("scenario", "\(scenario.rawValue) (\(api.rawValue) API)")
        row(
            "fetches",
            "\(fetches): \(stats.succeeded) succeeded, \(stats.failed) failed"
                + (stats.expectedFailures > 0 ? " (\(stats.expectedFailures) expected)" : "")
                + ", \(stats.cancelled) cancelled")
        row("server requests", serverRequests.map(String.init) ?? "n/a")
        row("distinct URLs", String(uniqueURLs))
        row("bytes downloaded", bytesDownloaded.map(Self.bytes) ?? "n/a")
        row("coalesced", coalesced.map(String.init) ?? "n/a")
        row("resumed", String(resumed))
        row("revalidated", String(stats.revalidated))
        row("previews", String(stats.previews))
        row("progressive frames", String(stats.progressiveFrames))
        row("processed", String(stats.processed))
        row("mismatches", String(stats.mismatches))
        row("problems", String(problems))
        row("wall time", String(format: "%.2f s", wallSeconds))
        row("peak RSS", String(format: "%.1f MB", peakRSSMegabytes))
        lines.append("")
        lines.append("source            fetches    p50 ms    p95 ms    p99 ms")
        for (source, name) in Self.sources {
            let p = Percentiles(stats.latencies[source] ?? [])
            lines.append(
                name.padding(toLength: 16, withPad: " ", startingAt: 0)
                    + String(format: "%9d %9.1f %9.1f %9.1f", stats.bySource[source] ?? 0, p.p50, p.p95, p.p99))
        }
        let all = Percentiles(stats.latencies.values.flatMap { $0 })
        lines.append(
            "all".padding(toLength: 16, withPad: " ", startingAt: 0)
                + String(format: "%9d %9.1f %9.1f %9.1f", stats.succeeded, all.p50, all.p95, all.p99))
        lines.append("")
        lines.append("cache             bytes held    budget")
        for (index, kind) in ["rendered", "memory", "disk"].enumerated() {
            lines.append(
                kind.padding(toLength: 16, withPad: " ", startingAt: 0)
                    + Self.bytes(Int(cacheBytes[index])).leftPadded(11) + Self.bytes(Int(budgets[index])).leftPadded(10)
            )
        }
        lines.append("")
        lines.append("caches root: \(root)")
        return lines.joined(separator: "\n")
    }

    static func bytes(_ count: Int) -> String {
        if count >= 1 << 20 { return String(format: "%.1f MB", Double(count) / 1_048_576) }
        if count >= 1 << 10 { return String(format: "%.1f KB", Double(count) / 1024) }
        return "\(count) B"
    }

    static func round1(_ value: Double) -> Double { (value * 10).rounded() / 10 }
}

extension String {
    /// The string right-aligned in `width` columns.
    func leftPadded(_ width: Int) -> String {
        count >= width ? self : String(repeating: " ", count: width - count) + self
    }
}
