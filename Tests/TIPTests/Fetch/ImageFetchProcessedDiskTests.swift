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

    @Test(
        "a warm start with a fresh pipeline on the same root returns the processed image without decoding the original")
    func warmStart() async throws {
        let (configuration, root) = try makeTestConfiguration()
        defer { try? FileManager.default.removeItem(at: root) }
        let provider = SteppedDownloadProvider()
        configuration.imageFetchDownloadProvider = provider
        let request = Self.request()
        let processedIdentifier = try #require(
            ImageFetchProcessing(request: request).processedIdentifier(of: Self.url.absoluteString))
        let made: ImageFetchResult
        do {
            let cold = try #require(ImagePipeline(identifier: "processed-disk", configuration: configuration))
            let outcome = Locked<ImageFetchResult?>(nil)
            let operation = cold.operation(with: request) { result, _ in outcome.withLock { $0 = result } }
            cold.fetchImage(with: operation)
            try await provider.next().serve(DownloaderTestEnvironment.jpeg(width: 640, height: 480, seed: 31))
            #expect(await eventually { operation.isFinished })
            made = try #require(outcome.withLock { $0 })
            // Stored in the background, under its own identifier; the original's entry stays.
            #expect(await eventually { cold.diskCache.entry(withIdentifier: processedIdentifier)?.complete != nil })
            #expect(cold.diskCache.entry(withIdentifier: Self.url.absoluteString)?.complete != nil)
        }

        // A new process, in effect: a new configuration on the same caches root, counting decodes by type.
        let warmConfiguration = GlobalConfiguration(cachesRootDirectory: root)
        warmConfiguration.callbackQueue = DispatchQueue(label: "tip-tests.warm-callbacks")
        let warmProvider = SteppedDownloadProvider()
        warmConfiguration.imageFetchDownloadProvider = warmProvider
        let metrics = TestMetrics()
        warmConfiguration.metricsFactory = metrics
        let warm = try #require(ImagePipeline(identifier: "processed-disk", configuration: warmConfiguration))
        let warmOutcome = Locked<(ImageFetchResult?, (any Error)?)>((nil, nil))
        let second = warm.operation(with: request) { result, error in warmOutcome.withLock { $0 = (result, error) } }
        warm.fetchImage(with: second)
        #expect(await eventually { second.isFinished })
        let result = try #require(warmOutcome.withLock { $0.0 })
        #expect(result.imageSource == .diskCache)
        #expect(result.imageWasProcessed)
        #expect(result.imageContainer.processorIdentifiers == made.imageContainer.processorIdentifiers)
        #expect(result.imageContainer.dimensions == CGSize(width: 96, height: 96))
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
}
