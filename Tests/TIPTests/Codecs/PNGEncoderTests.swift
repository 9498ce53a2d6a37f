import Foundation
import Testing

@testable import TIP

@Suite("PNG encoding")
struct PNGEncoderTests {
    let encoder = PNGEncoder()
    let decoder = PNGDecoder()

    /// The IHDR colour type and interlace byte of an encoded PNG.
    func layout(_ png: Data) -> (colorType: UInt8, interlaced: Bool) {
        (png[png.startIndex + 25], png[png.startIndex + 28] == 1)
    }

    func roundTrip(_ bitmap: Bitmap, options: ImageEncodingOptions = []) throws -> (Data, Bitmap) {
        let png = try encoder.encode(ImageContainer(image: bitmap), options: options, quality: 0.3)
        let decoded = try decoder.decode(png, options: ImageDecodingOptions())
        #expect(!decoded.isPartial)
        return (png, decoded.image)
    }

    @Test("opaque colour round-trips exactly as RGB", arguments: [false, true])
    func opaque(_ interlaced: Bool) throws {
        let photo = TestImages.photo(width: 37, height: 29)
        let (png, decoded) = try roundTrip(photo, options: interlaced ? [.progressive] : [])
        #expect(layout(png) == (2, interlaced))
        #expect(decoded.format == .rgbx8)
        #expect(decoded == photo)
    }

    @Test("premultiplied alpha round-trips exactly as RGBA", arguments: [false, true])
    func translucent(_ interlaced: Bool) throws {
        let image = TestImages.translucent(width: 33, height: 21)
        let (png, decoded) = try roundTrip(image, options: interlaced ? [.progressive] : [])
        #expect(layout(png) == (6, interlaced))
        #expect(decoded.format == .rgba8Premultiplied)
        #expect(decoded == image)
    }

    @Test("RGBA without a transparent pixel is written as RGB")
    func opaqueRGBA() throws {
        let image = TestImages.photo(width: 10, height: 10, format: .rgba8Premultiplied)
        let (png, decoded) = try roundTrip(image)
        #expect(layout(png).colorType == 2)
        #expect(decoded.format == .rgbx8)
        #expect(ImageComparison.maxDifference(decoded, image) == 0)
    }

    @Test("gray round-trips exactly")
    func gray() throws {
        let image = TestImages.photo(width: 20, height: 15, format: .gray8)
        let (png, decoded) = try roundTrip(image, options: [.progressive])
        #expect(layout(png) == (0, true))
        #expect(decoded == image)
    }

    @Test("noAlpha flattens onto black, grayscale writes gray")
    func options() throws {
        let image = TestImages.translucent(width: 16, height: 16)
        let (flatPNG, flat) = try roundTrip(image, options: [.noAlpha])
        #expect(layout(flatPNG).colorType == 2)
        #expect(flat == image.converted(to: .rgbx8))
        let (grayPNG, gray) = try roundTrip(TestImages.photo(width: 16, height: 16), options: [.grayscale])
        #expect(layout(grayPNG).colorType == 0)
        #expect(gray == TestImages.photo(width: 16, height: 16).converted(to: .gray8))
        let (grayAlphaPNG, grayAlpha) = try roundTrip(image, options: [.grayscale])
        #expect(layout(grayAlphaPNG).colorType == 4)
        #expect(grayAlpha.format == .rgba8Premultiplied)
        #expect(grayAlpha.pixel(x: 8, y: 8)[3] == image.pixel(x: 8, y: 8)[3])
    }

    @Test("an animation is written as APNG, whose default image is the first frame")
    func animation() throws {
        let first = TestImages.solid(width: 4, height: 4, SIMD4(255, 0, 0, 255), format: .rgbx8)
        let second = TestImages.solid(width: 4, height: 4, SIMD4(0, 0, 255, 255), format: .rgbx8)
        let container = try #require(
            ImageContainer(animatedFrames: [first, second], frameDurations: [0.1, 0.1], loopCount: 0))
        let png = try encoder.encode(container, options: [], quality: 1)
        let decoded = try decoder.decode(png, options: ImageDecodingOptions())
        #expect(decoded.frameCount == 2 && decoded.image == first.converted(to: .rgba8Premultiplied))
        let still = try png.withUnsafeBytes {
            try PNGDecoder.decode($0, options: ImageDecodingOptions(), allowsAnimation: false)
        }
        #expect(still.image == first)
    }

    @Test("the codec and catalogue expose the encoder")
    func codec() throws {
        let codec = PNGCodec()
        #expect(codec.properties == [.decoding, .encoding, .animation, .progressive])
        let png = try CodecCatalogue(codecs: [.png: codec]).encodeImage(
            ImageContainer(image: TestImages.photo(width: 8, height: 8)), type: .png, quality: 1)
        #expect(PNGDecoder().detect(png, isComplete: true) == .match)
    }
}
