import Foundation
import TIPImageServer
import Testing

@testable import TIP

/// The README's samples for processing in fetches, prefetching and data-only fetches, kept compiling and running
/// (each on an isolated configuration; the README lines themselves use only the public API).
@Suite("README examples: processing in fetches, prefetching, data-only fetches")
struct FetchingExtrasReadmeExampleTests {
    @Test("Processing in fetches, ImagePrefetcher, Data-only fetches")
    func samples() async throws {
        let server = TIPImageServer()
        try await server.start()
        defer { server.stop() }
        server.setImage(try DownloaderTestEnvironment.jpeg(width: 300, height: 200, seed: 11), at: "/avatar.jpg")
        server.setImage(try DownloaderTestEnvironment.jpeg(width: 200, height: 150, seed: 12), at: "/row.jpg")
        let (configuration, root) = try makeTestConfiguration()
        defer { try? FileManager.default.removeItem(at: root) }
        let pipeline = try ImagePipeline(checkedIdentifier: "readme-extras", configuration: configuration)
        let url = server.url(for: "/avatar.jpg")

        // Processing in fetches
        var request = GenericImageFetchRequest(
            imageURL: url, identifier: nil, targetDimensions: CGSize(width: 96, height: 96),
            targetContentMode: .scaleAspectFill)
        request.processors = [.cropToFill(), .circle()]
        request.options = [.storeProcessedImageToDiskCache]  // optional: keep the 96x96 avatar on disk too
        let avatar = try await pipeline.fetchImage(for: request)  // avatar.imageWasProcessed == true
        #expect(avatar.imageWasProcessed && avatar.imageContainer.dimensions == CGSize(width: 96, height: 96))

        // Prefetching
        struct Row { let request: GenericImageFetchRequest }
        let rowsAboutToAppear = [Row(request: GenericImageFetchRequest(imageURL: server.url(for: "/row.jpg")))]
        let rowsScrolledAway: [Row] = []
        let prefetcher = ImagePrefetcher(pipeline: pipeline, destination: .memoryCache, maxConcurrentPrefetchCount: 2)
        prefetcher.startPrefetching(with: rowsAboutToAppear.map(\.request))
        prefetcher.stopPrefetching(with: rowsScrolledAway.map(\.request))
        #expect(await eventually { prefetcher.runningCount == 0 && prefetcher.waitingCount == 0 })

        // Data-only fetches
        let bytes = try await pipeline.fetchImageData(for: GenericImageFetchRequest(imageURL: url))
        print(bytes.imageType ?? "unknown", bytes.data.count, bytes.imageSource)  // public.jpeg 48213 network
        #expect(bytes.imageType == .jpeg && bytes.imageSource == .memoryCache)
        #expect(server.requestCount(for: "/avatar.jpg") == 1 && server.requestCount(for: "/row.jpg") == 1)
    }
}
