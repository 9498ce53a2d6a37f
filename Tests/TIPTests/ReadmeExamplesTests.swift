import Foundation
import TIP
import TIPImageServer
import Testing

// From the README ("The delegate"), with a record of what it saw for the test.
final class PhotoLoader: ImageFetchDelegate {
    let seen = Locked<[String]>([])
    var handlesPreviews: Bool { true }  // a cached thumbnail first
    var handlesProgressiveLoading: Bool { true }  // then progressive JPEG scans

    func imageFetchOperation(
        _ operation: ImageFetchOperation, didLoadPreviewImage result: ImageFetchResult,
        completion: @escaping @Sendable (ImageFetchPreviewLoadedBehavior) -> Void
    ) {
        print("preview", result.imageContainer.dimensions)
        seen.withLock { $0.append("preview") }
        completion(.continueLoading)  // or .stopLoading: the preview is enough
    }
    func imageFetchOperation(
        _ operation: ImageFetchOperation, shouldLoadProgressivelyWithIdentifier identifier: String,
        url: URL, imageType: ImageType, originalDimensions: CGSize
    ) -> Bool { true }
    func imageFetchOperation(
        _ operation: ImageFetchOperation, didUpdateProgressiveImage result: ImageFetchResult,
        progress: Float
    ) {
        print("scan at \(Int(progress * 100))%")
    }
    func imageFetchOperation(_ operation: ImageFetchOperation, didLoadFinalImage result: ImageFetchResult) {
        print("final from", result.imageSource, operation.metrics?.totalDuration ?? 0)
        seen.withLock { $0.append("final") }
    }
    func imageFetchOperation(_ operation: ImageFetchOperation, didFailToLoadFinalImage error: any Error) {
        print("failed:", error)
        seen.withLock { $0.append("failed") }
    }
}

/// The code samples of README.md, kept compiling (and running) here. Only the public API is used.
@Suite("README examples")
struct ReadmeExamplesTests {
    /// A started server with a `width` x `height` JPEG at `path`.
    static func serve(width: Int, height: Int, at path: String) async throws -> TIPImageServer {
        let server = TIPImageServer()
        try await server.start()
        var bitmap = Bitmap(width: width, height: height, format: .rgbx8)!
        bitmap.setPixel(x: 0, y: 0, SIMD4(255, 0, 0, 255))
        server.setImage(
            try CodecCatalogue.shared.encodeImage(ImageContainer(image: bitmap), type: .jpeg, quality: 0.8), at: path)
        return server
    }

    @Test("Use it from your package: the one-line fetch")
    func oneLineFetch() async throws {
        let server = try await Self.serve(width: 1880, height: 1253, at: "/photo.jpg")
        defer { server.stop() }
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("readme-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: directory) }
        let config = GlobalConfiguration.shared
        let saved = config.cachesRootDirectory
        defer { config.cachesRootDirectory = saved }
        config.cachesRootDirectory = directory  // before the shared pipeline stands up (only this test uses it)

        // From the README (the server's URL; the file in a temporary directory):
        let url = server.url(for: "/photo.jpg")
        let thumbnail = try await ImagePipeline.shared.image(
            for: url, targetDimensions: CGSize(width: 400, height: 400))
        print(thumbnail.dimensions)  // (400.0, 267.0): fitted, aspect kept
        try thumbnail.write(to: directory.appendingPathComponent("thumb.png"))  // encoded by the file's extension

        #expect(thumbnail.dimensions == CGSize(width: 400, height: 267))
        #expect(
            try CodecCatalogue.shared.decodeImage(Data(contentsOf: directory.appendingPathComponent("thumb.png"))).type
                == .png)
    }

    @Test("Handing pixels on")
    func handingPixelsOn() throws {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("readme-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: directory) }
        var source = Bitmap(width: 30, height: 20, format: .rgba8Premultiplied)!
        source.setPixel(x: 2, y: 3, SIMD4(100, 50, 0, 200))
        let image = ImageContainer(image: source)

        // From the README (the file in a temporary directory):
        let rgba: [UInt8] = image.image.packedPixels(.rgba8)  // width * height * 4 bytes, alpha straight
        let rgb: [UInt8] = image.image.packedPixels(.rgb8)  // width * height * 3 bytes, onto black
        let bitmap = Bitmap(packedPixels: rgba, width: image.image.width, height: image.image.height, layout: .rgba8)!
        // encode + write, atomically
        try ImageContainer(image: bitmap).write(to: directory.appendingPathComponent("copy.png"))

        #expect(rgba.count == 30 * 20 * 4 && rgb.count == 30 * 20 * 3)
        #expect(bitmap == source)
    }

    @Test("Using the codecs")
    func codecs() throws {
        let path = FileManager.default.temporaryDirectory.appendingPathComponent("readme-\(UUID().uuidString).jpg").path
        defer { try? FileManager.default.removeItem(atPath: path) }
        var bitmap = Bitmap(width: 1880, height: 1253, format: .rgbx8)!
        bitmap.setPixel(x: 0, y: 0, SIMD4(255, 0, 0, 255))
        try CodecCatalogue.shared.encodeImage(
            ImageContainer(image: bitmap), toFilePath: path, type: .jpeg, quality: 0.85)

        // From the README:
        let data = try Data(contentsOf: URL(fileURLWithPath: path))
        let options = ImageDecodingOptions(
            targetDimensions: CGSize(width: 400, height: 400),
            targetContentMode: .scaleAspectFit)
        let (image, type) = try CodecCatalogue.shared.decodeImage(data, options: options)
        print(type, image.dimensions, image.frameCount)  // public.jpeg (400.0, 267.0) 1

        let png = try CodecCatalogue.shared.encodeImage(image, type: .png, quality: 1)

        #expect(type == .jpeg && image.dimensions == CGSize(width: 400, height: 267) && image.frameCount == 1)
        #expect(png.starts(with: [0x89, 0x50, 0x4E, 0x47]))
    }

    @Test("Pipelines, caches and budgets")
    func pipelines() async throws {
        let root = FileManager.default.temporaryDirectory.appendingPathComponent("readme-\(UUID().uuidString)")
        defer { try? FileManager.default.removeItem(at: root) }

        // From the README (with a temporary root and restored settings):
        let config = GlobalConfiguration.shared
        let saved = (config.cachesRootDirectory, config.maxBytesForAllMemoryCaches, config.callbackQueue, config.logger)
        defer {
            (config.cachesRootDirectory, config.maxBytesForAllMemoryCaches, config.callbackQueue, config.logger) = saved
        }
        config.cachesRootDirectory = root  // default: $XDG_CACHE_HOME or ~/.cache
        config.maxBytesForAllMemoryCaches = 64 * 1024 * 1024  // shared by every live pipeline
        config.callbackQueue = DispatchQueue(label: "images")  // default: the library's own queue
        config.logger = SwiftLogPipelineLogger(label: "tip")  // default: swift-log, "TIP", warnings

        let avatars = try ImagePipeline(checkedIdentifier: "readme-avatars")  // throws why: invalid, or already live
        let result = await withCheckedContinuation { continuation in
            avatars.inspect { result in
                print(result.completeDiskEntries.count, result.onDiskBytesUsed)
                continuation.resume(returning: result)
            }
        }
        #expect(result.imagePipelineIdentifier == "readme-avatars" && result.onDiskBytesUsed == 0)
    }

    @Test("Downloads")
    func downloads() {
        let token = "t0k3n"
        // From the README (with restored settings):
        let config = GlobalConfiguration.shared
        let saved = (config.maxConcurrentImagePipelineDownloadCount, config.maxImageDownloadByteCount)
        defer {
            (config.maxConcurrentImagePipelineDownloadCount, config.maxImageDownloadByteCount) = saved
            config.imageFetchDownloadProvider = nil
        }
        config.maxConcurrentImagePipelineDownloadCount = 6  // default 4; the rest wait in arrival order
        config.maxImageDownloadByteCount = 32 * 1024 * 1024  // beyond TIP; larger bodies fail early
        // nil: default (libcurl)
        config.imageFetchDownloadProvider = CurlImageFetchDownloadProvider(requestTimeout: 30)

        let hydrator = ImageRequestHydrator { request, _, completion in
            var request = request
            request.setValue("my-service/1.0", forHTTPHeaderField: "User-Agent")
            completion(request, nil)  // changing the URL or method is an error
        }
        let authorizer = ImageRequestAuthorizer { _, _, completion in completion("Bearer \(token)", nil) }

        #expect(config.maxConcurrentImagePipelineDownloadCount == 6)
        #expect(config.imageFetchDownloadProvider is CurlImageFetchDownloadProvider)

        // From the README ("Download providers"):
        config.imageFetchDownloadProvider = CurlImageFetchDownloadProvider(requestTimeout: 30, connectTimeout: 10)
        config.imageFetchDownloadProvider = URLSessionImageFetchDownloadProvider()  // read its risks below first
        #expect(config.imageFetchDownloadProvider is URLSessionImageFetchDownloadProvider)
        #expect(hydrator !== ImageRequestHydrator { _, _, done in done(nil, nil) })
        _ = authorizer
    }

    @Test("Fetching")
    func fetching() async throws {
        let server = try await Self.serve(width: 640, height: 480, at: "/a.jpg")
        defer { server.stop() }
        let url = server.url(for: "/a.jpg")
        let root = FileManager.default.temporaryDirectory.appendingPathComponent("readme-\(UUID().uuidString)")
        defer { try? FileManager.default.removeItem(at: root) }
        let config = GlobalConfiguration.shared
        let saved = (config.cachesRootDirectory, config.callbackQueue)
        defer { (config.cachesRootDirectory, config.callbackQueue) = saved }
        config.cachesRootDirectory = root
        config.callbackQueue = DispatchQueue(label: "readme.callbacks")
        let hydrator = ImageRequestHydrator { _, _, completion in completion(nil, nil) }

        // From the README (with a unique pipeline identifier):
        let pipeline = try ImagePipeline(checkedIdentifier: "readme-avatars-\(UUID().uuidString.prefix(6))")
        var request = GenericImageFetchRequest(
            imageURL: url, identifier: nil,
            targetDimensions: CGSize(width: 96, height: 96),
            targetContentMode: .scaleAspectFill)
        request.imageRequestHydrator = hydrator

        let result = try await pipeline.fetchImage(for: request)
        print(result.imageSource, result.imageContainer.dimensions)

        let done = Locked<ImageLoadSource?>(nil)
        let operation = pipeline.operation(with: request) { result, error in done.withLock { $0 = result?.imageSource }
        }
        pipeline.fetchImage(with: operation)
        operation.priority = .high

        for try await event in pipeline.fetchEvents(for: request) {
            if case .progressiveImage(let scan, _) = event { print(scan.imageContainer.dimensions) }
        }

        #expect(result.imageSource == .network)
        #expect(result.imageContainer.dimensions == CGSize(width: 128, height: 96))
        for _ in 0..<2_000 where !operation.isFinished { try await Task.sleep(for: .milliseconds(5)) }
        #expect(done.withLock { $0 } == .memoryCache)
    }

    @Test("Fetching: the delegate, the completion block, storing, configuration")
    func delegateTour() async throws {
        let server = TIPImageServer()
        try await server.start()
        defer { server.stop() }
        let photo = try CodecCatalogue.shared.encodeImage(
            ImageContainer(image: Bitmap(width: 800, height: 600, format: .rgbx8)!),
            type: .jpeg, quality: 0.8)
        server.setImage(photo, at: "/photo.jpg")
        let url = server.url(for: "/photo.jpg")
        let jpegBytes = try CodecCatalogue.shared.encodeImage(
            ImageContainer(image: Bitmap(width: 200, height: 150, format: .rgbx8)!),
            type: .jpeg, quality: 0.8)
        let root = FileManager.default.temporaryDirectory.appendingPathComponent("readme-\(UUID().uuidString)")
        defer { try? FileManager.default.removeItem(at: root) }
        let config = GlobalConfiguration.shared
        let saved = (config.cachesRootDirectory, config.callbackQueue, config.maxConcurrentFetchOperationCount)
        defer { (config.cachesRootDirectory, config.callbackQueue, config.maxConcurrentFetchOperationCount) = saved }
        config.cachesRootDirectory = root
        config.callbackQueue = DispatchQueue(label: "readme.delegate")
        config.maxConcurrentFetchOperationCount = 0
        #expect(config.maxConcurrentFetchOperationCount == 6)
        let pipeline = ImagePipeline(identifier: "readme-photos-\(UUID().uuidString.prefix(6))")!
        let request = GenericImageFetchRequest(
            imageURL: url, identifier: "photo-1",
            targetDimensions: CGSize(width: 400, height: 400), targetContentMode: .scaleAspectFit)
        let someOtherOperation = BlockOperation {}

        // From the README ("Storing"), run first so the delegate gets a preview: a thumbnail under the same
        // identifier, at another URL.
        var store = GenericImageStoreRequest(
            imageURL: URL(string: "https://example.com/thumb.jpg")!, identifier: "photo-1")
        store.imageData = jpegBytes  // or an image, or a file path
        store.options = [.treatAsPlaceholder]
        let stored = pipeline.storeImage(with: store) { succeeded, error in }

        // From the README ("The delegate"):
        let loader = PhotoLoader()  // keep it: a delegate that goes away cancels its fetch
        let operation = pipeline.operation(with: request, delegate: loader)
        operation.addDependency(someOtherOperation)  // any Operation
        stored.makeDependencyOfTargetOperation(operation)
        pipeline.fetchImage(with: operation)
        operation.priority = .high  // any time; re-prioritizes the shared download
        OperationQueue().addOperation(someOtherOperation)

        // From the README ("The completion block"):
        let fetch = pipeline.operation(with: request) { result, error in
            print(result?.imageSource as Any, error as Any)
        }
        fetch.addDependency(operation)
        pipeline.fetchImage(with: fetch)

        for _ in 0..<4_000 where !(operation.isFinished && fetch.isFinished) {
            try await Task.sleep(for: .milliseconds(5))
        }
        #expect(loader.seen.withLock { $0 } == ["preview", "final"])
        #expect(operation.finalResult?.imageSource == .network)
        #expect(fetch.finalResult?.imageSource == .memoryCache)
    }

    @Test("HTTP caching")
    func httpCaching() async throws {
        let server = try await Self.serve(width: 320, height: 240, at: "/c.jpg")
        defer { server.stop() }
        server.setResponseHeaders([("Cache-Control", "max-age=0")], for: "/c.jpg")  // stale at once: every reuse asks
        let root = FileManager.default.temporaryDirectory.appendingPathComponent("readme-\(UUID().uuidString)")
        defer { try? FileManager.default.removeItem(at: root) }
        let shared = GlobalConfiguration.shared
        let saved = (shared.cachesRootDirectory, shared.followsHTTPCachingHeaders, shared.maximumHTTPFreshnessLifetime)
        defer {
            (shared.cachesRootDirectory, shared.followsHTTPCachingHeaders, shared.maximumHTTPFreshnessLifetime) = saved
        }
        shared.cachesRootDirectory = root
        let pipeline = try ImagePipeline(checkedIdentifier: "readme-http-\(UUID().uuidString.prefix(6))")
        let request = GenericImageFetchRequest(
            imageURL: server.url(for: "/c.jpg"), identifier: nil,
            targetDimensions: CGSize(width: 64, height: 64), targetContentMode: .scaleAspectFit)
        #expect(try await pipeline.fetchImage(for: request).imageSource == .network)

        // From the README:
        let config = GlobalConfiguration.shared
        config.followsHTTPCachingHeaders = true  // default; false: TIP's fixed TTL, nothing revalidated
        config.maximumHTTPFreshnessLifetime = 7 * 86_400  // default 30 days: a longer max-age is cut to this

        let result = try await pipeline.fetchImage(for: request)
        if result.imageWasRevalidated { print("cached bytes, confirmed by a 304 from", result.imageSource) }

        #expect(result.imageWasRevalidated)
        // the disk write may still be on its way
        #expect(result.imageSource == .diskCache || result.imageSource == .memoryCache)
        #expect(server.requests(for: "/c.jpg").map(\.status) == [200, 304])
    }
}
