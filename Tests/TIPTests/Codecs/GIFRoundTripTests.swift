import Foundation
import Testing

@testable import TIP

/// Encoder → decoder round trips through giflib.
@Suite("GIF round trip")
struct GIFRoundTripTests {
    let codec = GIFCodec()

    func roundTrip(_ image: ImageContainer, options: ImageEncodingOptions = []) throws -> ImageContainer {
        let encoder = try #require(codec.encoder)
        let data = try encoder.encode(image, options: options, quality: 1)
        #expect(codec.decoder.detect(data, isComplete: true) == .match)
        return try codec.decoder.decode(data, options: ImageDecodingOptions())
    }

    /// An opaque image with exactly `colours` distinct colours.
    static func fewColours(width: Int, height: Int, colours: Int, seed: UInt64 = 3) -> Bitmap {
        var rng = SplitMix64(seed: seed)
        let palette: [SIMD4<UInt8>] = (0..<colours).map { _ in
            let v = rng.next()
            return SIMD4(UInt8(v & 0xFF), UInt8(v >> 8 & 0xFF), UInt8(v >> 16 & 0xFF), 255)
        }
        var bitmap = Bitmap(width: width, height: height, format: .rgbx8)!
        for y in 0..<height {
            for x in 0..<width { bitmap.setPixel(x: x, y: y, palette[(x * 7 + y * 13 + x * y) % colours]) }
        }
        return bitmap
    }

    @Test func codecProperties() {
        #expect(codec.isAnimated && codec.encoder != nil && codec.decoder.supportsProgressiveDecoding)
        #expect(codec.properties == [.decoding, .encoding, .animation, .progressive])
    }

    @Test func detection() {
        let d = codec.decoder
        #expect(d.detect(Data("GIF89a".utf8), isComplete: false) == .match)
        #expect(d.detect(Data("GIF87a\u{1}".utf8), isComplete: true) == .match)
        #expect(d.detect(Data("GIF8".utf8), isComplete: false) == .needMoreData)
        #expect(d.detect(Data("GIF8".utf8), isComplete: true) == .noMatch)
        #expect(d.detect(Data(), isComplete: false) == .needMoreData)
        #expect(d.detect(Data([0xFF, 0xD8, 0xFF]), isComplete: false) == .noMatch)
        #expect(d.detect(Data("GIF90a".utf8), isComplete: false) == .noMatch)
    }

    @Test(arguments: [PixelFormat.rgbx8, .rgba8Premultiplied, .gray8])
    func fewColoursRoundTripExactly(format: PixelFormat) throws {
        let source = Self.fewColours(width: 37, height: 23, colours: format == .gray8 ? 40 : 256).converted(to: format)
        let decoded = try roundTrip(ImageContainer(image: source))
        #expect(!decoded.isAnimated && !decoded.isPartial)
        #expect(decoded.image.format == .rgba8Premultiplied)
        #expect(ImageComparison.maxDifference(decoded.image, source) == 0)
    }

    @Test func photoIsQuantisedWell() throws {
        let source = TestImages.photo(width: 120, height: 80)
        let decoded = try roundTrip(ImageContainer(image: source))
        let psnr = ImageComparison.psnr(decoded.image, source)
        #expect(psnr > 30, "PSNR \(psnr) dB")
    }

    @Test func translucencyBecomesBinary() throws {
        let source = TestImages.translucent(width: 40, height: 30)
        let decoded = try roundTrip(ImageContainer(image: source)).image
        var opaque = 0
        for y in 0..<30 {
            for x in 0..<40 {
                let s = source.pixel(x: x, y: y), d = decoded.pixel(x: x, y: y)
                if s[3] < 128 {
                    #expect(d == SIMD4(0, 0, 0, 0))
                } else {
                    opaque += 1
                    #expect(d[3] == 255)
                    // Un-premultiplied source colour, within quantisation error.
                    for c in 0..<3 {
                        let expected = (Int(s[c]) * 255 + Int(s[3]) / 2) / Int(s[3])
                        #expect(abs(Int(d[c]) - expected) <= 24, "(\(x), \(y)) channel \(c): \(d[c]) vs \(expected)")
                    }
                }
            }
        }
        #expect(opaque > 100)
    }

    @Test func noAlphaOptionWritesOpaquePixels() throws {
        let source = TestImages.translucent(width: 20, height: 20)
        let decoded = try roundTrip(ImageContainer(image: source), options: [.noAlpha]).image
        #expect(!decoded.containsTransparency())
    }

    @Test func grayscaleOptionWritesGray() throws {
        let decoded = try roundTrip(
            ImageContainer(image: TestImages.photo(width: 30, height: 20)), options: [.grayscale]
        ).image
        for y in 0..<20 {
            for x in 0..<30 {
                let p = decoded.pixel(x: x, y: y)
                #expect(p[0] == p[1] && p[1] == p[2])
            }
        }
    }

    @Test(arguments: [0, 1, 3, 65535])
    func animationRoundTrips(loopCount: Int) throws {
        let frames = [
            TestImages.solid(width: 16, height: 12, [255, 0, 0, 255]),
            Self.fewColours(width: 16, height: 12, colours: 100, seed: 9).converted(to: .rgba8Premultiplied),
            TestImages.solid(width: 16, height: 12, [0, 0, 0, 0]),
            TestImages.solid(width: 16, height: 12, [0, 0, 255, 255]),
        ]
        let durations: [TimeInterval] = [0.05, 0.234, 1.0, 0.001]
        let source = try #require(
            ImageContainer(animatedFrames: frames, frameDurations: durations, loopCount: loopCount))
        let decoded = try roundTrip(source)
        #expect(decoded.frameCount == 4 && !decoded.isPartial)
        #expect(decoded.loopCount == loopCount)
        // 0.001 s is written as the minimum delay of 2 centiseconds.
        let expected: [TimeInterval] = [0.05, 0.23, 1.0, 0.02]
        for (a, b) in zip(decoded.frameDurations, expected) { #expect(abs(a - b) < 1e-9) }
        for (a, b) in zip(decoded.frames, frames) { #expect(ImageComparison.maxDifference(a, b) == 0) }
    }

    @Test func transparentFramesDoNotShowEarlierFrames() throws {
        var second = TestImages.solid(width: 4, height: 4, [0, 0, 0, 0])
        second.setPixel(x: 1, y: 1, [0, 255, 0, 255])
        let source = try #require(
            ImageContainer(
                animatedFrames: [TestImages.solid(width: 4, height: 4, [255, 0, 0, 255]), second],
                frameDurations: [0.1, 0.1], loopCount: 0))
        let decoded = try roundTrip(source)
        #expect(ImageComparison.maxDifference(decoded.frames[1], second) == 0)
    }

    @Test func framesOfOtherSizesAreResampled() throws {
        let source = try #require(
            ImageContainer(
                animatedFrames: [
                    TestImages.solid(width: 8, height: 8, [255, 0, 0, 255]),
                    TestImages.solid(width: 4, height: 4, [0, 0, 255, 255]),
                ],
                frameDurations: [0.1, 0.1], loopCount: 0))
        let decoded = try roundTrip(source)
        #expect(decoded.frames[1].width == 8 && decoded.frames[1].pixel(x: 7, y: 7) == SIMD4(0, 0, 255, 255))
    }

    @Test func tooLargeImagesAreRefused() throws {
        let wide = try #require(Bitmap(width: 70000, height: 1, format: .gray8))
        let encoder = try #require(codec.encoder)
        #expect(throws: PipelineError.self) { try encoder.encode(ImageContainer(image: wide), options: [], quality: 1) }
    }

    @Test func catalogueUsesTheCodec() throws {
        let data = try CodecCatalogue.shared.encodeImage(
            ImageContainer(image: TestImages.photo(width: 10, height: 10)), type: .gif, quality: 1)
        let (image, type) = try CodecCatalogue.shared.decodeImage(data)
        #expect(type == .gif && image.dimensions == CGSize(width: 10, height: 10))
    }
}
