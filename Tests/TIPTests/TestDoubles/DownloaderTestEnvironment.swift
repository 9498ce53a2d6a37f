import Foundation
import TIPImageServer

@testable import TIP

#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// An isolated configuration, pipeline and embedded image server for downloader tests.
final class DownloaderTestEnvironment: PipelineTestEnvironment, Sendable {
    let configuration: GlobalConfiguration
    let root: URL
    let server: TIPImageServer
    let pipeline: ImagePipeline

    init(_ name: String = #function) async throws {
        let (configuration, root) = try makeTestConfiguration(name)
        self.configuration = configuration
        self.root = root
        server = TIPImageServer()
        try await server.start()
        let identifier = "dl-" + UUID().uuidString.prefix(8).lowercased()
        guard let pipeline = ImagePipeline(identifier: identifier, configuration: configuration) else {
            throw POSIXError(.EEXIST)
        }
        self.pipeline = pipeline
        pipeline.diskCache.waitUntilManifestLoaded()
    }

    /// Stops the server and deletes the temporary directory.
    func tearDown() async {
        await server.stop()
        try? FileManager.default.removeItem(at: root)
    }

    /// A request for `path` on the server, cached in the pipeline unless `cached` is false.
    func request(_ path: String, cached: Bool = true, identifier: String? = nil) -> ImageDownloadRequest {
        ImageDownloadRequest(url: server.url(for: path), identifier: identifier, pipeline: cached ? pipeline : nil)
    }

    /// A generated JPEG of roughly `width` x `height` (distinct per `seed`).
    static func jpeg(width: Int = 640, height: Int = 480, progressive: Bool = false, seed: UInt64 = 1) throws -> Data {
        try JPEGTestSupport.jpeg(width: width, height: height, progressive: progressive, seed: seed).data
    }
}
