import CoreMetrics
import Foundation
import MetricsTestKit
import Testing

@testable import TIP

@Suite("Prefetcher")
struct ImagePrefetcherTests {
    private static let size = CGSize(width: 90, height: 90)

    private func request(_ name: String) -> GenericImageFetchRequest {
        GenericImageFetchRequest(
            imageURL: SteppedPipelineEnvironment.url(name), identifier: nil, targetDimensions: Self.size,
            targetContentMode: .scaleAspectFill)
    }

    @Test(
        """
        at most maxConcurrentPrefetchCount run, in order, at low priority; stopping drops the rest and cancels \
        the running
        """
    )
    func limitAndStop() async throws {
        let env = try SteppedPipelineEnvironment()
        defer { env.tearDown() }
        let prefetcher = ImagePrefetcher(
            pipeline: env.pipeline, destination: .memoryCache, maxConcurrentPrefetchCount: 2)
        let requests = (0..<5).map { request("limit-\($0).jpg") }
        prefetcher.startPrefetching(with: requests + [requests[0]])  // a repeat is not queued twice
        #expect(prefetcher.runningCount == 2)
        #expect(prefetcher.waitingCount == 3)
        let first = try await env.provider.next()
        let second = try await env.provider.next()
        #expect(
            Set([first, second].compactMap { $0.sentRequest?.url?.lastPathComponent }) == [
                "limit-0.jpg", "limit-1.jpg",
            ])
        #expect(first.priorities.first == .low && second.priorities.first == .low)
        #expect(env.provider.count == 2)

        // One ends: the next one in order starts.
        first.serve(try DownloaderTestEnvironment.jpeg(width: 180, height: 120, seed: 1))
        let third = try await env.provider.next()
        #expect(third.sentRequest?.url?.lastPathComponent == "limit-2.jpg")
        #expect(await eventually { prefetcher.runningCount == 2 && prefetcher.waitingCount == 2 })
        // The prefetched image is in the rendered cache at its target.
        #expect(
            await env.isSynchronousHit(requests[first.sentRequest?.url?.lastPathComponent == "limit-0.jpg" ? 0 : 1]))

        prefetcher.stopPrefetching(with: [requests[4]])
        #expect(prefetcher.waitingCount == 1)
        prefetcher.stopPrefetching()
        #expect(prefetcher.runningCount == 0 && prefetcher.waitingCount == 0)
        #expect(await second.waitUntilCancelled())
        #expect(await third.waitUntilCancelled())
        #expect(env.provider.count == 3)
    }

    @Test("a real fetch of the image joins the prefetch's download, which then runs at the real fetch's priority")
    func realFetchJoins() async throws {
        let env = try SteppedPipelineEnvironment()
        defer { env.tearDown() }
        let prefetcher = ImagePrefetcher(pipeline: env.pipeline, maxConcurrentPrefetchCount: 1)
        let completed = Locked(0)
        prefetcher.didComplete = { completed.withLock { $0 += 1 } }
        prefetcher.startPrefetching(with: [request("join.jpg")])
        let download = try await env.provider.next()
        #expect(download.priorities == [.low])
        let real = env.pipeline.operation(with: request("join.jpg")) { _, _ in }
        real.priority = .high
        env.pipeline.fetchImage(with: real)
        #expect(await eventually { download.priorities.last == .high })
        download.serve(try DownloaderTestEnvironment.jpeg(width: 180, height: 120, seed: 2))
        #expect(await eventually { real.isFinished && completed.withLock { $0 } == 1 })
        #expect(real.finalResult?.imageSource == .network)
        #expect(env.provider.count == 1)
        #expect(prefetcher.runningCount == 0)
    }

    @Test("destination diskCache: the bytes reach the disk only, nothing decoded")
    func diskOnly() async throws {
        let env = try SteppedPipelineEnvironment()
        defer { env.tearDown() }
        let metrics = TestMetrics()
        env.configuration.metricsFactory = metrics
        let prefetcher = ImagePrefetcher(pipeline: env.pipeline, destination: .diskCache)
        prefetcher.startPrefetching(with: [SteppedPipelineEnvironment.url("disk.jpg")])
        try await env.provider.next().serve(DownloaderTestEnvironment.jpeg(width: 180, height: 120, seed: 3))
        #expect(await eventually { prefetcher.runningCount == 0 })
        let identifier = SteppedPipelineEnvironment.url("disk.jpg").absoluteString
        #expect(env.diskEntry(identifier)?.complete != nil)
        #expect(env.pipeline.memoryCache.entry(withIdentifier: identifier, touch: false) == nil)
        #expect((try? metrics.expectTimer("tip_decode_duration_seconds", [("type", ImageType.jpeg.rawValue)])) == nil)
        // Already on disk: a second prefetch sends no request.
        prefetcher.startPrefetching(with: [SteppedPipelineEnvironment.url("disk.jpg")])
        #expect(await eventually { prefetcher.runningCount == 0 && prefetcher.waitingCount == 0 })
        #expect(env.provider.count == 1)
    }

    @Test("an ImageFetchHelper prefetches what its target would show, at the target's pixel size")
    func helperHook() async throws {
        let env = try SteppedPipelineEnvironment()
        defer { env.tearDown() }
        let prefetcher = ImagePrefetcher(pipeline: env.pipeline)
        let source = PrefetchSource(url: SteppedPipelineEnvironment.url("row-7.jpg"), pipeline: env.pipeline)
        let target = PrefetchTarget()
        let started = env.configuration.callbackQueue.sync {
            let helper = ImageFetchHelper(delegate: nil, dataSource: source, configuration: env.configuration)
            helper.target = target  // not visible: nothing is fetched
            defer { withExtendedLifetime(helper) {} }
            return (helper.prefetch(with: prefetcher), helper.isLoading)
        }
        #expect(started == (true, false))
        try await env.provider.next().serve(DownloaderTestEnvironment.jpeg(width: 300, height: 200, seed: 4))
        #expect(await eventually { prefetcher.runningCount == 0 })
        let shown = GenericImageFetchRequest(
            imageURL: SteppedPipelineEnvironment.url("row-7.jpg"), identifier: nil,
            targetDimensions: target.pixelSize, targetContentMode: target.contentMode)
        #expect(await env.isSynchronousHit(shown))

        // No pipeline from the data source (or another one than the prefetcher's): nothing to prefetch.
        let other = ImagePrefetcher(pipeline: env.pipeline)
        source.pipelineOverride = nil
        let refused = env.configuration.callbackQueue.sync {
            ImageFetchHelper(delegate: nil, dataSource: source, configuration: env.configuration).prefetch(with: other)
        }
        #expect(!refused)
    }
}

private final class PrefetchSource: ImageFetchHelperDataSource, @unchecked Sendable {
    // Used on the callback queue only.
    let url: URL
    var pipelineOverride: ImagePipeline?
    init(url: URL, pipeline: ImagePipeline) {
        self.url = url
        self.pipelineOverride = pipeline
    }
    func imageURL(for helper: ImageFetchHelper) -> URL? { url }
    func imagePipeline(for helper: ImageFetchHelper) -> ImagePipeline? { pipelineOverride }
}

private final class PrefetchTarget: ImageFetchable, @unchecked Sendable {
    // Used on the callback queue only.
    var fetchedImageContainer: ImageContainer?
    var pixelSize = CGSize(width: 120, height: 80)
    var contentMode = ContentMode.scaleAspectFill
    var isVisible = false
}
