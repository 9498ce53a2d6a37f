import CoreMetrics
import Foundation
import MetricsTestKit
import Testing

@testable import TIP

@Suite("Data-only fetch")
struct ImageDataFetchTests {
    private static func decodeCount(_ metrics: TestMetrics) -> Int {
        ImageType.allKnown.reduce(0) { count, type in
            count
                + ((try? metrics.expectTimer("tip_decode_duration_seconds", [("type", type.rawValue)]).values.count)
                    ?? 0)
        }
    }

    @Test(
        """
        the downloaded bytes and their type, then the memory cache's, then (a new pipeline) the disk's: nothing \
        decoded
        """
    )
    func bytesWithoutDecoding() async throws {
        let env = try SteppedPipelineEnvironment()
        defer { env.tearDown() }
        let metrics = TestMetrics()
        env.configuration.metricsFactory = metrics
        let png = try CodecCatalogue.shared.encodeImage(
            ImageContainer(image: TestImages.photo(width: 120, height: 90)), type: .png, quality: 1)
        let request = GenericImageFetchRequest(imageURL: SteppedPipelineEnvironment.url("d.png"))
        async let network = env.pipeline.fetchImageData(for: request)
        // A long limit: the child task must get a thread of a loaded pool before its download exists.
        try await env.provider.next(timeout: .seconds(300)).serve(png, type: "image/png")
        let downloaded = try await network
        #expect(downloaded.data == png)
        #expect(downloaded.imageType == .png)
        #expect(downloaded.imageSource == .network)
        #expect(downloaded.imageDimensions == CGSize(width: 120, height: 90))

        let memory = try await env.pipeline.fetchImageData(for: request)
        #expect(memory.imageSource == .memoryCache && memory.data == png)
        env.pipeline.clearMemoryCaches()
        let disk = try await env.pipeline.fetchImageData(for: request)
        #expect(disk.imageSource == .diskCache && disk.data == png && disk.imageType == .png)
        #expect(Self.decodeCount(metrics) == 0)
        #expect(env.provider.count == 1)
    }

    @Test(
        "the completion API calls back on the callback queue; cachesOnly misses with couldNotLoadImage; cancel ends it")
    func completionAndErrors() async throws {
        let env = try SteppedPipelineEnvironment()
        defer { env.tearDown() }
        var cachesOnly = GenericImageFetchRequest(imageURL: SteppedPipelineEnvironment.url("none.jpg"))
        cachesOnly.loadingSources = .cachesOnly
        let missed = Locked<Result<ImageDataFetchResult, any Error>?>(nil)
        let onCallbackQueue = Locked(false)
        let configuration = env.configuration
        env.pipeline.fetchImageData(with: cachesOnly) { outcome in
            onCallbackQueue.withLock { $0 = configuration.isOnCallbackQueue }
            missed.withLock { $0 = outcome }
        }
        #expect(await eventually { missed.withLock { $0 } != nil })
        #expect(onCallbackQueue.withLock { $0 })
        if case .failure(let error)? = missed.withLock({ $0 }) {
            #expect((error as? ImageFetchError)?.code == .couldNotLoadImage)
        } else {
            Issue.record("a caches-only miss succeeded")
        }
        #expect(env.provider.count == 0)

        let cancelled = Locked<Result<ImageDataFetchResult, any Error>?>(nil)
        let fetch = env.pipeline.fetchImageData(
            with: GenericImageFetchRequest(imageURL: SteppedPipelineEnvironment.url("c.jpg")),
            priority: .low
        ) { outcome in cancelled.withLock { $0 = outcome } }
        let download = try await env.provider.next()
        fetch.cancel()
        #expect(await download.waitUntilCancelled())
        #expect(await eventually { cancelled.withLock { $0 } != nil })
        if case .failure(let error)? = cancelled.withLock({ $0 }) {
            #expect((error as? ImageFetchError)?.code == .cancelled)
        } else {
            Issue.record("a cancelled data fetch succeeded")
        }
        #expect(fetch.isFinished)
    }

    @Test("an image fetch joins a data fetch's download at its own priority; the data fetch decodes nothing")
    func sharedDownload() async throws {
        let env = try SteppedPipelineEnvironment()
        defer { env.tearDown() }
        let jpeg = try DownloaderTestEnvironment.jpeg(width: 200, height: 150, seed: 9)
        let url = SteppedPipelineEnvironment.url("shared-data.jpg")
        let data = Locked<ImageDataFetchResult?>(nil)
        env.pipeline.fetchImageData(with: GenericImageFetchRequest(imageURL: url), priority: .low) { outcome in
            data.withLock { $0 = try? outcome.get() }
        }
        let download = try await env.provider.next()
        let image = env.pipeline.operation(with: GenericImageFetchRequest(imageURL: url)) { _, _ in }
        image.priority = .high
        env.pipeline.fetchImage(with: image)
        #expect(await eventually { download.priorities.last == .high })
        download.serve(jpeg)
        #expect(await eventually { image.isFinished && data.withLock { $0 } != nil })
        #expect(data.withLock { $0?.data } == jpeg)
        #expect(image.finalResult?.imageSource == .network)
        #expect(env.provider.count == 1)
    }

    @Test("cancelling the task throws CancellationError")
    func taskCancellation() async throws {
        let env = try SteppedPipelineEnvironment()
        defer { env.tearDown() }
        let task = Task {
            try await env.pipeline.fetchImageData(
                for: GenericImageFetchRequest(imageURL: SteppedPipelineEnvironment.url("t.jpg")))
        }
        // the task must start first, on a loaded pool
        let download = try await env.provider.next(timeout: .seconds(300))
        task.cancel()
        await #expect(throws: CancellationError.self) { try await task.value }
        #expect(await download.waitUntilCancelled())
    }
}
