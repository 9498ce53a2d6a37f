import Foundation

/// The downloader's own limits on a download's time (beyond TIP, whatever the provider does): an overall
/// duration, and a minimum rate measured over consecutive intervals (the first one includes connecting and
/// waiting for the response). A pure value: the shared download feeds it the bytes and asks it at the times it
/// names.
struct ImageDownloadTimeouts: Sendable {
    /// Why a download is stopped.
    enum Verdict: Equatable, Sendable {
        case withinLimits
        /// It ran past the overall duration.
        case tooLong(limit: TimeInterval)
        /// It received `received` bytes in the last interval, below the minimum.
        case tooSlow(received: Int, interval: TimeInterval, minimumBytesPerSecond: Int)
    }

    private let maxDuration: TimeInterval
    private let minimumBytesPerSecond: Int
    private let interval: TimeInterval
    private let startedAt: ContinuousClock.Instant
    private var intervalStart: ContinuousClock.Instant
    private var receivedInInterval = 0

    /// Limits for a download starting at `now`, read from `configuration`.
    init(configuration: GlobalConfiguration, now: ContinuousClock.Instant) {
        self.init(
            maxDuration: configuration.maxImageDownloadDuration,
            minimumBytesPerSecond: configuration.minimumImageDownloadBytesPerSecond,
            interval: configuration.imageDownloadRateInterval, now: now)
    }

    /// Limits for a download starting at `now`: 0 or less turns a limit off.
    init(maxDuration: TimeInterval, minimumBytesPerSecond: Int, interval: TimeInterval, now: ContinuousClock.Instant) {
        self.maxDuration = maxDuration
        self.minimumBytesPerSecond = minimumBytesPerSecond
        self.interval = max(0.05, interval)
        startedAt = now
        intervalStart = now
    }

    /// Whether any limit is on.
    var isActive: Bool { maxDuration > 0 || minimumBytesPerSecond > 0 }

    /// `count` more bytes arrived.
    mutating func received(_ count: Int) {
        receivedInInterval += count
    }

    /// When the next check is due (nil: never).
    var nextCheck: ContinuousClock.Instant? {
        let end = maxDuration > 0 ? startedAt + .seconds(maxDuration) : nil
        let rate = minimumBytesPerSecond > 0 ? intervalStart + .seconds(interval) : nil
        switch (end, rate) {
        case let (end?, rate?): return min(end, rate)
        case let (end?, nil): return end
        case let (nil, rate?): return rate
        case (nil, nil): return nil
        }
    }

    /// The verdict at `now`; a finished interval that met the minimum starts the next one.
    mutating func check(at now: ContinuousClock.Instant) -> Verdict {
        if maxDuration > 0, now - startedAt >= .seconds(maxDuration) { return .tooLong(limit: maxDuration) }
        guard minimumBytesPerSecond > 0, now - intervalStart >= .seconds(interval) else { return .withinLimits }
        let elapsed = (now - intervalStart).timeInterval
        // The interval's own length sets the minimum: a check that runs late asks for no more bytes.
        if Double(receivedInInterval) < Double(minimumBytesPerSecond) * interval {
            return .tooSlow(
                received: receivedInInterval, interval: elapsed, minimumBytesPerSecond: minimumBytesPerSecond)
        }
        intervalStart = now
        receivedInInterval = 0
        return .withinLimits
    }
}
