import Foundation

@testable import TIP

/// Time for the downloader's limits that moves only when the test says: `advance(by:)` runs every check that
/// came due, on its queue. A limit then trips because the test stepped past it, never because a loaded machine
/// ran the test late.
final class SteppedDownloadTime: DownloadTimeSource {
    private struct Scheduled {
        let deadline: ContinuousClock.Instant
        let queue: DispatchQueue
        let work: @Sendable () -> Void
    }

    private let state: Locked<(now: ContinuousClock.Instant, scheduled: [Scheduled])> = Locked(
        (ContinuousClock.now, []))

    var now: ContinuousClock.Instant { state.withLock { $0.now } }

    func schedule(after delay: TimeInterval, on queue: DispatchQueue, _ work: @escaping @Sendable () -> Void) {
        state.withLock { $0.scheduled.append(Scheduled(deadline: $0.now + .seconds(delay), queue: queue, work: work)) }
    }

    /// How many checks wait for time to pass.
    var scheduledCount: Int { state.withLock { $0.scheduled.count } }

    /// Moves time forward by `seconds` and runs the checks now due (each on its queue, asynchronously).
    func advance(by seconds: TimeInterval) {
        let due: [Scheduled] = state.withLock { state in
            state.now += .seconds(seconds)
            let now = state.now
            let due = state.scheduled.filter { $0.deadline <= now }
            state.scheduled.removeAll { $0.deadline <= now }
            return due
        }
        for item in due { item.queue.async(execute: item.work) }
    }
}
