import Foundation
import Testing

@testable import TIP

private struct FailingHydrater: ImageStoreRequestHydrater {
    struct Failure: Error {}
    func hydrate(
        _ request: any ImageStoreRequest, pipeline: ImagePipeline,
        completion: @escaping @Sendable ((any ImageStoreRequest)?, (any Error)?) -> Void
    ) {
        completion(nil, Failure())
    }
}

/// Records store events as `identifier:placeholder:manual`.
private final class StoreEventRecorder: ImagePipelineObserver {
    let events = Locked<[String]>([])
    func imagePipeline(
        _ pipeline: ImagePipeline, didStoreImageWithIdentifier identifier: String, url: URL, dimensions: CGSize,
        isPlaceholder: Bool, wasManuallyStored: Bool
    ) {
        events.withLock { $0.append("\(identifier):\(isPlaceholder):\(wasManuallyStored):\(Int(dimensions.width))") }
    }
}

@Suite("Storing images")
struct ImageStoreTests {
    func store(_ pipeline: ImagePipeline, _ request: any ImageStoreRequest) async -> (Bool, (any Error)?) {
        let outcome = Locked<(Bool, (any Error)?)?>(nil)
        pipeline.storeImage(with: request) { stored, error in outcome.withLock { $0 = (stored, error) } }
        _ = await eventually { outcome.withLock { $0 } != nil }
        return outcome.withLock { $0 } ?? (false, nil)
    }

    @Test("encoded data goes to memory and disk; a later fetch is a memory hit that depends on the store")
    func storeData() async throws {
        let env = try await DownloaderTestEnvironment()
        let jpeg = try DownloaderTestEnvironment.jpeg(width: 300, height: 200)
        let url = URL(string: "https://images.example/stored.jpg")!
        var request = GenericImageStoreRequest(imageURL: url)
        request.imageData = jpeg
        let storeOperation = env.pipeline.storeImage(with: request)
        let fetch = env.pipeline.operation(with: GenericImageFetchRequest(imageURL: url), delegate: nil)
        storeOperation.makeDependencyOfTargetOperation(fetch)
        env.pipeline.fetchImage(with: fetch)
        #expect(await eventually { fetch.isFinished })
        #expect(storeOperation.isFinished)
        #expect(fetch.finalResult?.imageSource == .memoryCache)
        let disk = try #require(env.diskEntry(url.absoluteString)?.complete)
        #expect(try Data(contentsOf: disk.fileURL) == jpeg)
        #expect(disk.metadata.width == 300 && disk.metadata.height == 200)
        await env.tearDown()
    }

    @Test("a larger placeholder stored over a real image is refused by the disk as by the memory cache (TIP's rule)")
    func placeholderNeverReplacesRealImage() async throws {
        let env = try await DownloaderTestEnvironment()
        let url = URL(string: "https://images.example/real.jpg")!
        var real = GenericImageStoreRequest(imageURL: url)
        real.imageData = try DownloaderTestEnvironment.jpeg(width: 100, height: 50)
        try await env.pipeline.storeImage(for: real)
        var placeholder = GenericImageStoreRequest(imageURL: url)
        placeholder.imageData = try DownloaderTestEnvironment.jpeg(width: 200, height: 100, seed: 3)
        placeholder.options = [.treatAsPlaceholder]
        try? await env.pipeline.storeImage(for: placeholder)
        let disk = try #require(env.diskEntry(url.absoluteString)?.complete?.metadata)
        #expect(disk.width == 100 && !disk.isPlaceholder)
        let memory = try #require(
            env.pipeline.memoryCache.entry(withIdentifier: url.absoluteString, touch: false)?.complete)
        #expect(memory.dimensions == CGSize(width: 100, height: 50) && !memory.isPlaceholder)
        await env.tearDown()
    }

    @Test("observers hear of manual stores and downloads, with the placeholder flag and the stored size")
    func storeEvents() async throws {
        let env = try await DownloaderTestEnvironment()
        let recorder = StoreEventRecorder()
        env.configuration.addImagePipelineObserver(recorder)
        let jpeg = try DownloaderTestEnvironment.jpeg(width: 300, height: 200)
        var request = GenericImageStoreRequest(imageURL: URL(string: "https://images.example/placeholder.jpg")!)
        request.imageData = jpeg
        request.options = [.treatAsPlaceholder]
        #expect(await store(env.pipeline, request).0)
        env.server.setImage(jpeg, at: "/downloaded.jpg")
        let fetch = env.pipeline.operation(
            with: GenericImageFetchRequest(
                imageURL: env.server.url(for: "/downloaded.jpg"), identifier: "dl",
                targetDimensions: CGSize(width: 30, height: 30),
                targetContentMode: .scaleAspectFit), delegate: nil)
        env.pipeline.fetchImage(with: fetch)
        #expect(await eventually { fetch.isFinished })
        #expect(await eventually { recorder.events.withLock { $0 }.count == 2 })
        #expect(
            recorder.events.withLock { $0 } == [
                "https://images.example/placeholder.jpg:true:true:300", "dl:false:false:300",
            ])
        await env.tearDown()
    }

    @Test("an image is encoded for the disk only (JPEG without transparency); the memory entry is cleared")
    func storeImage() async throws {
        let env = try await DownloaderTestEnvironment()
        let url = URL(string: "https://images.example/encoded.jpg")!
        let bitmap = TestImages.photo(width: 120, height: 80)
        var request = GenericImageStoreRequest(imageURL: url, identifier: "encoded")
        request.image = ImageContainer(image: bitmap)
        let (stored, error) = await store(env.pipeline, request)
        #expect(stored && error == nil)
        #expect(env.pipeline.memoryCache.entry(withIdentifier: "encoded") == nil)
        let disk = try #require(env.diskEntry("encoded")?.complete)
        let bytes = try Data(contentsOf: disk.fileURL)
        #expect(ImageType.detect(fromMagicNumbers: bytes) == .match(.jpeg))
        let result = try await env.pipeline.fetchImage(
            for: GenericImageFetchRequest(
                imageURL: url, identifier: "encoded",
                targetDimensions: .zero, targetContentMode: .center))
        #expect(result.imageSource == .diskCache)
        #expect(result.imageContainer.dimensions == CGSize(width: 120, height: 80))
        await env.tearDown()
    }

    @Test("nothing to store, or a failing hydrater, fail the store with an error")
    func failures() async throws {
        let env = try await DownloaderTestEnvironment()
        let url = URL(string: "https://images.example/none.jpg")!
        let (stored, error) = await store(env.pipeline, GenericImageStoreRequest(imageURL: url))
        #expect(!stored)
        #expect((error as? ImageStoreError)?.code == .imageNotProvided)
        #expect((error as? ImageStoreError)?.errorCode == 1)

        var hydrated = GenericImageStoreRequest(imageURL: url)
        hydrated.imageData = try DownloaderTestEnvironment.jpeg(width: 10, height: 10)
        hydrated.hydrater = FailingHydrater()
        let (hydrationStored, hydrationError) = await store(env.pipeline, hydrated)
        #expect(!hydrationStored)
        #expect(hydrationError is FailingHydrater.Failure)
        #expect(env.diskEntry(url.absoluteString) == nil)
        await env.tearDown()
    }

    @Test(
        """
        bytes no codec reads (not an image, a header cut short, an unreadable file) are refused and the cached \
        image stays
        """,
        arguments: ["html", "cut", "file"])
    func unreadableBytes(kind: String) async throws {
        let env = try await DownloaderTestEnvironment()
        let jpeg = try DownloaderTestEnvironment.jpeg(width: 300, height: 200)
        let url = URL(string: "https://images.example/kept-\(kind).jpg")!
        var good = GenericImageStoreRequest(imageURL: url)
        good.imageData = jpeg
        #expect(await store(env.pipeline, good).0)

        var bad = GenericImageStoreRequest(imageURL: url)
        switch kind {
        case "html": bad.imageData = Data("<html>not an image</html>".utf8)
        case "cut": bad.imageData = jpeg.prefix(40)  // SOI and the start of a segment: no frame header
        default: bad.imageFilePath = "/nonexistent/\(UUID().uuidString).jpg"
        }
        let (stored, error) = await store(env.pipeline, bad)
        #expect(!stored)
        let storeError = try #require(error as? ImageStoreError)
        #expect(storeError.code == .imageNotProvided)
        #expect(storeError.message.contains(kind == "file" ? "cannot be read" : "is not an image TIP can read"))

        // Both caches still serve the image stored first.
        #expect(env.pipeline.memoryCache.entry(withIdentifier: url.absoluteString)?.complete?.data == jpeg)
        let disk = try #require(env.diskEntry(url.absoluteString)?.complete)
        #expect(try Data(contentsOf: disk.fileURL) == jpeg)
        var cachedOnly = GenericImageFetchRequest(imageURL: url)
        cachedOnly.loadingSources = .cachesOnly
        let fetch = env.pipeline.operation(with: cachedOnly, delegate: nil)
        env.pipeline.fetchImage(with: fetch)
        #expect(await eventually { fetch.isFinished })
        #expect(fetch.finalResult?.imageContainer.dimensions == CGSize(width: 300, height: 200))
        await env.tearDown()
    }

    @Test(
        """
        storeImage(for:) and inspect() return without the callback queue (held here); a refused store throws \
        ImageStoreError
        """)
    func asyncForms() async throws {
        let env = try await DownloaderTestEnvironment()
        let callbacks = DispatchQueue(label: "held-callbacks")
        env.configuration.callbackQueue = callbacks
        callbacks.suspend()
        let url = URL(string: "https://images.example/async-store.jpg")!
        var request = GenericImageStoreRequest(imageURL: url)
        request.imageData = try DownloaderTestEnvironment.jpeg(width: 40, height: 30)
        var refused = GenericImageStoreRequest(imageURL: url)
        refused.imageData = Data("<html>".utf8)
        // Awaited in a task the test watches with a deadline: a form that waited for the held queue fails the test
        // instead of hanging it (the queue is let go at the end either way).
        let outcome = Locked<(identifiers: [String], refusal: (any Error)?)?>(nil)
        let task = Task {
            try await env.pipeline.storeImage(for: request)
            let inspection = await env.pipeline.inspect()
            var refusal: (any Error)?
            do { try await env.pipeline.storeImage(for: refused) } catch { refusal = error }
            outcome.withLock { $0 = (inspection.completeDiskEntries.map(\.identifier), refusal) }
        }
        #expect(await eventually { outcome.withLock { $0 } != nil })
        callbacks.resume()
        try await task.value
        #expect(outcome.withLock { $0 }?.identifiers == [url.absoluteString])
        #expect(outcome.withLock { $0 }?.refusal is ImageStoreError)
        #expect(env.diskEntry(url.absoluteString)?.complete?.metadata.width == 40)
        await env.tearDown()
    }
}
