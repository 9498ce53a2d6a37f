import Foundation
import Testing

@testable import TIP
@testable import TIPHEIF

@Suite("HEIF decoding (HEIC and AVIF)")
struct HEIFDecodeTests {
    @Test("Opaque stills decode close to their source, as rgbx8", arguments: ["photo.heic", "photo.avif"])
    func opaque(file: String) throws {
        let image = try HEIFTestFiles.decoder(for: file).decode(
            HEIFTestFiles.data(file), options: ImageDecodingOptions())
        #expect(!image.isPartial && image.image.format == .rgbx8)
        let psnr = HEIFTestFiles.psnr(image.image, try HEIFTestFiles.source("photo.png"))
        #expect(psnr > 30, "PSNR \(psnr)")
        // rgbx8's fourth byte is 255 everywhere.
        image.image.withUnsafeBytes { bytes in
            for y in 0..<image.image.height { #expect(bytes[y * image.image.bytesPerRow + 3] == 255) }
        }
    }

    @Test("Alpha comes back premultiplied", arguments: ["alpha.heic", "alpha.avif"])
    func alpha(file: String) throws {
        let image = try HEIFTestFiles.decoder(for: file).decode(
            HEIFTestFiles.data(file), options: ImageDecodingOptions()
        ).image
        #expect(image.format == .rgba8Premultiplied)
        #expect(image.pixel(x: 0, y: 0)[3] < 8)
        let pixel = image.pixel(x: 60, y: 40)
        #expect(abs(Int(pixel[3]) - 128) < 8 && pixel[0] <= pixel[3] && pixel[1] <= pixel[3] && pixel[2] <= pixel[3])
        let psnr = HEIFTestFiles.psnr(image, try HEIFTestFiles.source("alpha.png"))
        #expect(psnr > 28, "PSNR \(psnr)")
    }

    @Test(
        "irot and imir are applied: the image comes back as displayed",
        arguments: [
            ("rotated.heic", "photo.png", ImageOrientation.right), ("mirrored.heic", "photo.png", .upMirrored),
            ("rotated.avif", "photo.png", .right), ("mirrored.avif", "photo.png", .downMirrored),
            ("alpha-rotated.heic", "alpha.png", .left),
        ])
    func orientation(file: String, source: String, orientation: ImageOrientation) throws {
        let image = try HEIFTestFiles.decoder(for: file).decode(
            HEIFTestFiles.data(file), options: ImageDecodingOptions()
        ).image
        let expected = try HEIFTestFiles.source(source).applyingOrientation(orientation)
        #expect(image.width == expected.width && image.height == expected.height)
        let psnr = HEIFTestFiles.psnr(image, expected)
        #expect(psnr > 28, "PSNR \(psnr)")
        // Not the stored picture: a mirror that was not applied would fail here (rotations already
        // change the dimensions).
        if !orientation.swapsDimensions {
            #expect(HEIFTestFiles.psnr(image, try HEIFTestFiles.source(source)) < 20)
        }
    }

    @Test("A target smaller than an embedded thumbnail decodes the thumbnail")
    func thumbnail() throws {
        let data = try HEIFTestFiles.data("thumbnail.heic")
        let small = ImageDecodingOptions(
            targetDimensions: CGSize(width: 100, height: 100), targetContentMode: .scaleAspectFit)
        let plan = try data.withUnsafeBytes { try HEIFDecoding.plan($0, options: small) }
        #expect(plan.usesThumbnail && plan.source.width == 160 && plan.source.height == 120)
        let image = try HEIFTestFiles.decoder(for: "x.heic").decode(data, options: small).image
        #expect(image.width == 100 && image.height == 75)
        let reference = Resampler.resample(try HEIFTestFiles.source("large.png"), width: 100, height: 75)
        #expect(HEIFTestFiles.psnr(image, reference) > 24)
        // 300 pixels wide needs more than the 160-pixel thumbnail: the primary image.
        let large = ImageDecodingOptions(
            targetDimensions: CGSize(width: 300, height: 300), targetContentMode: .scaleAspectFit)
        #expect(try !data.withUnsafeBytes { try HEIFDecoding.plan($0, options: large) }.usesThumbnail)
        #expect(try !data.withUnsafeBytes { try HEIFDecoding.plan($0, options: ImageDecodingOptions()) }.usesThumbnail)
        let full = try HEIFTestFiles.decoder(for: "x.heic").decode(data, options: large).image
        #expect(full.width == 300 && full.height == 225)
    }

    @Test("A thumbnail whose size the writer rounded (100x66 for 100x67.2) still counts as the same picture")
    func roundedThumbnail() throws {
        let data = try HEIFTestFiles.data("thumbnail-rounded.heic")
        let options = ImageDecodingOptions(
            targetDimensions: CGSize(width: 80, height: 80), targetContentMode: .scaleAspectFit)
        let plan = try data.withUnsafeBytes { try HEIFDecoding.plan($0, options: options) }
        #expect(plan.usesThumbnail && plan.source.width == 100 && plan.source.height == 66)
        let image = try HEIFTestFiles.decoder(for: "x.heic").decode(data, options: options).image
        #expect(image.width == 80 && image.height == 54)
    }

    @Test("Type detection: magic numbers, each format's decoder, TIP's type strings")
    func detection() throws {
        let heic = try HEIFTestFiles.data("photo.heic"), avif = try HEIFTestFiles.data("photo.avif")
        #expect(ImageType.detect(fromMagicNumbers: heic) == .match(.heic))
        #expect(ImageType.detect(fromMagicNumbers: avif) == .match(.avif))
        #expect(ImageType.heic.rawValue == "public.heic" && ImageType.avif.rawValue == "public.avif")
        let heicDecoder = HEIFCodec(format: .heic).decoder, avifDecoder = HEIFCodec(format: .avif).decoder
        #expect(
            heicDecoder.detect(heic, isComplete: true) == .match
                && heicDecoder.detect(avif, isComplete: true) == .noMatch)
        #expect(
            avifDecoder.detect(avif, isComplete: true) == .match
                && avifDecoder.detect(heic, isComplete: true) == .noMatch)
        #expect(heicDecoder.detect(heic.prefix(10), isComplete: false) == .needMoreData)
        #expect(heicDecoder.detect(heic.prefix(10), isComplete: true) == .noMatch)
        #expect(heicDecoder.detect(try HEIFTestFiles.data("photo.png"), isComplete: false) == .noMatch)
    }
}
