import Foundation
import TIP
import TIPAsyncHTTPClient
import TIPImageServer
import Testing

/// Fetches through an `ImagePipeline` whose downloads run on the provider: a decoded image, a cache hit, and a
/// download cut short that the next fetch resumes with a range request. Serialized: the provider is set on the
/// process-wide configuration.
@Suite("ImagePipeline on AsyncHTTPClientImageFetchDownloadProvider", .serialized)
final class AsyncHTTPClientPipelineTests: Sendable {
    static let root = FileManager.default.temporaryDirectory
        .appendingPathComponent("tip-ahc-tests-\(ProcessInfo.processInfo.processIdentifier)")

    /// A 640x480 JPEG of a pattern.
    let jpeg: Data

    static func makeJPEG() throws -> Data {
        var bitmap = try #require(Bitmap(width: 640, height: 480, format: .gray8))
        let rowBytes = bitmap.bytesPerRow
        bitmap.withUnsafeMutableBytes { bytes in
            for y in 0..<480 {
                for x in 0..<640 { bytes[y * rowBytes + x] = UInt8(truncatingIfNeeded: x ^ y) }
            }
        }
        return try CodecCatalogue.shared.encodeImage(ImageContainer(image: bitmap), type: .jpeg, quality: 0.9)
    }

    let server: TIPImageServer
    let pipeline: ImagePipeline
    /// This test's own pipeline (`<root>/TIPImagePipeline/<identifier>` on disk; the root is the suite's).
    let identifier = "ahc-" + UUID().uuidString.prefix(8).lowercased()

    init() throws {
        jpeg = try Self.makeJPEG()
        GlobalConfiguration.shared.cachesRootDirectory = Self.root
        GlobalConfiguration.shared.imageFetchDownloadProvider = AsyncHTTPClientImageFetchDownloadProvider()
        server = TIPImageServer()
        try server.start()
        pipeline = try ImagePipeline(checkedIdentifier: identifier)
    }

    deinit {
        server.stop()
        try? FileManager.default.removeItem(at: Self.root.appendingPathComponent("TIPImagePipeline/\(identifier)"))
    }

    @Test("a fetch downloads and decodes the image; the next one is a memory hit with no request")
    func fetchAndHit() async throws {
        server.setImage(jpeg, at: "/a.jpg", contentType: "image/jpeg")
        let request = GenericImageFetchRequest(imageURL: server.url(for: "/a.jpg"))
        let first = try await pipeline.fetchImage(for: request)
        #expect(first.imageSource == .network)
        #expect(first.imageContainer.dimensions == CGSize(width: 640, height: 480))
        let second = try await pipeline.fetchImage(for: request)
        #expect(second.imageSource == .memoryCache)
        #expect(server.requests(for: "/a.jpg").count == 1)
    }

    @Test("an HTTP error fails the fetch with a typed error")
    func httpError() async throws {
        server.setFault(.status(503, body: nil), for: "/b.jpg")
        let request = GenericImageFetchRequest(imageURL: server.url(for: "/b.jpg"))
        await #expect(throws: ImageFetchError.self) { try await pipeline.fetchImage(for: request) }
    }

    @Test("a download cut short is kept as a partial image, and the next fetch resumes it with a range request")
    func resume() async throws {
        server.setImage(jpeg, at: "/c.jpg", contentType: "image/jpeg")
        server.setFault(.dropConnection(afterBodyBytes: jpeg.count / 2), for: "/c.jpg")
        let request = GenericImageFetchRequest(imageURL: server.url(for: "/c.jpg"))
        await #expect(throws: (any Error).self) { try await pipeline.fetchImage(for: request) }
        server.setFault(nil, for: "/c.jpg")
        let result = try await pipeline.fetchImage(for: request)
        #expect(result.imageContainer.dimensions == CGSize(width: 640, height: 480))
        #expect(result.imageSource == .networkResumed)
        let requests = server.requests(for: "/c.jpg")
        #expect(requests.count == 2)
        #expect(requests.last?.header("Range") == "bytes=\(jpeg.count / 2)-")
        #expect(requests.last?.status == 206)
    }
}
