import Foundation
import TIPImageServer
import Testing

@testable import TIP

/// A keeper of the operations a transformer saw: something outside TIP holding an operation (and so its pipeline).
private final class OperationKeeper: ImageFetchTransformer, @unchecked Sendable {
    let kept = Locked<[ImageFetchOperation]>([])
    func transform(
        _ image: ImageContainer, progress: Float, hintTargetDimensions: CGSize, hintContentMode: ContentMode,
        operation: ImageFetchOperation
    ) -> ImageContainer? {
        kept.withLock { $0.append(operation) }
        return nil
    }
}

/// A script that makes a pipeline, awaits a store or fetch and drops the pipeline can make a pipeline with the same
/// identifier at once: the `async` calls return only after their operation released the pipeline.
@Suite("A pipeline dropped after an awaited call is gone")
struct PipelineReleaseAfterAwaitTests {
    /// Runs `body` with a new pipeline named `identifier` and returns whether the pipeline was gone as soon as `body`
    /// returned and the pipeline was dropped.
    static func isGoneRightAfter(
        _ identifier: String, _ configuration: GlobalConfiguration, _ body: (ImagePipeline) async throws -> Void
    ) async throws -> Bool {
        weak var dropped: ImagePipeline?
        do {
            let pipeline = try ImagePipeline(checkedIdentifier: identifier, configuration: configuration)
            dropped = pipeline
            try await body(pipeline)
        }
        return dropped == nil && !configuration.registry.isRegistered(identifier)
    }

    @Test("Store, then fetch from the caches, 40 times over with a new pipeline of the same identifier each time")
    func storeAndCachedFetch() async throws {
        let (configuration, root) = try makeTestConfiguration()
        defer { try? FileManager.default.removeItem(at: root) }
        let jpeg = try DownloaderTestEnvironment.jpeg(width: 64, height: 48)
        for index in 0..<40 {
            let url = URL(string: "https://example.com/stored-\(index).jpg")!
            let gone = try await Self.isGoneRightAfter("reused", configuration) { pipeline in
                var store = GenericImageStoreRequest(imageURL: url)
                store.imageData = jpeg
                try await pipeline.storeImage(for: store)
                var request = GenericImageFetchRequest(imageURL: url)
                request.loadingSources = [.memoryCache, .diskCache]
                let result = try await pipeline.fetchImage(for: request)
                #expect(result.imageSource == .memoryCache || result.imageSource == .diskCache)
            }
            #expect(gone, "round \(index)")
        }
        // The files stayed: a last pipeline of that identifier finds every image on disk.
        let last = try ImagePipeline(checkedIdentifier: "reused", configuration: configuration)
        var request = GenericImageFetchRequest(imageURL: URL(string: "https://example.com/stored-39.jpg")!)
        request.loadingSources = [.diskCache]
        let found = try await last.fetchImage(for: request)
        #expect(found.imageSource == .diskCache)
    }

    @Test("Network fetches and data fetches from the embedded server, each with a new pipeline of the same identifier")
    func networkFetches() async throws {
        let (configuration, root) = try makeTestConfiguration()
        defer { try? FileManager.default.removeItem(at: root) }
        let jpeg = try DownloaderTestEnvironment.jpeg(width: 64, height: 48)
        let server = TIPImageServer()
        try await server.start()
        defer { server.stop() }
        for index in 0..<30 { server.setImage(jpeg, at: "/image-\(index).jpg") }
        for index in 0..<30 {
            let url = server.url(for: "/image-\(index).jpg")
            let gone = try await Self.isGoneRightAfter("reused-network", configuration) { pipeline in
                if index.isMultiple(of: 2) {
                    let result = try await pipeline.fetchImage(for: GenericImageFetchRequest(imageURL: url))
                    #expect(result.imageSource == .network)
                } else {
                    let result = try await pipeline.fetchImageData(for: GenericImageFetchRequest(imageURL: url))
                    #expect(result.data == jpeg)
                }
            }
            #expect(gone, "round \(index)")
        }
    }

    @Test("A fetch that stores its scaled image on disk in the background, 30 times over with the same identifier")
    func storedProcessedImage() async throws {
        let (configuration, root) = try makeTestConfiguration()
        defer { try? FileManager.default.removeItem(at: root) }
        let jpeg = try DownloaderTestEnvironment.jpeg(width: 640, height: 480)
        for index in 0..<30 {
            let url = URL(string: "https://example.com/scaled-\(index).jpg")!
            let gone = try await Self.isGoneRightAfter("reused-scaled", configuration) { pipeline in
                // Loaded first: a processed image stored while the manifest loads goes with the changes of originals
                // made meanwhile (README, "Stored processed images"), which the count below would see.
                pipeline.diskCache.waitUntilManifestLoaded()
                var store = GenericImageStoreRequest(imageURL: url)
                store.imageData = jpeg
                try await pipeline.storeImage(for: store)
                pipeline.clearMemoryCaches()
                var request = GenericImageFetchRequest(
                    imageURL: url, identifier: nil, targetDimensions: CGSize(width: 64, height: 64),
                    targetContentMode: .scaleAspectFit)
                request.loadingSources = [.diskCache]
                request.options.insert(.storeProcessedImageToDiskCache)
                let result = try await pipeline.fetchImage(for: request)
                #expect(result.imageSource == .diskCache)
            }
            #expect(gone, "round \(index)")
        }
        // Every scaled image was stored: a last pipeline finds them on disk.
        let last = try ImagePipeline(checkedIdentifier: "reused-scaled", configuration: configuration)
        last.diskCache.waitUntilManifestLoaded()
        #expect(last.diskCache.count == 60)
    }

    @Test("A failed fetch releases its pipeline before it throws")
    func failedFetch() async throws {
        let (configuration, root) = try makeTestConfiguration()
        defer { try? FileManager.default.removeItem(at: root) }
        for index in 0..<30 {
            let gone = try await Self.isGoneRightAfter("reused-miss", configuration) { pipeline in
                var request = GenericImageFetchRequest(imageURL: URL(string: "https://example.com/none-\(index).jpg")!)
                request.loadingSources = .cachesOnly
                await #expect(throws: ImageFetchError.self) { try await pipeline.fetchImage(for: request) }
            }
            #expect(gone, "round \(index)")
        }
    }

    @Test("An operation kept outside TIP keeps its pipeline, and the awaited fetch still returns")
    func keptOperation() async throws {
        let (configuration, root) = try makeTestConfiguration()
        defer { try? FileManager.default.removeItem(at: root) }
        let jpeg = try DownloaderTestEnvironment.jpeg(width: 64, height: 48)
        let keeper = OperationKeeper()
        let url = URL(string: "https://example.com/kept.jpg")!
        let gone = try await Self.isGoneRightAfter("kept", configuration) { pipeline in
            var store = GenericImageStoreRequest(imageURL: url)
            store.imageData = jpeg
            try await pipeline.storeImage(for: store)
            var request = GenericImageFetchRequest(imageURL: url)
            request.loadingSources = [.diskCache]
            request.transformer = keeper
            _ = try await pipeline.fetchImage(for: request)
        }
        #expect(!gone)
        #expect(keeper.kept.withLock { $0.count } == 1)
        #expect(throws: ImagePipelineIdentifierError.alreadyInUse("kept")) {
            try ImagePipeline(checkedIdentifier: "kept", configuration: configuration)
        }
        keeper.kept.withLock { $0.removeAll() }
        #expect(!configuration.registry.isRegistered("kept"))
    }
}
