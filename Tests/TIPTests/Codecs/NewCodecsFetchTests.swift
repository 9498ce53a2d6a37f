import Foundation
import TIPImageServer
import Testing

@testable import TIP

/// The new formats through a whole fetch: the embedded server, the downloader's header reader, the
/// partial image and the final decode at the target size. (An APNG's first frame through a fetch:
/// `ImageFetchProgressiveTests`.)
@Suite("New codecs through the pipeline")
struct NewCodecsFetchTests {
    @Test("TIFF, BMP, TGA and ICO files fetch to their target size and are cached")
    func stillFormats() async throws {
        let env = try await DownloaderTestEnvironment()
        let files = [
            "tiff/rgba8-tiled.tif", "bmp/rle8.bmp", "tga/rgba32-rle-topleft.tga", "ico/png-entries.ico",
            "tiff/orientation6.tif",
        ]
        let target = CGSize(width: 10, height: 10)
        for (index, path) in files.enumerated() {
            let data = try CodecFixtureFiles.data(path)
            env.server.setImage(data, at: "/still-\(index)")
            env.server.setThrottle(.init(bytesPerSecond: 1_000_000, chunkSize: 64), for: "/still-\(index)")
            let expected = try CodecCatalogue.shared.decodeImage(
                data,
                options: ImageDecodingOptions(
                    targetDimensions: target,
                    targetContentMode: .scaleAspectFit)
            ).container
            var request = GenericImageFetchRequest(imageURL: env.server.url(for: "/still-\(index)"))
            request.targetDimensions = target
            request.targetContentMode = .scaleAspectFit
            let result = try await env.pipeline.fetchImage(for: request)
            #expect(result.imageContainer.image == expected.image, "\(path)")
            #expect(result.imageSource == .network, "\(path)")
            let again = try await env.pipeline.fetchImage(for: request)
            #expect(again.imageSource != .network, "\(path)")
            #expect(again.imageContainer.image == expected.image, "\(path)")
        }
        await env.tearDown()
    }
}
