import Foundation
import Testing

@testable import TIP

@Suite("Fetch: processors")
struct ImageFetchProcessorsTests {
    private static let target = CGSize(width: 100, height: 100)

    private func request(
        _ name: String, processors: [any ImageProcessor], transformer: (any ImageFetchTransformer)? = nil
    )
        -> GenericImageFetchRequest
    {
        var request = GenericImageFetchRequest(
            imageURL: SteppedPipelineEnvironment.url(name), identifier: nil,
            targetDimensions: Self.target, targetContentMode: .scaleAspectFill)
        request.processors = processors
        request.transformer = transformer
        return request
    }

    @Test(
        "processors run in order after decoding at the target; the result is rendered-cached under their identity only")
    func processedAndCached() async throws {
        let env = try SteppedPipelineEnvironment()
        defer { env.tearDown() }
        let jpeg = try DownloaderTestEnvironment.jpeg(width: 320, height: 240, seed: 3)
        let counter = CountingProcessor()
        let processed = request("p.jpg", processors: [.cropToFill(), counter])
        let first = try await env.fetch(processed, serving: jpeg)
        let result = try #require(first.result)
        #expect(result.imageContainer.dimensions == Self.target)  // 133x100 decoded, cropped to 100x100
        #expect(result.imageWasProcessed)
        #expect(result.imageContainer.processorIdentifiers == ["tip.crop(target,centre)", "test.count"])
        #expect(result.imageContainer.image.pixel(x: 0, y: 0) == SIMD4(255, 0, 0, 255))
        #expect(counter.finalCalls == 1)

        // The same request again: the rendered cache answers it synchronously, nothing is processed again.
        #expect(await env.isSynchronousHit(processed))
        #expect(counter.finalCalls == 1)
        // Without processors, the processed image is not handed out: the plain image is decoded from memory.
        let plain = await env.fetchCached(request("p.jpg", processors: []))
        #expect(plain.result?.imageContainer.dimensions == CGSize(width: 133, height: 100))
        #expect(plain.result?.imageWasProcessed == false)
        // Other processors, other identity.
        let other = CountingProcessor(identifier: "test.other")
        #expect(await env.isSynchronousHit(request("p.jpg", processors: [.cropToFill(), other])) == false)
    }

    @Test("a plain rendered image never answers a processed request, synchronously or not")
    func plainNeverServedAsProcessed() async throws {
        let env = try SteppedPipelineEnvironment()
        defer { env.tearDown() }
        let jpeg = try DownloaderTestEnvironment.jpeg(width: 320, height: 240, seed: 4)
        _ = try await env.fetch(request("q.jpg", processors: []), serving: jpeg)
        #expect(await env.isSynchronousHit(request("q.jpg", processors: [])))
        let counter = CountingProcessor()
        let processed = request("q.jpg", processors: [counter])
        #expect(await env.isSynchronousHit(processed) == false)
        let outcome = await env.fetchCached(processed)
        #expect(outcome.result?.imageWasProcessed == true)
        #expect(outcome.result?.imageSource == .memoryCache)
        #expect(counter.finalCalls >= 1)
    }

    @Test("the transformer is the first processor: transformer, then TIP's scaling, then the processors")
    func transformerIsTheFirstProcessor() async throws {
        let env = try SteppedPipelineEnvironment()
        defer { env.tearDown() }
        let jpeg = try DownloaderTestEnvironment.jpeg(width: 320, height: 240, seed: 5)
        let green = GreenTransformer(transformerIdentifier: "green")
        let counter = CountingProcessor()
        let both = request("t.jpg", processors: [counter], transformer: green)
        let result = try #require(try await env.fetch(both, serving: jpeg).result)
        #expect(green.calls.withLock { $0 } == 1)
        #expect(counter.sawTransformed.withLock { $0 } == [true])
        #expect(result.imageWasTransformed && result.imageWasProcessed)
        #expect(result.imageContainer.dimensions == CGSize(width: 133, height: 100))
        #expect(await env.isSynchronousHit(both))
        // The transformer alone is another variant: not the processed image.
        #expect(await env.isSynchronousHit(request("t.jpg", processors: [], transformer: green)) == false)

        let step = ImageFetchTransformerProcessor(green)
        #expect(step.identifier == "tip.transformer(green)" && step.isCacheable)
        #expect(
            ImageFetchTransformerProcessor(GreenTransformer(transformerIdentifier: nil)).identifier == "tip.transformer"
        )
        #expect(throws: ImageProcessingError.self) {
            try step.process(
                TestImages.solid(width: 4, height: 4, SIMD4(1, 2, 3, 255)), context: ImageProcessingContext())
        }
    }

    @Test("a transformer without an identifier keeps processed results out of the rendered cache")
    func uncacheableTransformer() async throws {
        let env = try SteppedPipelineEnvironment()
        defer { env.tearDown() }
        let jpeg = try DownloaderTestEnvironment.jpeg(width: 320, height: 240, seed: 6)
        let counter = CountingProcessor()
        let request = request("u.jpg", processors: [counter], transformer: GreenTransformer(transformerIdentifier: nil))
        _ = try await env.fetch(request, serving: jpeg)
        #expect(await env.isSynchronousHit(request) == false)
        let before = counter.finalCalls
        _ = await env.fetchCached(request)  // decoded from memory and processed again
        #expect(counter.finalCalls == before + 1)
    }

    @Test("animations are processed frame by frame")
    func animationFrames() async throws {
        let env = try SteppedPipelineEnvironment()
        defer { env.tearDown() }
        let frames = (0..<4).map {
            TestImages.photo(width: 80, height: 60, format: .rgba8Premultiplied, seed: UInt64($0 + 1))
        }
        let animation = try #require(
            ImageContainer(animatedFrames: frames, frameDurations: Array(repeating: 0.1, count: 4), loopCount: 0))
        let gif = try CodecCatalogue.shared.encodeImage(animation, type: .gif, quality: 1)
        let counter = CountingProcessor()
        var request = GenericImageFetchRequest(imageURL: SteppedPipelineEnvironment.url("a.gif"))
        request.processors = [counter]
        let result = try #require(try await env.fetch(request, serving: gif).result)
        #expect(result.imageContainer.frameCount == 4)
        #expect(counter.finalCalls == 4)
        #expect(result.imageContainer.frames.allSatisfy { $0.pixel(x: 0, y: 0) == SIMD4(255, 0, 0, 255) })
    }

    @Test(
        "a processor failing on the final image fails the fetch with couldNotProcessImage, and caches nothing processed"
    )
    func failure() async throws {
        let env = try SteppedPipelineEnvironment()
        defer { env.tearDown() }
        let jpeg = try DownloaderTestEnvironment.jpeg(width: 320, height: 240, seed: 7)
        let failing = CountingProcessor(identifier: "test.fail") { _ in true }
        let outcome = try await env.fetch(request("f.jpg", processors: [failing]), serving: jpeg)
        #expect(outcome.result == nil)
        let error = try #require(outcome.error as? ImageFetchError)
        #expect(error.code == .couldNotProcessImage)
        #expect((error.underlyingError as? ImageProcessingError)?.processor == "test.fail")
        #expect(await env.isSynchronousHit(request("f.jpg", processors: [failing])) == false)
        // The original is cached: a fetch without the processor is served from memory.
        #expect(await env.fetchCached(request("f.jpg", processors: [])).result?.imageSource == .memoryCache)
    }

    @Test(
        "with processors, progressive scans are processed too (stage progressiveScan); a scan they fail on is not shown"
    )
    func progressiveScans() async throws {
        let env = try SteppedPipelineEnvironment()
        defer { env.tearDown() }
        let jpeg = try DownloaderTestEnvironment.jpeg(width: 1200, height: 900, progressive: true)
        for failsOnScans in [false, true] {
            let counter = CountingProcessor { stage in failsOnScans && stage != .final }
            var request = GenericImageFetchRequest(
                imageURL: SteppedPipelineEnvironment.url("scan-\(failsOnScans).jpg"), identifier: nil,
                targetDimensions: CGSize(width: 300, height: 300), targetContentMode: .scaleAspectFill)
            request.processors = [.cropToFill(), counter]
            request.progressiveLoadingPolicies = [.jpeg: GreedyProgressiveLoadingPolicy()]
            let delegate = ProcessedScanDelegate()
            let operation = env.pipeline.operation(with: request, delegate: delegate)
            env.pipeline.fetchImage(with: operation)
            let download = try await env.provider.next()
            download.respond(
                status: 200,
                headers: SteppedPipelineEnvironment.resumableHeaders(length: jpeg.count, entityTag: "\"s\""))
            download.send(jpeg.prefix(jpeg.count / 2), chunkSize: 8 * 1024)
            // Half the bytes are in: scans were rendered (and processed) by now.
            #expect(await eventually { counter.calls.withLock { $0 }.contains { $0 != .final } })
            download.send(jpeg.suffix(from: jpeg.count / 2), chunkSize: 8 * 1024)
            download.finish()
            #expect(await eventually { operation.isFinished })
            #expect(operation.finalResult?.imageWasProcessed == true)
            let scans = delegate.scans.withLock { $0 }
            if failsOnScans {
                #expect(scans.isEmpty)
            } else {
                #expect(!scans.isEmpty)
                #expect(
                    scans.allSatisfy {
                        $0.imageWasProcessed && $0.imageContainer.dimensions == CGSize(width: 300, height: 300)
                    })
            }
        }
    }

    @Test("previews are processed like the final image")
    func processedPreview() async throws {
        let env = try SteppedPipelineEnvironment()
        defer { env.tearDown() }
        let thumbnail = try DownloaderTestEnvironment.jpeg(width: 160, height: 120, seed: 8)
        var store = GenericImageStoreRequest(imageURL: SteppedPipelineEnvironment.url("thumb.jpg"))
        store.imageIdentifier = "shared-id"
        store.imageData = thumbnail
        await withCheckedContinuation { continuation in
            env.pipeline.storeImage(with: store) { _, _ in continuation.resume() }
        }
        let counter = CountingProcessor()
        var request = GenericImageFetchRequest(
            imageURL: SteppedPipelineEnvironment.url("full.jpg"), identifier: "shared-id",
            targetDimensions: Self.target, targetContentMode: .scaleAspectFill)
        request.processors = [.cropToFill(), counter]
        let delegate = RecordingFetchDelegate(previewAnswer: .stopLoading)
        let operation = env.pipeline.operation(with: request, delegate: delegate)
        env.pipeline.fetchImage(with: operation)
        #expect(await eventually { operation.isFinished })
        let preview = try #require(operation.previewResult)
        #expect(preview.imageWasProcessed)
        #expect(preview.imageContainer.dimensions == Self.target)
        #expect(counter.calls.withLock { $0 } == [.preview])
    }
}

/// Records progressive scans (opting in).
private final class ProcessedScanDelegate: ImageFetchDelegate {
    let scans = Locked<[ImageFetchResult]>([])
    var handlesProgressiveLoading: Bool { true }
    func imageFetchOperation(
        _ operation: ImageFetchOperation, shouldLoadProgressivelyWithIdentifier identifier: String,
        url: URL, imageType: ImageType, originalDimensions: CGSize
    ) -> Bool { true }
    func imageFetchOperation(
        _ operation: ImageFetchOperation, didUpdateProgressiveImage result: ImageFetchResult, progress: Float
    ) {
        scans.withLock { $0.append(result) }
    }
}
