import Dispatch
import Foundation

/// Notices a callback queue that nothing services (a Linux program that never runs `dispatchMain()` while its
/// callbacks go to `DispatchQueue.main`) and says so once per queue, instead of letting every fetch hang silently.
///
/// Cheap by construction: at most one probe is in flight per watchdog. A probe is the next callback submitted
/// while none is in flight; it marks itself when it runs, and one timer checks it `interval` later. A queue is
/// reported when its probe has waited the whole interval without running. Callbacks submitted while a probe is
/// in flight pay one lock and nothing else.
///
/// Thread-safe: its state sits in one lock.
final class CallbackQueueWatchdog: Sendable {
    /// One probed callback: set when it starts running.
    private final class Probe: Sendable {
        let ran = Locked(false)
    }

    private struct State {
        /// Seconds a probe may wait before its queue is reported.
        var interval: TimeInterval
        var probeInFlight = false
        /// The keys of the queues already reported (each is reported once).
        var reported: Set<Int> = []
        /// Told once per stuck queue, with its label.
        var report: (@Sendable (String) -> Void)?
    }

    /// The default wait before a queue is reported: 5 seconds.
    static let defaultInterval: TimeInterval = 5

    private let state: Locked<State>
    /// Where the probes' timers run (never the watched queue, which may be the stuck one).
    private let timerQueue = DispatchQueue(label: "TIP.callbackQueueWatchdog", qos: .utility)
    init(interval: TimeInterval = CallbackQueueWatchdog.defaultInterval) {
        state = Locked(State(interval: interval))
    }

    /// Called once per stuck queue with its label (on a private queue).
    var report: (@Sendable (String) -> Void)? {
        get { state.withLock { $0.report } }
        set { state.withLock { $0.report = newValue } }
    }

    /// Seconds a callback may wait before its queue is reported (tests shorten it).
    var interval: TimeInterval {
        get { state.withLock { $0.interval } }
        set { state.withLock { $0.interval = newValue } }
    }

    /// Whether a probe is waiting for its check (tests wait for it to end).
    var isProbeInFlight: Bool { state.withLock { $0.probeInFlight } }

    /// Runs `work` on `queue`, probing the queue when no probe is in flight. `key` identifies the queue (Dispatch on
    /// Linux hands out a new `DispatchQueue` object for `.main` on every access).
    func async(on queue: DispatchQueue, key: Int, execute work: @escaping @Sendable () -> Void) {
        let started = state.withLock { state -> TimeInterval? in
            guard !state.probeInFlight, !state.reported.contains(key) else { return nil }
            state.probeInFlight = true
            return state.interval
        }
        guard let interval = started else { return queue.async(execute: work) }
        let probe = Probe()
        queue.async {
            probe.ran.withLock { $0 = true }
            work()
        }
        timerQueue.asyncAfter(deadline: .now() + interval) { [self] in
            let stuck = !probe.ran.withLock { $0 }
            let report = state.withLock { state -> (@Sendable (String) -> Void)? in
                state.probeInFlight = false
                guard stuck, state.reported.insert(key).inserted else { return nil }
                return state.report
            }
            report?(queue.label)
        }
    }
}
