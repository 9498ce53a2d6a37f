import CoreMetrics
import Foundation

/// TIP's metrics through swift-metrics: counters of fetches by load source, bytes downloaded, cache lookups and
/// evictions, and timers of downloads and decodes. Nothing is made or recorded while the factory is swift-metrics'
/// no-op one (an application that never bootstraps a backend pays one type check per event).
///
/// | label | kind | dimensions |
/// |---|---|---|
/// | `tip_fetches_total` | counter | `pipeline`, `source` (below), `result` (`success`, `failure`, `cancelled`) |
/// | `tip_downloaded_bytes_total` | counter | |
/// | `tip_cache_lookups_total` | counter | `cache` (`rendered`, `memory`, `disk`), `result` (`hit`, `miss`) |
/// | `tip_cache_evictions_total` | counter | `cache` |
/// | `tip_download_duration_seconds` | timer (nanoseconds) | `result` (`success`, `failure`) |
/// | `tip_decode_duration_seconds` | timer (nanoseconds) | `type` |
///
/// A fetch's `source` is `memory`, `disk`, `additional`, `network`, `network_resumed` or `none`.
///
/// Thread-safe: the made metrics sit behind one lock, and are made again when the factory changes.
final class PipelineMetrics: Sendable {
    private struct State {
        var factory: ObjectIdentifier?
        var counters: [String: Counter] = [:]
        var timers: [String: CoreMetrics.Timer] = [:]
    }

    private let state = Locked(State())
    private let override: Locked<(any MetricsFactory)?>

    init(factory: (any MetricsFactory)? = nil) {
        override = Locked(factory)
    }

    /// The factory set on the configuration (nil: `MetricsSystem.factory`).
    var factoryOverride: (any MetricsFactory)? {
        get { override.withLock { $0 } }
        set { override.withLock { $0 = newValue } }
    }

    /// The factory to report to, or nil while it is the no-op one. The no-op check compares type identities,
    /// cheaper than a dynamic cast on every event.
    private var factory: (any MetricsFactory)? {
        let factory = override.withLock { $0 } ?? MetricsSystem.factory
        return ObjectIdentifier(type(of: factory)) == Self.noOpType ? nil : factory
    }

    private static let noOpType = ObjectIdentifier(NOOPMetricsHandler.self)

    /// Adds `amount` to counter `label` with `dimensions` (not evaluated while nothing listens).
    func increment(_ label: String, _ dimensions: @autoclosure () -> [(String, String)] = [], by amount: Int = 1) {
        guard let factory else { return }
        counter(label, dimensions(), factory).increment(by: Int64(amount))
    }

    /// Adds one to each counter of `counters` (labels with their dimensions), with one look at the factory for
    /// them all: for a caller with several events at once (the synchronous rendered hit's lookup and fetch).
    func incrementEach(_ counters: @autoclosure () -> [(label: String, dimensions: [(String, String)])]) {
        guard let factory else { return }
        for (label, dimensions) in counters() { counter(label, dimensions, factory).increment(by: 1) }
    }

    /// Records `duration` in timer `label` with `dimensions` (not evaluated while nothing listens).
    func record(_ label: String, _ dimensions: @autoclosure () -> [(String, String)] = [], duration: Duration) {
        guard let factory else { return }
        let (seconds, attoseconds) = duration.components
        timer(label, dimensions(), factory).recordNanoseconds(seconds * 1_000_000_000 + attoseconds / 1_000_000_000)
    }

    /// Runs `body` and records how long it took in timer `label`, when a backend listens.
    func measure<R>(
        _ label: String, _ dimensions: @autoclosure () -> [(String, String)] = [], _ body: () throws -> R
    ) rethrows -> R {
        guard factory != nil else { return try body() }
        let clock = ContinuousClock()
        let start = clock.now
        defer { record(label, dimensions(), duration: clock.now - start) }
        return try body()
    }

    private func counter(_ label: String, _ dimensions: [(String, String)], _ factory: any MetricsFactory) -> Counter {
        let key = Self.key(label, dimensions)
        return state.withLock { state in
            reset(&state, for: factory)
            if let made = state.counters[key] { return made }
            let made = Counter(label: label, dimensions: dimensions, factory: factory)
            state.counters[key] = made
            return made
        }
    }

    private func timer(_ label: String, _ dimensions: [(String, String)], _ factory: any MetricsFactory)
        -> CoreMetrics.Timer
    {
        let key = Self.key(label, dimensions)
        return state.withLock { state in
            reset(&state, for: factory)
            if let made = state.timers[key] { return made }
            let made = CoreMetrics.Timer(label: label, dimensions: dimensions, factory: factory)
            state.timers[key] = made
            return made
        }
    }

    /// Forgets the made metrics when the factory is another one than they were made with.
    private func reset(_ state: inout State, for factory: any MetricsFactory) {
        // A class factory is one object; a value factory is taken as one per type.
        let identity =
            type(of: factory) is AnyClass ? ObjectIdentifier(factory as AnyObject) : ObjectIdentifier(type(of: factory))
        guard identity != state.factory else { return }
        state = State(factory: identity)
    }

    private static func key(_ label: String, _ dimensions: [(String, String)]) -> String {
        dimensions.reduce(label) { $0 + "|" + $1.0 + "=" + $1.1 }
    }
}
