import Dispatch
import Foundation

/// Notices a callback queue that nothing services (a Linux program that never runs `dispatchMain()` while its
/// callbacks go to `DispatchQueue.main`) and says so once per queue, instead of letting every fetch hang silently.
///
/// Cheap by construction: per queue, callbacks are numbered as they are submitted and each notes its number when it
/// starts, one lock each way; at most one timer per queue is armed. A timer watches one callback (the first
/// submitted while none was armed): `interval` later, a queue whose watched callback has not started is reported;
/// one whose callbacks have all started is left until the next; one with callbacks still waiting watches the first
/// of them for another interval. So a callback that waits is reported within one to two intervals, whether or not
/// the queue ran callbacks before.
///
/// Thread-safe: its state sits in one lock.
final class CallbackQueueWatchdog: Sendable {
    /// One watched queue's callbacks.
    private struct Watched {
        /// Callbacks submitted (the last one's number).
        var submitted: UInt64 = 0
        /// The highest number of a callback that started running.
        var started: UInt64 = 0
        /// Whether a timer is armed.
        var isChecking = false
    }

    private struct State {
        /// Seconds a callback may wait before its queue is reported.
        var interval: TimeInterval
        var queues: [Int: Watched] = [:]
        /// The keys of the queues already reported (each is reported once, and no longer watched).
        var reported: Set<Int> = []
        /// Told once per stuck queue, with its label.
        var report: (@Sendable (String) -> Void)?
    }

    /// The default wait before a queue is reported: 5 seconds.
    static let defaultInterval: TimeInterval = 5

    private let state: Locked<State>
    /// Where the timers run (never the watched queue, which may be the stuck one).
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

    /// Whether a timer is armed for any queue (tests wait for them to end).
    var isWatching: Bool { state.withLock { $0.queues.values.contains { $0.isChecking } } }

    /// Runs `work` on `queue`, watching it. `key` identifies the queue (Dispatch on Linux hands out a new
    /// `DispatchQueue` object for `.main` on every access).
    func async(on queue: DispatchQueue, key: Int, execute work: @escaping @Sendable () -> Void) {
        let submitted = state.withLock { state -> (number: UInt64, arm: TimeInterval?)? in
            guard !state.reported.contains(key) else { return nil }
            var watched = state.queues[key, default: Watched()]
            watched.submitted += 1
            let arm: TimeInterval? = watched.isChecking ? nil : state.interval
            watched.isChecking = true
            state.queues[key] = watched
            return (watched.submitted, arm)
        }
        guard let submitted else { return queue.async(execute: work) }
        queue.async { [self] in
            state.withLock { state in
                if let started = state.queues[key]?.started, started < submitted.number {
                    state.queues[key]?.started = submitted.number
                }
            }
            work()
        }
        if let interval = submitted.arm { check(queue, key: key, watching: submitted.number, after: interval) }
    }

    /// `interval` from now: reports `queue` when callback `number` has not started, or watches the first callback
    /// still waiting.
    private func check(_ queue: DispatchQueue, key: Int, watching number: UInt64, after interval: TimeInterval) {
        timerQueue.asyncAfter(deadline: .now() + interval) { [self] in
            enum Outcome {
                case report((@Sendable (String) -> Void)?)
                case watch(UInt64, TimeInterval)
                case done
            }
            let outcome = state.withLock { state -> Outcome in
                guard var watched = state.queues[key] else { return .done }
                if watched.started < number {
                    state.queues[key] = nil
                    return state.reported.insert(key).inserted ? .report(state.report) : .done
                }
                if watched.submitted > watched.started { return .watch(watched.started + 1, state.interval) }
                watched.isChecking = false
                state.queues[key] = watched
                return .done
            }
            switch outcome {
            case .report(let report): report?(queue.label)
            case .watch(let next, let interval): check(queue, key: key, watching: next, after: interval)
            case .done: break
            }
        }
    }
}
