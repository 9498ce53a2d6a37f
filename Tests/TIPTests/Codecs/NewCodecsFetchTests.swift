import Foundation
import Testing
@testable import TIP
import TIPImageServer

/// The new formats through a whole fetch: the embedded server, the downloader's header reader, the
/// partial image and the final decode at the target size.
@Suite("New codecs through the pipeline")
struct NewCodecsFetchTests {
    @Test("TIFF, BMP, TGA and ICO files fetch to their target size and are cached")
    func stillFormats() async throws {
        let env = try await DownloaderTestEnvironment()
        let files = ["tiff/rgba8-tiled.tif", "bmp/rle8.bmp", "tga/rgba32-rle-topleft.tga", "ico/png-entries.ico", "tiff/orientation6.tif"]
        let target = CGSize(width: 10, height: 10)
        for (index, path) in files.enumerated() {
            let data = try CodecFixtureFiles.data(path)
            env.server.setImage(data, at: "/still-\(index)")
            env.server.setThrottle(.init(bytesPerSecond: 1_000_000, chunkSize: 64), for: "/still-\(index)")
            let expected = try CodecCatalogue.shared.decodeImage(data, options: ImageDecodingOptions(targetDimensions: target,
                                                                                                    targetContentMode: .scaleAspectFit)).container
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

    @Test("an APNG delivers its first frame once while bytes arrive, then the whole animation")
    func firstAnimatedFrame() async throws {
        let env = try await DownloaderTestEnvironment()
        let frames = (0..<6).map { TestImages.photo(width: 160, height: 120, format: .rgba8Premultiplied, seed: UInt64($0 + 1)) }
        let animation = try #require(ImageContainer(animatedFrames: frames, frameDurations: Array(repeating: 0.1, count: 6), loopCount: 0))
        let apng = try CodecCatalogue.shared.encodeImage(animation, type: .png, quality: 1)
        env.server.setImage(apng, at: "/anim.png")
        env.server.setThrottle(.init(bytesPerSecond: max(40_000, apng.count), chunkSize: max(1024, apng.count / 12)), for: "/anim.png")
        let delegate = ProgressiveRecordingDelegate(optIn: false)
        let operation = env.pipeline.operation(with: GenericImageFetchRequest(imageURL: env.server.url(for: "/anim.png")), delegate: delegate)
        env.pipeline.fetchImage(with: operation)
        #expect(await eventually { operation.isFinished })
        #expect(delegate.firstFrames.withLock { $0 } == [CGSize(width: 160, height: 120)])
        #expect(delegate.order.withLock { $0 } == ["first-frame", "final"])
        let final = try #require(delegate.final.withLock { $0 })
        #expect(final.imageContainer.frameCount == 6)
        #expect(Array(final.imageContainer.frames) == frames)
        await env.tearDown()
    }
}
