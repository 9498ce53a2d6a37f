import Foundation
import TIPImageServer
import Testing

@testable import TIP

@Suite("Fetch operation: sources")
struct ImageFetchOperationTests {
    func run(
        _ env: DownloaderTestEnvironment, _ request: any ImageFetchRequest,
        delegate: RecordingFetchDelegate = RecordingFetchDelegate()
    ) async -> (ImageFetchOperation, RecordingFetchDelegate) {
        let operation = env.pipeline.operation(with: request, delegate: delegate)
        env.pipeline.fetchImage(with: operation)
        _ = await eventually { operation.isFinished }
        return (operation, delegate)
    }

    @Test("network, then memory, then disk: right sources, target-sized images, metrics")
    func sourceOrder() async throws {
        let env = try await DownloaderTestEnvironment()
        let image = try DownloaderTestEnvironment.jpeg(width: 800, height: 600)
        env.server.setImage(image, at: "/photo.jpg")
        let request = GenericImageFetchRequest(
            imageURL: env.server.url(for: "/photo.jpg"), identifier: nil,
            targetDimensions: CGSize(width: 200, height: 200), targetContentMode: .scaleAspectFit)

        let (first, firstDelegate) = await run(env, request)
        #expect(first.state == .succeeded)
        let result = try #require(firstDelegate.final.withLock { $0 })
        #expect(result.imageSource == .network)
        #expect(result.imageContainer.dimensions == CGSize(width: 200, height: 150))
        #expect(result.imageOriginalDimensions == CGSize(width: 800, height: 600))
        #expect(firstDelegate.events.withLock { $0 }.first == .start)
        #expect(firstDelegate.events.withLock { $0 }.contains(.attempt(.network)))
        #expect(first.metrics?.metricInfo(for: .network)?.result == .hitFinal)
        #expect(first.metrics?.metricInfo(for: .memoryCache)?.result == .miss)
        #expect(first.metrics?.metricInfo(for: .network)?.networkImageSizeInBytes == image.count)

        let (second, secondDelegate) = await run(env, request)
        #expect(second.finalResult?.imageSource == .memoryCache)
        #expect(!secondDelegate.events.withLock { $0 }.contains(.attempt(.network)))

        // With only the encoded-data cache cleared, the rendered cache answers, off the callback queue too (a memory
        // hit); with both cleared, the disk does.
        env.pipeline.memoryCache.clearAll()
        let (rendered, _) = await run(env, request)
        #expect(rendered.finalResult?.imageSource == .memoryCache)
        #expect(rendered.finalResult?.imageContainer.dimensions == CGSize(width: 200, height: 150))
        env.pipeline.clearMemoryCaches()
        let (third, _) = await run(env, request)
        #expect(third.finalResult?.imageSource == .diskCache)
        #expect(third.finalResult?.imageContainer.dimensions == CGSize(width: 200, height: 150))
        #expect(env.server.requestCount(for: "/photo.jpg") == 1)
        await env.tearDown()
    }

    @Test("an operation cancelled before it starts still starts, fails with Cancelled, and never reports didStart")
    func cancelledBeforeStart() async throws {
        let env = try await DownloaderTestEnvironment()
        let request = GenericImageFetchRequest(imageURL: env.server.url(for: "/never.jpg"))
        let delegate = RecordingFetchDelegate()
        let operation = env.pipeline.operation(with: request, delegate: delegate)
        operation.cancel()
        env.pipeline.fetchImage(with: operation)
        #expect(await eventually { operation.isFinished })
        #expect(operation.state == .cancelled)
        #expect(delegate.events.withLock { $0 } == [.failure(-1)])
        #expect(env.server.requestCount(for: "/never.jpg") == 0)
        await env.tearDown()
    }

    @Test("cancelling while downloading fails with Cancelled, cancels the download and leaves the resumable partial")
    func cancelWhileDownloading() async throws {
        let env = try SteppedPipelineEnvironment()
        defer { env.tearDown() }
        let image = try DownloaderTestEnvironment.jpeg(width: 1000, height: 800)
        let request = GenericImageFetchRequest(imageURL: SteppedPipelineEnvironment.url("slow.jpg"))
        let delegate = RecordingFetchDelegate()
        let operation = env.pipeline.operation(with: request, delegate: delegate)
        env.pipeline.fetchImage(with: operation)
        // A third of the image, then nothing: only the cancellation ends it.
        let download = try await env.provider.next()
        download.respond(
            status: 200, headers: SteppedPipelineEnvironment.resumableHeaders(length: image.count, entityTag: "\"c\""))
        download.send(image.prefix(image.count / 3))
        #expect(await eventually { operation.progress > 0.3 })  // one chunk: all of the third arrived
        operation.cancel()
        #expect(await eventually { operation.isFinished })
        #expect(operation.state == .cancelled)
        #expect(await download.waitUntilCancelled())
        #expect(
            await eventually {
                env.diskEntry(request.imageURL.absoluteString)?.partial?.byteCount == Int64(image.count / 3)
            })
    }

    @Test("a delegate that goes away cancels the fetch; a discarded one lets it run headless")
    func delegateLifetime() async throws {
        let env = try SteppedPipelineEnvironment()
        defer { env.tearDown() }
        let image = try DownloaderTestEnvironment.jpeg(width: 1000, height: 800)
        var delegate: RecordingFetchDelegate? = RecordingFetchDelegate()
        let operation = env.pipeline.operation(
            with: GenericImageFetchRequest(imageURL: SteppedPipelineEnvironment.url("gone.jpg")),
            delegate: delegate)
        env.pipeline.fetchImage(with: operation)
        // The download sends half the image and then nothing: only the delegate's departure ends it.
        let download = try await env.provider.next()
        download.respond(status: 200, headers: ["Content-Length": "\(image.count)"])
        download.send(image.prefix(image.count / 2))
        #expect(await eventually { operation.progress > 0 })
        delegate = nil
        #expect(await eventually { operation.isFinished })
        #expect(operation.state == .cancelled)
        #expect(await download.waitUntilOver())

        var kept: RecordingFetchDelegate? = RecordingFetchDelegate()
        let headless = env.pipeline.operation(
            with: GenericImageFetchRequest(imageURL: SteppedPipelineEnvironment.url("headless.jpg")),
            delegate: kept)
        headless.discardDelegate()
        kept = nil
        env.pipeline.fetchImage(with: headless)
        let whole = try await env.provider.next()
        whole.respond(status: 200, headers: ["Content-Length": "\(image.count)"])
        whole.send(image)
        whole.finish()
        #expect(await eventually { headless.isFinished })
        #expect(headless.state == .succeeded)
        _ = kept
    }

    @Test("the completion block gets the image once; async/await returns it; task cancellation cancels the fetch")
    func completionAndAsync() async throws {
        let env = try SteppedPipelineEnvironment()
        defer { env.tearDown() }
        let image = try DownloaderTestEnvironment.jpeg(width: 640, height: 480)
        let request = GenericImageFetchRequest(
            imageURL: SteppedPipelineEnvironment.url("block.jpg"), identifier: nil,
            targetDimensions: CGSize(width: 64, height: 64), targetContentMode: .scaleAspectFill)
        let calls = Locked<[ImageLoadSource?]>([])
        let operation = env.pipeline.operation(with: request) { result, error in
            calls.withLock { $0.append(error == nil ? result?.imageSource : nil) }
        }
        env.pipeline.fetchImage(with: operation)
        try await env.provider.next().serve(image)
        #expect(await eventually { operation.isFinished })
        #expect(calls.withLock { $0 } == [.network])

        let result = try await env.pipeline.fetchImage(for: request)
        #expect(result.imageSource == .memoryCache)
        // aspect fill covers the target, uncropped (TIP)
        #expect(result.imageContainer.dimensions == CGSize(width: 85, height: 64))

        // A download that is never answered: only the task's cancellation ends it.
        let task = Task {
            try await env.pipeline.fetchImage(
                for: GenericImageFetchRequest(imageURL: SteppedPipelineEnvironment.url("stall.jpg")))
        }
        let download = try await env.provider.next()
        task.cancel()
        do {
            _ = try await task.value
            Issue.record("a cancelled fetch returned an image")
        } catch {
            #expect(error is CancellationError, "\(error)")
        }
        #expect(await download.waitUntilCancelled())
        #expect(env.provider.count == 2)
    }

    @Test(
        """
        on the callback queue, a clean rendered-cache match completes inside fetchImage; a dirty one is a dirty \
        preview
        """
    )
    func synchronousRenderedHit() async throws {
        let env = try await DownloaderTestEnvironment()
        let image = try DownloaderTestEnvironment.jpeg(width: 640, height: 480)
        env.server.setImage(image, at: "/sync.jpg")
        let request = GenericImageFetchRequest(
            imageURL: env.server.url(for: "/sync.jpg"), identifier: nil,
            targetDimensions: CGSize(width: 160, height: 160), targetContentMode: .scaleAspectFit)
        let (first, _) = await run(env, request)
        #expect(first.finalResult?.imageSource == .network)

        let delegate = RecordingFetchDelegate()
        let operation = env.pipeline.operation(with: request, delegate: delegate)
        env.configuration.callbackQueue.sync { env.pipeline.fetchImage(with: operation) }
        #expect(operation.isFinished)  // before fetchImage returned
        #expect(operation.finalResult?.imageSource == .memoryCache)
        #expect(operation.finalResult?.imageContainer.dimensions == CGSize(width: 160, height: 120))
        #expect(operation.metrics?.metricInfo(for: .memoryCache)?.wasLoadedSynchronously == true)
        #expect(delegate.events.withLock { $0 } == [.start, .final(.memoryCache)])

        // Off the callback queue there is no synchronous path.
        let offQueueDelegate = RecordingFetchDelegate()  // held: a delegate that goes away cancels the fetch
        let offQueue = env.pipeline.operation(with: request, delegate: offQueueDelegate)
        env.pipeline.fetchImage(with: offQueue)
        #expect(await eventually { offQueue.isFinished })
        #expect(offQueue.finalResult?.imageSource == .memoryCache)
        #expect(offQueue.metrics?.metricInfo(for: .memoryCache)?.wasLoadedSynchronously == false)

        env.pipeline.dirtyRenderedMemoryCacheImage(withIdentifier: request.imageURL.absoluteString)
        let dirtyDelegate = RecordingFetchDelegate()
        let dirty = env.pipeline.operation(with: request, delegate: dirtyDelegate)
        env.configuration.callbackQueue.sync { env.pipeline.fetchImage(with: dirty) }
        #expect(!dirty.isFinished || dirty.finalResult != nil)
        #expect(await eventually { dirty.isFinished })
        let events = dirtyDelegate.events.withLock { $0 }
        #expect(events.first == .dirtyPreview)
        #expect(events.last == .final(.memoryCache))
        #expect(env.server.requestCount(for: "/sync.jpg") == 1)
        await env.tearDown()
    }

    @Test("another live pipeline's disk entry with the same URL is copied in and delivered as a disk hit")
    func otherPipelinesDisk() async throws {
        let env = try await DownloaderTestEnvironment()
        let image = try DownloaderTestEnvironment.jpeg(width: 320, height: 240)
        env.server.setImage(image, at: "/shared.jpg")
        let request = GenericImageFetchRequest(imageURL: env.server.url(for: "/shared.jpg"))
        let other = try #require(
            ImagePipeline(
                identifier: "other-" + UUID().uuidString.prefix(6).lowercased(), configuration: env.configuration))
        other.diskCache.waitUntilManifestLoaded()
        let seeding = RecordingFetchDelegate()
        let seed = other.operation(with: request, delegate: seeding)
        other.fetchImage(with: seed)
        #expect(await eventually { seed.isFinished })
        #expect(
            await eventually { other.diskCache.entry(withIdentifier: request.imageURL.absoluteString)?.complete != nil }
        )

        let (operation, _) = await run(env, request)
        #expect(operation.finalResult?.imageSource == .diskCache)
        #expect(env.server.requestCount(for: "/shared.jpg") == 1)
        let copied = try #require(env.diskEntry(request.imageURL.absoluteString)?.complete)
        #expect(try Data(contentsOf: copied.fileURL) == image)
        await env.tearDown()
    }

    @Test(
        "among other pipelines, one whose entry has another URL is skipped and one that does not decode is passed over")
    func otherPipelinesSkipAndPassOver() async throws {
        let env = try await DownloaderTestEnvironment()
        let good = try DownloaderTestEnvironment.jpeg(width: 320, height: 240)
        let mismatched = try DownloaderTestEnvironment.jpeg(width: 64, height: 48)
        let url = env.server.url(for: "/never-served.jpg")  // the network would answer 404
        let identifier = "shared-\(UUID().uuidString.prefix(6))"
        func pipeline(_ name: String, holding bytes: Data, at url: URL) throws -> ImagePipeline {
            let other = try #require(
                ImagePipeline(
                    identifier: "\(name)-" + UUID().uuidString.prefix(6).lowercased(), configuration: env.configuration)
            )
            other.diskCache.waitUntilManifestLoaded()
            let metadata = DiskCacheMetadata(
                identifier: identifier, url: url, lastAccess: env.configuration.clock(), timeToLive: 3600, width: 320,
                height: 240, imageType: ImageType.jpeg.rawValue)
            #expect(other.diskCache.updateImageEntry(metadata: metadata, source: .data(bytes)))
            return other
        }
        let others = [
            try pipeline("corrupt", holding: Data(repeating: 0x42, count: 500), at: url),
            try pipeline("elsewhere", holding: mismatched, at: env.server.url(for: "/elsewhere.jpg")),
            try pipeline("good", holding: good, at: url),
        ]
        let request = GenericImageFetchRequest(
            imageURL: url, identifier: identifier, targetDimensions: .zero, targetContentMode: .center)
        let (operation, _) = await run(env, request)
        #expect(operation.finalResult?.imageSource == .diskCache)
        #expect(operation.finalResult?.imageContainer.dimensions == CGSize(width: 320, height: 240))
        #expect(env.server.requestCount(for: "/never-served.jpg") == 0)
        let copied = try #require(env.diskEntry(identifier)?.complete)
        #expect(try Data(contentsOf: copied.fileURL) == good)
        // Pipelines are searched in identifier order: "corrupt-" first, whose entry failed to decode and was
        // dropped; the entry with the other URL was looked at, not taken.
        #expect(others[0].diskCache.entry(withIdentifier: identifier) == nil)
        #expect(others[1].diskCache.entry(withIdentifier: identifier)?.complete?.metadata.url != url)
        await env.tearDown()
    }

    @Test("additional caches are asked in order by URL before the network")
    func additionalCaches() async throws {
        let env = try await DownloaderTestEnvironment()
        let image = try DownloaderTestEnvironment.jpeg(width: 320, height: 240)
        env.server.setImage(image, at: "/legacy.jpg")
        env.server.setImage(image, at: "/fresh.jpg")
        let legacyURL = env.server.url(for: "/legacy.jpg")
        let legacyImage = try CodecCatalogue.shared.decodeImage(image).container
        let empty = DictionaryAdditionalCache([:])
        let legacy = DictionaryAdditionalCache([legacyURL: legacyImage])
        env.pipeline.additionalCaches = [empty, legacy]
        let request = GenericImageFetchRequest(
            imageURL: legacyURL, identifier: nil,
            targetDimensions: CGSize(width: 160, height: 160), targetContentMode: .scaleAspectFit)
        let (hit, _) = await run(env, request)
        #expect(hit.finalResult?.imageSource == .additionalCache)
        #expect(hit.finalResult?.imageContainer.dimensions == CGSize(width: 160, height: 120))
        #expect(empty.lookups.withLock { $0 } == 1 && legacy.lookups.withLock { $0 } == 1)
        #expect(env.server.requestCount(for: "/legacy.jpg") == 0)
        // no bytes, not cached
        #expect(env.pipeline.memoryCache.entry(withIdentifier: legacyURL.absoluteString) == nil)

        let (miss, _) = await run(env, GenericImageFetchRequest(imageURL: env.server.url(for: "/fresh.jpg")))
        #expect(miss.finalResult?.imageSource == .network)
        #expect(miss.metrics?.metricInfo(for: .additionalCache)?.result == .miss)
        await env.tearDown()
    }

    @Test("a transformer changes the delivered image before scaling; rendered reuse only under its identifier")
    func transformers() async throws {
        let env = try await DownloaderTestEnvironment()
        let image = try DownloaderTestEnvironment.jpeg(width: 640, height: 480)
        env.server.setImage(image, at: "/t.jpg")
        var request = GenericImageFetchRequest(
            imageURL: env.server.url(for: "/t.jpg"), identifier: nil,
            targetDimensions: CGSize(width: 160, height: 160), targetContentMode: .scaleAspectFit)
        let named = GreenTransformer(transformerIdentifier: "green")
        request.transformer = named
        let (first, _) = await run(env, request)
        let result = try #require(first.finalResult)
        #expect(result.imageWasTransformed)
        #expect(result.imageContainer.dimensions == CGSize(width: 160, height: 120))
        #expect(result.imageContainer.image.pixel(x: 80, y: 60) == SIMD4(0, 255, 0, 255))
        // The raw bytes were cached, not the transformed image.
        let cached = try #require(
            env.pipeline.memoryCache.entry(withIdentifier: request.imageURL.absoluteString)?.complete)
        #expect(cached.data == image)

        // Same transformer identifier: a synchronous rendered hit, transformed.
        let again = env.pipeline.operation(with: request, delegate: nil)
        env.configuration.callbackQueue.sync { env.pipeline.fetchImage(with: again) }
        #expect(again.isFinished && again.finalResult?.imageWasTransformed == true)

        // A transformer without an identifier never reads or writes the rendered cache.
        var anonymous = request
        anonymous.transformer = GreenTransformer(transformerIdentifier: nil)
        let unnamed = env.pipeline.operation(with: anonymous, delegate: nil)
        env.configuration.callbackQueue.sync { env.pipeline.fetchImage(with: unnamed) }
        #expect(await eventually { unnamed.isFinished })
        #expect(unnamed.metrics?.metricInfo(for: .memoryCache)?.wasLoadedSynchronously == false)
        #expect(unnamed.finalResult?.imageWasTransformed == true)
        await env.tearDown()
    }

    @Test("a cached variant with another URL is a preview; the delegate continues or stops")
    func previews() async throws {
        let env = try await DownloaderTestEnvironment()
        let small = try DownloaderTestEnvironment.jpeg(width: 100, height: 75, seed: 4)
        let large = try DownloaderTestEnvironment.jpeg(width: 800, height: 600, seed: 5)
        env.server.setImage(large, at: "/large.jpg")
        let identifier = "shared-identifier"
        let variant = MemoryCacheCompleteImage(
            data: small, imageType: .jpeg, url: env.server.url(for: "/small.jpg"),
            dimensions: CGSize(width: 100, height: 75))
        #expect(env.pipeline.memoryCache.updateEntry(MemoryCacheEntry(identifier: identifier, complete: variant)))
        let request = GenericImageFetchRequest(
            imageURL: env.server.url(for: "/large.jpg"), identifier: identifier,
            targetDimensions: CGSize(width: 400, height: 300), targetContentMode: .scaleAspectFit)

        let (stopped, stopDelegate) = await run(
            env, request, delegate: RecordingFetchDelegate(previewAnswer: .stopLoading))
        #expect(stopped.state == .failed)
        #expect((stopped.error as? ImageFetchError)?.code == .cancelledAfterLoadingPreview)
        #expect(stopDelegate.events.withLock { $0 }.contains(.preview(.memoryCache)))
        #expect(stopped.previewResult?.imageContainer.dimensions == CGSize(width: 400, height: 300))
        #expect(env.server.requestCount(for: "/large.jpg") == 0)

        let (continued, continueDelegate) = await run(
            env, request, delegate: RecordingFetchDelegate(previewAnswer: .continueLoading))
        #expect(continued.finalResult?.imageSource == .network)
        #expect(continued.finalResult?.imageURL == request.imageURL)
        let events = continueDelegate.events.withLock { $0 }
        #expect(events.firstIndex(of: .preview(.memoryCache))! < events.firstIndex(of: .final(.network))!)
        await env.tearDown()
    }
}
