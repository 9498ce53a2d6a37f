import Foundation
import Testing

@testable import TIP

@Suite("Fetch metrics")
struct ImageFetchMetricsTests {
    let t0 = ContinuousClock.now

    func at(_ milliseconds: Int) -> ContinuousClock.Instant { t0 + .milliseconds(milliseconds) }

    @Test("one info per visited source, in increasing order; unvisited sources have none")
    func visitingOrder() {
        var recorder = ImageFetchMetricsRecorder()
        let visits = [
            recorder.begin(.memoryCache, at: at(0)),
            recorder.begin(.diskCache, at: at(2)),
            recorder.begin(.memoryCache, at: at(3)),  // going back is refused
            recorder.begin(.diskCache, at: at(3)),
            recorder.begin(.network, at: at(5)),
        ]
        #expect(visits == [true, true, false, false, true])
        recorder.record(.hitFinal, at: at(30))
        let metrics = recorder.finish(at: at(31), cancelled: false)
        #expect(metrics.infos.map(\.source) == [.memoryCache, .diskCache, .network])
        #expect(metrics.metricInfo(for: .memoryCache)?.result == .miss)
        #expect(metrics.metricInfo(for: .diskCache)?.result == .miss)
        #expect(metrics.metricInfo(for: .network)?.result == .hitFinal)
        #expect(metrics.metricInfo(for: .additionalCache) == nil)
        #expect(abs(metrics.totalDuration - 0.031) < 1e-9)
        #expect(abs(metrics.firstImageLoadDuration - 0.030) < 1e-9)
        #expect(abs((metrics.metricInfo(for: .diskCache)?.loadDuration ?? 0) - 0.003) < 1e-9)
        #expect(!metrics.wasCancelled)
    }

    @Test("results only upgrade; a preview counts as the first image")
    func upgrades() {
        var recorder = ImageFetchMetricsRecorder()
        recorder.begin(.diskCache, at: at(0))
        recorder.record(.hitPreview, at: at(4))
        recorder.record(.miss, at: at(5))
        recorder.begin(.network, at: at(6))
        recorder.record(.hitProgressFrame, at: at(10))
        recorder.record(.hitPreview, at: at(11))
        let metrics = recorder.finish(at: at(20), cancelled: false)
        #expect(metrics.metricInfo(for: .diskCache)?.result == .hitPreview)
        #expect(metrics.metricInfo(for: .network)?.result == .hitProgressFrame)
        #expect(abs(metrics.firstImageLoadDuration - 0.004) < 1e-9)
    }

    @Test("a resumed download is re-filed under networkResumed; cancellation leaves the source never completed")
    func resumedAndCancelled() {
        var recorder = ImageFetchMetricsRecorder()
        recorder.begin(.network, at: at(0))
        recorder.fileNetwork(asResumed: true)
        recorder.fileNetwork(asResumed: false)  // the server sent the whole image: back under network
        #expect(recorder.infos.last?.source == .network)
        recorder.fileNetwork(asResumed: true)
        recorder.updateNetwork {
            $0.networkImageSizeInBytes = 1000
            $0.networkImageDimensions = CGSize(width: 100, height: 50)
        }
        let metrics = recorder.finish(at: at(8), cancelled: true)
        let info = metrics.metricInfo(for: .networkResumed)
        #expect(metrics.metricInfo(for: .network) == nil)
        #expect(info?.result == .neverCompleted)
        #expect(info?.wasCancelled == true)
        #expect(info?.networkImagePixelsPerByte == 5)
        #expect(metrics.wasCancelled)
        #expect(metrics.firstImageLoadDuration == 0)
    }
}
