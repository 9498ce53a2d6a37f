import Foundation
import Testing

@testable import TIP

@Suite("APNG encoding")
struct APNGEncoderTests {
    static func animation(alpha: Bool, gray: Bool = false, count: Int = 4) -> ImageContainer {
        let frames = (0..<count).map { index -> Bitmap in
            let base =
                alpha
                ? TestImages.translucent(width: 23, height: 17, seed: UInt64(index))
                : TestImages.photo(width: 23, height: 17, seed: UInt64(index + 1))
            return gray ? base.converted(to: .gray8) : base
        }
        return ImageContainer(
            animatedFrames: frames, frameDurations: [0.05, 0.1, 0.25, 2][..<count].map { $0 }, loopCount: 7)!
    }

    @Test("frames, delays and loop count round-trip", arguments: [false, true])
    func roundTrip(_ alpha: Bool) throws {
        let image = Self.animation(alpha: alpha)
        let data = try CodecCatalogue.shared.encodeImage(image, type: .png, quality: 1)
        #expect(PNGChunkList(data).indices(of: "fdAT").count == 3)
        let decoded = try PNGDecoder().decode(data, options: ImageDecodingOptions())
        #expect(decoded.frameCount == 4 && decoded.loopCount == 7 && !decoded.isPartial)
        #expect(decoded.frameDurations == [0.05, 0.1, 0.25, 2])
        for (original, back) in zip(image.frames, decoded.frames) {
            // Premultiplied alpha goes through straight alpha in the file: at most one step off.
            #expect(ImageComparison.maxDifference(original, back) <= (alpha ? 1 : 0))
        }
    }

    @Test("gray, interlaced and opaque-forced layouts stay animations")
    func layouts() throws {
        let gray = try PNGEncoder().encode(Self.animation(alpha: false, gray: true), options: [], quality: 1)
        #expect(PNGChunkList(gray).chunks[0].data[9] == 0)  // colour type 0: gray
        let interlaced = try PNGEncoder().encode(
            Self.animation(alpha: true), options: [.progressive, .noAlpha], quality: 1)
        let ihdr = PNGChunkList(interlaced).chunks[0].data
        #expect(ihdr[9] == 2 && ihdr[12] == 1)  // RGB, Adam7
        for data in [gray, interlaced] {
            let decoded = try PNGDecoder().decode(data, options: ImageDecodingOptions())
            #expect(decoded.frameCount == 4 && !decoded.isPartial)
        }
    }

    @Test("long delays, huge loop counts and odd-sized frames are written within APNG's fields")
    func limits() throws {
        #expect(APNGEncoder.delay(0.1) == (100, 1000))
        #expect(APNGEncoder.delay(65.535) == (65535, 1000))
        #expect(APNGEncoder.delay(100) == (10000, 100))
        #expect(APNGEncoder.delay(1e9) == (65535, 100))
        let frames = [TestImages.photo(width: 8, height: 8), TestImages.photo(width: 5, height: 3)]
        let image = try #require(
            ImageContainer(animatedFrames: frames, frameDurations: [0.1, 0.1], loopCount: 1_000_000))
        let decoded = try PNGDecoder().decode(
            try PNGEncoder().encode(image, options: [], quality: 1), options: ImageDecodingOptions())
        #expect(decoded.loopCount == Int(Int16.max))
        #expect(decoded.frames.allSatisfy { $0.width == 8 && $0.height == 8 })
    }

    @Test("a GIF animation re-encoded as APNG keeps its frames and timing")
    func fromGIF() throws {
        let gif = try GIFEncoder().encode(Self.animation(alpha: false, count: 3), options: [], quality: 1)
        let fromGIF = try GIFCodec().decoder.decode(gif, options: ImageDecodingOptions())
        let apng = try PNGEncoder().encode(fromGIF, options: [], quality: 1)
        let back = try PNGDecoder().decode(apng, options: ImageDecodingOptions())
        #expect(back.frameDurations == fromGIF.frameDurations && back.loopCount == fromGIF.loopCount)
        #expect(Array(back.frames) == Array(fromGIF.frames))
    }
}
