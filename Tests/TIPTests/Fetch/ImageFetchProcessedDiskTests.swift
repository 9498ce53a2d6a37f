import CoreMetrics
import Foundation
import MetricsTestKit
import Testing

@testable import TIP

@Suite("Fetch: processed images stored on disk")
struct ImageFetchProcessedDiskTests {
    private static let url = SteppedPipelineEnvironment.url("avatar.jpg")

    private static func request() -> GenericImageFetchRequest {
        var request = GenericImageFetchRequest(
            imageURL: url, identifier: nil, targetDimensions: CGSize(width: 96, height: 96),
            targetContentMode: .scaleAspectFill)
        request.processors = [.cropToFill(), .circle()]
        request.options = [.storeProcessedImageToDiskCache]
        return request
    }

    private static func decodes(_ metrics: TestMetrics, _ type: ImageType) -> Int {
        (try? metrics.expectTimer("tip_decode_duration_seconds", [("type", type.rawValue)]).values.count) ?? 0
    }

    /// Fetches `request` through a new pipeline `name` on `configuration` (its provider serving a 640x480 JPEG) and
    /// waits until the stored image `storedIdentifier` is on disk next to the original's entry.
    private static func coldFetch(
        _ request: GenericImageFetchRequest, configuration: GlobalConfiguration, name: String, seed: UInt64,
        storedIdentifier: String
    ) async throws -> (result: ImageFetchResult, stored: DiskCacheMetadata?) {
        let provider = SteppedDownloadProvider()
        configuration.imageFetchDownloadProvider = provider
        let cold = try #require(ImagePipeline(identifier: name, configuration: configuration))
        let outcome = Locked<ImageFetchResult?>(nil)
        let operation = cold.operation(with: request) { result, _ in outcome.withLock { $0 = result } }
        cold.fetchImage(with: operation)
        try await provider.next().serve(DownloaderTestEnvironment.jpeg(width: 640, height: 480, seed: seed))
        #expect(await eventually { operation.isFinished })
        let made = try #require(outcome.withLock { $0 })
        // Stored in the background, under its own identifier; the original's entry stays.
        #expect(await eventually { cold.diskCache.entry(withIdentifier: storedIdentifier)?.complete != nil })
        #expect(cold.diskCache.entry(withIdentifier: url.absoluteString)?.complete != nil)
        return (made, cold.diskCache.entry(withIdentifier: storedIdentifier)?.complete?.metadata)
    }

    /// A new process, in effect: pipeline `name` of a new configuration on `root`, whose provider serves nothing.
    private static func warmPipeline(root: URL, name: String, metrics: TestMetrics? = nil) throws
        -> (pipeline: ImagePipeline, provider: SteppedDownloadProvider)
    {
        let configuration = GlobalConfiguration(cachesRootDirectory: root)
        configuration.callbackQueue = DispatchQueue(label: "tip-tests.warm-callbacks")
        let provider = SteppedDownloadProvider()
        configuration.imageFetchDownloadProvider = provider
        if let metrics { configuration.metricsFactory = metrics }
        return (try #require(ImagePipeline(identifier: name, configuration: configuration)), provider)
    }

    /// `request`'s result through `pipeline`, once finished.
    private static func fetch(_ request: GenericImageFetchRequest, through pipeline: ImagePipeline) async throws
        -> ImageFetchResult
    {
        let outcome = Locked<ImageFetchResult?>(nil)
        let operation = pipeline.operation(with: request) { result, _ in outcome.withLock { $0 = result } }
        pipeline.fetchImage(with: operation)
        #expect(await eventually { operation.isFinished })
        return try #require(outcome.withLock { $0 })
    }

    @Test(
        "a warm start with a fresh pipeline on the same root returns the processed image without decoding the original")
    func warmStart() async throws {
        let (configuration, root) = try makeTestConfiguration()
        defer { try? FileManager.default.removeItem(at: root) }
        let request = Self.request()
        let processedIdentifier = try #require(
            ImageFetchProcessing(request: request).processedIdentifier(of: Self.url.absoluteString))
        let made = try await Self.coldFetch(
            request, configuration: configuration, name: "processed-disk", seed: 31,
            storedIdentifier: processedIdentifier
        ).result

        // Counting decodes by type.
        let metrics = TestMetrics()
        let (warm, warmProvider) = try Self.warmPipeline(root: root, name: "processed-disk", metrics: metrics)
        let result = try await Self.fetch(request, through: warm)
        #expect(result.imageSource == .diskCache)
        #expect(result.imageWasProcessed)
        #expect(result.imageContainer.processorIdentifiers == made.imageContainer.processorIdentifiers)
        #expect(result.imageContainer.dimensions == CGSize(width: 96, height: 96))
        #expect(result.imageOriginalDimensions == CGSize(width: 640, height: 480))  // as the cold fetch reported
        #expect(made.imageOriginalDimensions == CGSize(width: 640, height: 480))
        #expect(result.imageContainer.image.pixel(x: 0, y: 0).w == 0)  // the circle's corner, kept by PNG
        #expect(Self.decodes(metrics, .jpeg) == 0)  // the original was never decoded
        #expect(Self.decodes(metrics, .png) == 1)  // the stored thumbnail was
        #expect(warmProvider.count == 0)

        // Without processors the original is still there; clearing the identifier removes the processed image too.
        var plain = GenericImageFetchRequest(imageURL: Self.url)
        plain.loadingSources = .cachesOnly
        let original = warm.operation(with: plain) { _, _ in }
        warm.fetchImage(with: original)
        #expect(await eventually { original.isFinished })
        #expect(original.finalResult?.imageContainer.dimensions == CGSize(width: 640, height: 480))
        warm.clearImage(withIdentifier: Self.url.absoluteString)
        #expect(await eventually { warm.diskCache.entry(withIdentifier: processedIdentifier) == nil })
    }

    @Test(
        "without processors the scaled image is stored; a warm start serves it with the original's dimensions")
    func scaledThumbnail() async throws {
        let (configuration, root) = try makeTestConfiguration()
        defer { try? FileManager.default.removeItem(at: root) }
        var request = GenericImageFetchRequest(
            imageURL: Self.url, identifier: nil, targetDimensions: CGSize(width: 96, height: 96),
            targetContentMode: .scaleAspectFit)
        request.options = [.storeProcessedImageToDiskCache]
        let identifier = Self.url.absoluteString
        let thumbnailIdentifier = try #require(
            ImageFetchProcessing(request: request).processedIdentifier(of: identifier))
        #expect(thumbnailIdentifier.hasPrefix(ImageFetchProcessing.processedIdentifierPrefix(of: identifier)))
        let (made, stored) = try await Self.coldFetch(
            request, configuration: configuration, name: "scaled-disk", seed: 33, storedIdentifier: thumbnailIdentifier)
        #expect(made.imageContainer.dimensions == CGSize(width: 96, height: 72))
        #expect(!made.imageWasProcessed)
        #expect(stored?.width == 96 && stored?.height == 72)
        #expect(stored?.originalDimensions?.width == 640 && stored?.originalDimensions?.height == 480)
        #expect(stored?.imageType == ImageType.jpeg.rawValue)

        let (warm, warmProvider) = try Self.warmPipeline(root: root, name: "scaled-disk")
        // Only the thumbnail is left: were it not used, the fetch would have to download the original.
        warm.diskCache.clearImage(withIdentifier: identifier)
        #expect(warm.diskCache.entry(withIdentifier: identifier) == nil)
        let result = try await Self.fetch(request, through: warm)
        #expect(result.imageSource == .diskCache)
        #expect(warmProvider.count == 0)
        #expect(result.imageContainer.dimensions == CGSize(width: 96, height: 72))
        #expect(result.imageOriginalDimensions == CGSize(width: 640, height: 480))
        #expect(!result.imageWasProcessed)
        // The same picture, through one JPEG encode at TIP's store quality.
        if result.imageContainer.dimensions == made.imageContainer.dimensions {
            #expect(ImageComparison.psnr(result.imageContainer.image, made.imageContainer.image) > 30)
        }
    }

    @Test("what is stored: a processed image, or one scaled below its original; nothing without a target")
    func storedImages() throws {
        let url = Self.url.absoluteString
        let thumbnail = ImageContainer(image: TestImages.solid(width: 96, height: 72, SIMD4(10, 20, 30, 255)))
        var plain = GenericImageFetchRequest(
            imageURL: Self.url, identifier: nil, targetDimensions: CGSize(width: 96, height: 96),
            targetContentMode: .scaleAspectFit)
        let scaling = ImageFetchProcessing(request: plain)
        #expect(scaling.storesFinalImage(thumbnail, originalDimensions: CGSize(width: 640, height: 480)))
        #expect(!scaling.storesFinalImage(thumbnail, originalDimensions: CGSize(width: 96, height: 72)))
        // A scaled animation is not re-encoded: the original stays the only copy on disk.
        let frame = TestImages.solid(width: 96, height: 72, SIMD4(10, 20, 30, 255))
        let animation = try #require(
            ImageContainer(animatedFrames: [frame, frame], frameDurations: [0.1, 0.1], loopCount: 0))
        #expect(!scaling.storesFinalImage(animation, originalDimensions: CGSize(width: 640, height: 480)))
        // Another target or content mode is another stored image.
        var other = plain
        other.targetContentMode = .scaleAspectFill
        #expect(
            scaling.processedIdentifier(of: url) != ImageFetchProcessing(request: other).processedIdentifier(of: url))
        other = plain
        other.targetDimensions = CGSize(width: 97, height: 96)
        #expect(
            scaling.processedIdentifier(of: url) != ImageFetchProcessing(request: other).processedIdentifier(of: url))
        // With processors, only a processed image counts, whatever its size.
        #expect(
            !ImageFetchProcessing(request: Self.request()).storesFinalImage(
                thumbnail, originalDimensions: CGSize(width: 640, height: 480)))
        #expect(
            scaling.processedIdentifier(of: url)
                != ImageFetchProcessing(request: Self.request()).processedIdentifier(of: url))
        plain.targetDimensions = .zero
        #expect(ImageFetchProcessing(request: plain).processedIdentifier(of: url) == nil)
    }

    @Test("a stored image is used while its original is fresh; one already stale is not written")
    func freshness() throws {
        let clock = TestClock()
        let env = try SteppedPipelineEnvironment(clock: clock)
        defer { env.tearDown() }
        let caches = env.pipeline.caches
        let thumbnail = ImageContainer(image: TestImages.solid(width: 96, height: 72, SIMD4(10, 20, 30, 255)))
        func lookup(_ identifier: String) -> ImagePipelineCaches.CachedImage? {
            caches.processedImage(
                identifier: identifier, url: Self.url, processorIdentifiers: [], maximumPixelCount: 1 << 24)
        }
        caches.storeProcessedImage(
            thumbnail, identifier: "fresh", url: Self.url, timeToLive: 3_600, updatesExpiryOnAccess: true,
            originalDimensions: CGSize(width: 640, height: 480), freshUntil: clock.date.addingTimeInterval(60))
        #expect(lookup("fresh")?.originalDimensions == CGSize(width: 640, height: 480))
        clock.advance(61)
        #expect(lookup("fresh") == nil)  // stale: the fetch goes to the original, which is revalidated
        caches.storeProcessedImage(
            thumbnail, identifier: "stale", url: Self.url, timeToLive: 3_600, updatesExpiryOnAccess: true,
            freshUntil: clock.date)
        #expect(env.diskEntry("stale") == nil)
        caches.storeProcessedImage(
            thumbnail, identifier: "unlimited", url: Self.url, timeToLive: 3_600, updatesExpiryOnAccess: true)
        #expect(lookup("unlimited")?.originalDimensions == CGSize(width: 96, height: 72))

        // Fetches encode on their own thread and write on the disk cache's commit queue (one writer per directory).
        let writes = DispatchQueue(label: "tip-tests.processed-writes")
        writes.suspend()
        caches.storeProcessedImage(
            thumbnail, identifier: "queued", url: Self.url, timeToLive: 3_600, updatesExpiryOnAccess: true,
            writeQueue: writes)
        #expect(env.diskEntry("queued") == nil)
        writes.resume()
        writes.sync {}
        #expect(lookup("queued") != nil)
    }

    @Test("without the option nothing processed is written; with another URL the stored image is not used")
    func optionAndURL() async throws {
        let env = try SteppedPipelineEnvironment()
        defer { env.tearDown() }
        var request = Self.request()
        request.options = []
        let processing = ImageFetchProcessing(request: request)
        let processedIdentifier = try #require(processing.processedIdentifier(of: Self.url.absoluteString))
        _ = try await env.fetch(request, serving: DownloaderTestEnvironment.jpeg(width: 320, height: 240, seed: 32))
        #expect(env.diskEntry(Self.url.absoluteString)?.complete != nil)
        #expect(env.diskEntry(processedIdentifier) == nil)

        // A processed image stored for another URL under this identifier is not handed out.
        env.pipeline.caches.storeProcessedImage(
            ImageContainer(image: TestImages.solid(width: 96, height: 96, SIMD4(0, 0, 255, 255))),
            identifier: processedIdentifier, url: SteppedPipelineEnvironment.url("old.jpg"),
            timeToLive: 60, updatesExpiryOnAccess: true)
        env.pipeline.clearMemoryCaches()
        var stored = Self.request()
        stored.loadingSources = [.diskCache]
        let outcome = await env.fetchCached(stored)
        let result = try #require(outcome.result)
        #expect(result.imageContainer.image.pixel(x: 48, y: 48) != SIMD4(0, 0, 255, 255))
        #expect(result.imageWasProcessed)
    }

    @Test("a fetch asking to store its processed image stores it when another fetch made the image")
    func storedWhenAnotherFetchMadeIt() async throws {
        let env = try SteppedPipelineEnvironment()
        defer { env.tearDown() }
        var plain = Self.request()
        plain.options = []
        let processedIdentifier = try #require(
            ImageFetchProcessing(request: plain).processedIdentifier(of: Self.url.absoluteString))
        let jpeg = try DownloaderTestEnvironment.jpeg(width: 320, height: 240, seed: 33)

        // Joined: the fetch without the option makes the image, the one with it waits for it.
        let made = Locked<Int>(0)
        let first = env.pipeline.operation(with: plain) { result, _ in if result != nil { made.withLock { $0 += 1 } } }
        let second = env.pipeline.operation(with: Self.request()) { result, _ in
            if result != nil { made.withLock { $0 += 1 } }
        }
        env.pipeline.fetchImage(with: first)
        env.pipeline.fetchImage(with: second)
        try await env.provider.next().serve(jpeg)
        #expect(await eventually { first.isFinished && second.isFinished })
        #expect(made.withLock { $0 } == 2)
        #expect(await eventually { env.diskEntry(processedIdentifier)?.complete != nil }, "stored by the joiner")

        // The rendered cache holds it: a later fetch asking to store it (the stored file gone) still gets it
        // stored, made again from the original's bytes.
        env.pipeline.diskCache.clearImage(withIdentifier: processedIdentifier)
        #expect(env.diskEntry(processedIdentifier) == nil)
        let again = await env.fetchCached(Self.request())
        #expect(again.result?.imageWasProcessed == true)
        #expect(await eventually { env.diskEntry(processedIdentifier)?.complete != nil }, "stored after a memory hit")
        // Once stored, the rendered cache answers again.
        let hit = await env.fetchCached(Self.request())
        #expect(hit.result?.imageSource == .memoryCache)
    }
}
