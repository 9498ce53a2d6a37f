import Foundation
import Testing

@testable import TIP
@testable import TIPHEIF

@Suite("HEIF encoding and capabilities")
struct HEIFRoundTripTests {
    @Test(
        "The codec answers for this libheif: decoders and encoders found at run time",
        arguments: HEIFCodec.Format.allCases)
    func capabilities(format: HEIFCodec.Format) {
        let codec = HEIFCodec(format: format)
        #expect(HEIFCodec.canDecode(format), "Debian's libheif decodes \(format)")
        #expect((codec.encoder != nil) == HEIFCodec.canEncode(format))
        var expected: ImageCodecProperties = [.decoding]
        if HEIFCodec.canEncode(format) { expected.insert(.encoding) }
        #expect(codec.properties == expected)
    }

    @Test(
        "Encode then decode: close to the source, alpha kept", arguments: HEIFCodec.Format.allCases,
        ["photo.png", "alpha.png"])
    func roundTrip(format: HEIFCodec.Format, source: String) throws {
        let codec = HEIFCodec(format: format)
        guard let encoder = codec.encoder else { return }  // this libheif cannot write the format (checked above)
        let bitmap = try HEIFTestFiles.source(source)
        let data = try encoder.encode(ImageContainer(image: bitmap), options: [], quality: 0.9)
        #expect(ImageType.detect(fromMagicNumbers: data) == .match(format.imageType))
        let decoded = try codec.decoder.decode(data, options: ImageDecodingOptions()).image
        #expect(decoded.format == bitmap.format)
        let psnr = HEIFTestFiles.psnr(decoded, bitmap)
        #expect(psnr > 30, "PSNR \(psnr)")
    }

    @Test("noAlpha drops alpha; odd sizes encode", arguments: HEIFCodec.Format.allCases)
    func options(format: HEIFCodec.Format) throws {
        let codec = HEIFCodec(format: format)
        guard let encoder = codec.encoder else { return }
        let bitmap = try HEIFTestFiles.source("alpha.png")
        let opaque = try codec.decoder.decode(
            encoder.encode(ImageContainer(image: bitmap), options: [.noAlpha], quality: 0.8),
            options: ImageDecodingOptions()
        ).image
        #expect(opaque.format == .rgbx8)
        var odd = try #require(Bitmap(width: 13, height: 7, format: .rgbx8))
        odd.setPixel(x: 12, y: 6, SIMD4(250, 250, 250, 255))
        let decoded = try codec.decoder.decode(
            encoder.encode(ImageContainer(image: odd), options: [], quality: 0.8), options: ImageDecodingOptions()
        ).image
        #expect(decoded.width == 13 && decoded.height == 7)
    }
}
