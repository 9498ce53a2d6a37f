import Foundation

/// The time the downloader's own limits (``GlobalConfiguration/maxImageDownloadDuration`` and the minimum
/// rate) are measured in: the monotonic clock and `asyncAfter` by default; tests install one they step by hand,
/// so that a limit trips exactly when the test says and never because a loaded machine ran the test late.
protocol DownloadTimeSource: Sendable {
    /// The current instant.
    var now: ContinuousClock.Instant { get }
    /// Runs `work` on `queue` once `delay` seconds have passed.
    func schedule(after delay: TimeInterval, on queue: DispatchQueue, _ work: @escaping @Sendable () -> Void)
}

/// Real time: `ContinuousClock` and `DispatchQueue.asyncAfter`.
struct SystemDownloadTimeSource: DownloadTimeSource {
    var now: ContinuousClock.Instant { .now }

    func schedule(after delay: TimeInterval, on queue: DispatchQueue, _ work: @escaping @Sendable () -> Void) {
        queue.asyncAfter(deadline: .now() + delay, execute: work)
    }
}
