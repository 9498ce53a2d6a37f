import CoreMetrics
import Foundation
import MetricsTestKit
import Testing

@testable import TIP

/// TIP's swift-metrics, through swift-metrics' own test backend.
@Suite("Metrics")
struct PipelineMetricsTests {
    private func fetch(_ env: SteppedPipelineEnvironment, _ name: String, size: CGFloat) async -> ImageFetchOperation {
        let request = GenericImageFetchRequest(
            imageURL: SteppedPipelineEnvironment.url(name), identifier: nil,
            targetDimensions: CGSize(width: size, height: size), targetContentMode: .scaleAspectFit)
        let operation = env.pipeline.operation(with: request) { _, _ in }
        env.pipeline.fetchImage(with: operation)
        return operation
    }

    @Test("fetches by source, downloaded bytes, cache lookups, evictions and the download and decode timers")
    func countersAndTimers() async throws {
        let env = try SteppedPipelineEnvironment()
        defer { env.tearDown() }
        let metrics = TestMetrics()
        env.configuration.metricsFactory = metrics
        let jpeg = try DownloaderTestEnvironment.jpeg(width: 320, height: 240, seed: 41)

        let network = await fetch(env, "m.jpg", size: 100)
        try await env.provider.next().serve(jpeg)
        #expect(await eventually { network.isFinished })
        let memory = await fetch(env, "m.jpg", size: 120)  // another size: the memory cache decodes it
        #expect(await eventually { memory.isFinished })
        env.pipeline.clearMemoryCaches()
        let disk = await fetch(env, "m.jpg", size: 140)
        #expect(await eventually { disk.isFinished })
        let failed = await fetch(env, "missing.jpg", size: 100)
        try await env.provider.next().respond(status: 404)
        #expect(await eventually { failed.isFinished })

        let pipeline = ("pipeline", env.pipeline.identifier)
        func fetches(_ source: String, _ result: String) -> Int64 {
            (try? metrics.expectCounter("tip_fetches_total", [pipeline, ("source", source), ("result", result)])
                .totalValue) ?? 0
        }
        #expect(fetches("network", "success") == 1)
        #expect(fetches("memory", "success") == 1)
        #expect(fetches("disk", "success") == 1)
        #expect(fetches("none", "failure") == 1)
        #expect(try metrics.expectCounter("tip_downloaded_bytes_total").totalValue == Int64(jpeg.count))
        func lookups(_ cache: String, _ result: String) -> Int64 {
            (try? metrics.expectCounter("tip_cache_lookups_total", [("cache", cache), ("result", result)]).totalValue)
                ?? 0
        }
        #expect(lookups("memory", "hit") == 1)
        #expect(lookups("disk", "hit") == 1)
        #expect(lookups("memory", "miss") >= 2)
        #expect(try metrics.expectTimer("tip_download_duration_seconds", [("result", "success")]).values.count == 1)
        #expect(try metrics.expectTimer("tip_download_duration_seconds", [("result", "failure")]).values.count == 1)
        #expect(try metrics.expectTimer("tip_decode_duration_seconds", [("type", "public.jpeg")]).values.count == 3)

        // Evictions: a memory budget that holds one image.
        env.configuration.maxRatioSizeOfCacheEntry = 1
        env.configuration.maxBytesForAllMemoryCaches = Int64(jpeg.count * 3 / 2)
        let second = await fetch(env, "n.jpg", size: 100)
        try await env.provider.next().serve(try DownloaderTestEnvironment.jpeg(width: 320, height: 240, seed: 42))
        #expect(await eventually { second.isFinished })
        #expect(try metrics.expectCounter("tip_cache_evictions_total", [("cache", "memory")]).totalValue >= 1)
    }

    @Test("without a backend nothing is made: the no-op factory is skipped")
    func noBackend() async throws {
        let env = try SteppedPipelineEnvironment()
        defer { env.tearDown() }
        env.configuration.metricsFactory = NOOPMetricsHandler.instance
        let operation = await fetch(env, "quiet.jpg", size: 100)
        try await env.provider.next().serve(try DownloaderTestEnvironment.jpeg(width: 64, height: 48, seed: 43))
        #expect(await eventually { operation.isFinished })
        #expect(operation.finalResult != nil)
    }
}
