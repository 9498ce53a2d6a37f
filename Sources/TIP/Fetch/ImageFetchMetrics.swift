import Foundation

/// What a fetch did, source by source (TIP's `TIPImageFetchMetrics`), available once the fetch ended.
public struct ImageFetchMetrics: Sendable {
    /// One info per visited source, in visiting order.
    public let infos: [ImageFetchMetricInfo]
    /// Seconds from the first source's start to the last source's end.
    public let totalDuration: TimeInterval
    /// Seconds from the first source's start to the first image delivered (preview, scan or final); 0 when
    /// none was.
    public let firstImageLoadDuration: TimeInterval
    /// Whether the fetch was cancelled.
    public let wasCancelled: Bool

    /// A fetch answered inside `fetchImage(with:)` by the rendered-image cache: the memory cache's final hit,
    /// loaded synchronously, in no time (what the recorder gives a source begun and ended at one instant).
    /// One shared value, so that the hit allocates nothing for its metrics.
    static let synchronousMemoryHit: ImageFetchMetrics = {
        var info = ImageFetchMetricInfo(source: .memoryCache)
        info.result = .hitFinal
        info.wasLoadedSynchronously = true
        return ImageFetchMetrics(infos: [info], totalDuration: 0, firstImageLoadDuration: 0, wasCancelled: false)
    }()

    /// The info of `source`, nil when the fetch never visited it.
    public func metricInfo(for source: ImageLoadSource) -> ImageFetchMetricInfo? {
        infos.first { $0.source == source }
    }
}

/// Builds an `ImageFetchMetrics` as a fetch runs. Sources must be visited in increasing order; a source the
/// request does not allow is still visited and ends as a miss. Times are given by the caller (tests inject
/// them). Not thread-safe: the fetch operation owns it.
struct ImageFetchMetricsRecorder {
    private(set) var infos: [ImageFetchMetricInfo] = []
    private var start: ContinuousClock.Instant?
    private var sourceStart: ContinuousClock.Instant?
    private var end: ContinuousClock.Instant?
    private var firstImage: ContinuousClock.Instant?

    /// Starts `source` at `now`; ends the current source first (as a miss when it had no result). Returns
    /// false, changing nothing, when `source` does not come after the last visited one.
    @discardableResult
    mutating func begin(_ source: ImageLoadSource, at now: ContinuousClock.Instant) -> Bool {
        if let last = infos.last?.source, source.rawValue <= last.rawValue { return false }
        endCurrent(at: now, cancelled: false)
        if start == nil { start = now }
        sourceStart = now
        infos.append(ImageFetchMetricInfo(source: source))
        return true
    }

    /// Records `result` for the current source (results only upgrade) and notes the first image.
    mutating func record(_ result: ImageFetchLoadResult, at now: ContinuousClock.Instant) {
        guard !infos.isEmpty else { return }
        let index = infos.count - 1
        infos[index].result = max(infos[index].result, result)
        if result > .miss, firstImage == nil { firstImage = now }
    }

    /// Files the current network info under `networkResumed` (the first bytes revealed a resume), or back
    /// under `network` when the server sent the whole image instead.
    mutating func fileNetwork(asResumed resumed: Bool) {
        guard let index = infos.indices.last, [.network, .networkResumed].contains(infos[index].source) else { return }
        infos[index].source = resumed ? .networkResumed : .network
    }

    /// Updates the current network info.
    mutating func updateNetwork(_ body: (inout ImageFetchMetricInfo) -> Void) {
        guard let index = infos.indices.last, [.network, .networkResumed].contains(infos[index].source) else { return }
        body(&infos[index])
    }

    /// Notes the first progressive frame of the current network source (measured from the source's start).
    mutating func noteFirstProgressiveFrame(at now: ContinuousClock.Instant) {
        guard let sourceStart else { return }
        updateNetwork { info in
            if info.firstProgressiveFrameNetworkLoadDuration == 0 {
                info.firstProgressiveFrameNetworkLoadDuration = max(
                    (now - sourceStart).timeInterval, .leastNonzeroMagnitude)
            }
        }
    }

    /// Ends the current source at `now` (a source without a result becomes a miss, or stays `neverCompleted`
    /// when `cancelled`).
    mutating func endCurrent(at now: ContinuousClock.Instant, cancelled: Bool) {
        guard let index = infos.indices.last, let sourceStart else { return }
        infos[index].loadDuration = (now - sourceStart).timeInterval
        if cancelled {
            infos[index].wasCancelled = true
        } else if infos[index].result == .neverCompleted {
            infos[index].result = .miss
        }
        self.sourceStart = nil
        end = now
    }

    /// The finished metrics, ending the current source at `now`.
    mutating func finish(at now: ContinuousClock.Instant, cancelled: Bool) -> ImageFetchMetrics {
        endCurrent(at: now, cancelled: cancelled)
        let first = start ?? now
        return ImageFetchMetrics(
            infos: infos,
            totalDuration: ((end ?? now) - first).timeInterval,
            firstImageLoadDuration: firstImage.map { ($0 - first).timeInterval } ?? 0,
            wasCancelled: cancelled)
    }
}
