import Foundation

/// The running downloads' time-limit checks (``ImageDownloadTimeouts``) on one armed timer instead of one per
/// download: a download registers when its next check is due, and the schedule keeps a single timer at the
/// earliest time registered. Most downloads end long before their first check (30 s by default) and leave
/// without a timer ever having been armed for them; a timer per download cost a dispatch source, its
/// activation and the manager thread's re-arming, about a fifth of the downloader's own cost per small image.
///
/// Confined to the downloader's queue (every call, and every check it runs).
final class ImageDownloadCheckSchedule: @unchecked Sendable {
    private struct Check {
        let at: ContinuousClock.Instant
        let run: @Sendable () -> Void
    }

    private let queue: DispatchQueue
    private var checks: [ObjectIdentifier: Check] = [:]
    /// When the armed timer fires; nil when none is armed.
    private var armed: ContinuousClock.Instant?

    /// A schedule whose checks run on `queue`.
    init(queue: DispatchQueue) {
        self.queue = queue
    }

    /// Checks registered and not yet run.
    var count: Int { checks.count }

    /// Runs `run` on the queue once `time` reaches `instant`, replacing `owner`'s earlier check.
    func schedule(
        _ owner: AnyObject, at instant: ContinuousClock.Instant, time: any DownloadTimeSource,
        _ run: @escaping @Sendable () -> Void
    ) {
        checks[ObjectIdentifier(owner)] = Check(at: instant, run: run)
        if let armed, armed <= instant { return }
        arm(at: instant, time: time)
    }

    /// Forgets `owner`'s check (its download ended).
    func cancel(_ owner: AnyObject) {
        checks[ObjectIdentifier(owner)] = nil
    }

    private func arm(at instant: ContinuousClock.Instant, time: any DownloadTimeSource) {
        armed = instant
        let delay = max(0, (instant - time.now).timeInterval)
        time.schedule(after: delay, on: queue) { [weak self] in self?.fire(armedAt: instant, time: time) }
    }

    /// Runs the checks now due, then arms the timer for the earliest one left (unless an earlier one is armed).
    private func fire(armedAt instant: ContinuousClock.Instant, time: any DownloadTimeSource) {
        if armed == instant { armed = nil }
        let now = time.now
        let due = checks.filter { $0.value.at <= now }
        for key in due.keys { checks[key] = nil }
        // In time order; a check may register its next one.
        for check in due.values.sorted(by: { $0.at < $1.at }) { check.run() }
        guard let next = checks.values.map(\.at).min() else { return }
        if let armed, armed <= next { return }
        arm(at: next, time: time)
    }
}
