import Foundation
import Testing

@testable import TIP

#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// One error type at the surface, with messages that say what to do: transport errors wrapped with the error kept,
/// `CancellationError` for cancelled tasks, no doubled text, the missing product named, the `Content-Type` that
/// arrived named, the unsupported type in `PipelineError`'s user info.
@Suite("Fetch errors at the surface")
struct ImageFetchErrorSurfaceTests {
    /// Runs a completion-API fetch of `url` and returns its error once the test has answered `answer`.
    private func failure(_ env: SteppedPipelineEnvironment, _ url: URL, answer: (SteppedDownload) -> Void) async throws
        -> (any Error)?
    {
        let failure = Locked<(any Error)?>(nil)
        let operation = env.pipeline.operation(with: GenericImageFetchRequest(imageURL: url)) { _, error in
            failure.withLock { $0 = error }
        }
        env.pipeline.fetchImage(with: operation)
        answer(try await env.provider.next())
        #expect(await eventually { operation.isFinished })
        return failure.withLock { $0 }
    }

    @Test("a URLError from the provider arrives as ImageFetchError couldNotDownloadImage (5), the URLError kept")
    func transportErrorWrapped() async throws {
        let env = try SteppedPipelineEnvironment()
        defer { env.tearDown() }
        let url = SteppedPipelineEnvironment.url("timeout.jpg")
        let error = try #require(try await failure(env, url) { $0.finish(URLError(.timedOut)) } as? ImageFetchError)
        #expect(error.code == .couldNotDownloadImage && error.errorCode == 5)
        #expect((error.underlyingError as? URLError)?.code == .timedOut)
        #expect(error.message.contains(url.absoluteString) && error.message.contains("timed out"), "\(error.message)")
        let underlying = try #require((error as NSError).userInfo[NSUnderlyingErrorKey] as? NSError)
        #expect(underlying.code == URLError.Code.timedOut.rawValue)

        // The async API throws the same error.
        let task = Task { try await env.pipeline.fetchImage(for: GenericImageFetchRequest(imageURL: url)) }
        try await env.provider.next(timeout: .seconds(300)).finish(URLError(.cannotConnectToHost))
        await #expect(throws: ImageFetchError.self) { try await task.value }
        let thrown = await task.result
        if case .failure(let error as ImageFetchError) = thrown {
            #expect((error.underlyingError as? URLError)?.code == .cannotConnectToHost)
        }
    }

    @Test(
        """
        cancelling the task of fetchImage(for:) throws CancellationError; the completion API keeps TIP's \
        cancelled (-1)
        """
    )
    func cancellation() async throws {
        let env = try SteppedPipelineEnvironment()
        defer { env.tearDown() }
        let task = Task {
            try await env.pipeline.fetchImage(
                for: GenericImageFetchRequest(imageURL: SteppedPipelineEnvironment.url("a.jpg")))
        }
        // A long limit: the task needs a turn of the (2-thread) concurrency pool before its download exists.
        let download = try await env.provider.next(timeout: .seconds(300))
        task.cancel()
        await #expect(throws: CancellationError.self) { try await task.value }
        #expect(await download.waitUntilOver())

        // Still queued (the only fetch slot taken by a download the test holds): the task ends at once, not when the
        // slot frees up.
        env.configuration.maxConcurrentFetchOperationCount = 1
        let holder = env.pipeline.operation(
            with: GenericImageFetchRequest(imageURL: SteppedPipelineEnvironment.url("holder.jpg"))
        ) { _, _ in }
        env.pipeline.fetchImage(with: holder)
        let held = try await env.provider.next(timeout: .seconds(300))
        let queued = Task {
            try await env.pipeline.fetchImage(
                for: GenericImageFetchRequest(imageURL: SteppedPipelineEnvironment.url("queued.jpg")))
        }
        let queuedEnded = Locked<(any Error)?>(nil)
        let watcher = Task {
            let outcome = await queued.result
            if case .failure(let error) = outcome { queuedEnded.withLock { $0 = error } }
        }
        // The fetch is in the queue behind the held one once the queue has two operations.
        #expect(await eventually { env.configuration.fetchOperationQueue.operationCount == 2 })
        queued.cancel()
        #expect(await eventually { queuedEnded.withLock { $0 } != nil })
        #expect(queuedEnded.withLock { $0 } is CancellationError)
        #expect(!holder.isFinished)
        let small = try DownloaderTestEnvironment.jpeg(width: 8, height: 8)
        held.serve(small)
        await watcher.value
        #expect(await eventually { holder.isFinished && env.configuration.fetchOperationQueue.operationCount == 0 })
        env.configuration.maxConcurrentFetchOperationCount = 6

        // Already cancelled before it starts: no download at all.
        let early = Task {
            withUnsafeCurrentTask { $0?.cancel() }
            return try await env.pipeline.fetchImage(
                for: GenericImageFetchRequest(imageURL: SteppedPipelineEnvironment.url("b.jpg")))
        }
        await #expect(throws: CancellationError.self) { try await early.value }

        // The completion API: TIP's code and a message said once.
        let failure = Locked<(any Error)?>(nil)
        let operation = env.pipeline.operation(
            with: GenericImageFetchRequest(imageURL: SteppedPipelineEnvironment.url("c.jpg"))
        ) { _, error in
            failure.withLock { $0 = error }
        }
        env.pipeline.fetchImage(with: operation)
        _ = try await env.provider.next()
        operation.cancel()
        #expect(await eventually { operation.isFinished })
        let error = try #require(failure.withLock { $0 } as? ImageFetchError)
        #expect(error.code == .cancelled && (error as NSError).code == -1)
        #expect(error.message == "The fetch was cancelled; fetch again if the image is still needed.")
        #expect(
            ImageFetchError.cancelled("every fetch left the download").message.contains(
                "(every fetch left the download)"))
    }

    @Test("a body that is not an image names the Content-Type that arrived")
    func notAnImage() async throws {
        let env = try SteppedPipelineEnvironment()
        defer { env.tearDown() }
        let page = Data("<!DOCTYPE html><html><body>Sign in</body></html>".utf8)
        let error = try #require(
            try await failure(env, SteppedPipelineEnvironment.url("login.jpg")) {
                $0.serve(page, type: "text/html; charset=utf-8")
            } as? ImageFetchError)
        #expect(error.code == .couldNotDecodeImage)
        #expect(
            error.message.contains("not an image") && error.message.contains("Content-Type text/html; charset=utf-8"),
            "\(error.message)")
    }

    @Test("a known type without its codec names what adds it (TIPWebP for WebP, a registration for others)")
    func missingCodec() async throws {
        // Catalogue level, on a catalogue of its own (another suite may have registered WebP on the shared one).
        let catalogue = CodecCatalogue()
        let webp = Data("RIFF".utf8) + Data([0x1A, 0, 0, 0]) + Data("WEBPVP8 ".utf8) + Data(repeating: 0, count: 18)
        #expect(throws: ImageDecodingError.missingCodec(.webp)) { try catalogue.decodeImage(webp) }
        #expect(ImageDecodingError.missingCodec(.webp).description.contains("add the TIPWebP product"))
        #expect(ImageDecodingError.missingCodec(.webp).description.contains("TIPWebP.register()"))
        #expect(throws: ImageDecodingError.unrecognizedFormat) {
            try catalogue.decodeImage(Data("not an image at all".utf8))
        }

        // Fetch level: the words for a known type without a codec. Every type the magic numbers know has a codec in
        // this test process (the plug-ins' own suites register them on the shared catalogue), so the message is
        // asked for directly, for a type without one (PICT).
        let url = SteppedPipelineEnvironment.url("old.pict")
        let downloaded = ImageDownloadResult(
            data: Data(repeating: 0, count: 64), url: url, imageType: nil, dimensions: .zero, isAnimated: false,
            source: .network,
            response: HTTPURLResponse(
                url: url, statusCode: 200, httpVersion: "HTTP/1.1", headerFields: ["Content-Type": "image/x-pict"]),
            wasCommitted: false, wasStoredOnDisk: false, sentRequest: nil, providerMetrics: nil, networkLoadDuration: 0)
        let message = ImageFetchOperation.undecodableMessage(
            ImageDecodingError.missingCodec(.pict), downloaded: downloaded)
        #expect(message.contains("com.apple.pict") && message.contains("Content-Type image/x-pict"), "\(message)")
        #expect(message.contains("CodecCatalogue.shared.setCodec"), "\(message)")

        // A compressed body names its Content-Encoding; a sliver over the limit only as stored says so.
        let gzipped = ImageDownloadResult(
            data: Data([0x1F, 0x8B, 8, 0]), url: url, imageType: nil, dimensions: .zero, isAnimated: false,
            source: .network,
            response: HTTPURLResponse(
                url: url, statusCode: 200, httpVersion: "HTTP/1.1",
                headerFields: ["Content-Type": "image/jpeg", "Content-Encoding": "gzip"]),
            wasCommitted: false, wasStoredOnDisk: false, sentRequest: nil, providerMetrics: nil, networkLoadDuration: 0)
        let compressed = ImageFetchOperation.undecodableMessage(
            ImageDecodingError.unrecognizedFormat, downloaded: gzipped)
        #expect(compressed.contains("Content-Encoding gzip") && compressed.contains("not to compress"), "\(compressed)")
        let sliver = ImageFetchOperation.undecodableMessage(
            ImageDecodingError.dimensionsTooLarge(width: 1, height: 99_000_000, maximumPixelCount: 100_000_000),
            downloaded: gzipped)
        #expect(sliver.contains("1x99000000") && sliver.contains("as a bitmap holds it"), "\(sliver)")

        // A damaged BMP (BMP has a codec now) names what the codec found and the Content-Type that arrived.
        let env = try SteppedPipelineEnvironment()
        defer { env.tearDown() }
        let bmp = Data("BM".utf8) + Data(repeating: 0, count: 60)
        let error = try #require(
            try await failure(env, SteppedPipelineEnvironment.url("old.bmp")) {
                $0.serve(bmp, type: "image/bmp")
            } as? ImageFetchError)
        #expect(error.code == .couldNotDecodeImage)
        #expect(
            error.message.contains("DIB header") && error.message.contains("Content-Type image/bmp"), "\(error.message)"
        )
    }

    @Test("encoding to a type without an encoder: PipelineError encodingUnsupported with the type in its user info")
    func encodingUnsupported() throws {
        let image = ImageContainer(image: try #require(Bitmap(width: 4, height: 4, format: .rgbx8)))
        do {
            _ = try CodecCatalogue(codecs: [:]).encodeImage(image, type: .webp, quality: 0.8)
            Issue.record("encoded without a codec")
        } catch {
            #expect(error.code == .encodingUnsupported && error.imageType == .webp)
            #expect((error as NSError).userInfo[PipelineError.imageTypeKey] as? String == "org.webmproject.webp")
            #expect(error.message.contains("TIPWebP.register()"), "\(error.message)")
        }
    }
}
