import Foundation
import Testing

@testable import TIP
@testable import TIPHEIF

/// 10- and 12-bit HEIC and AVIF, which libheif 1.15 hands back as deep planes (they failed as
/// `corruptData("libheif returned no usable pixel planes")`).
///
/// `Fixtures/deep/` holds `photo.png` and `alpha.png` with every sample times 257 (16-bit PNGs, so
/// `heif-enc` keeps the depth asked for) encoded by libheif 1.15's `heif-enc` (libheif-examples):
/// `-b 10 -q 90` to `photo10.heic`, `-b 10 -q 90 -t 32` to `alpha10.heic` (with a 32x24 thumbnail),
/// `-A -b 12 -q 90` to `photo12.avif` and `alpha12.avif`. The plug-in's own encoder writes 8 bits only.
@Suite("HEIF decoding of 10- and 12-bit images")
struct HEIFDeepTests {
    /// Each deep file and the 8-bit picture it was made from.
    static let files = [
        ("deep/photo10.heic", "photo.png"), ("deep/photo12.avif", "photo.png"),
        ("deep/alpha10.heic", "alpha.png"), ("deep/alpha12.avif", "alpha.png"),
    ]

    @Test("Deep stills decode to 8 bits close to their source", arguments: files)
    func fullSize(file: String, source: String) throws {
        let image = try HEIFTestFiles.decoder(for: file).decode(
            HEIFTestFiles.data(file), options: ImageDecodingOptions()
        ).image
        let expected = try HEIFTestFiles.source(source)
        #expect(image.format == (source == "alpha.png" ? .rgba8Premultiplied : .rgbx8))
        #expect(image.width == expected.width && image.height == expected.height)
        let psnr = HEIFTestFiles.psnr(image, expected)
        #expect(psnr > 40, "PSNR \(psnr)")
    }

    @Test("Deep stills decode at reduced target sizes (the thumbnail too, when it is deep)", arguments: files)
    func reduced(file: String, source: String) throws {
        let data = try HEIFTestFiles.data(file)
        let options = ImageDecodingOptions(
            targetDimensions: CGSize(width: 32, height: 32), targetContentMode: .scaleAspectFit)
        let plan = try data.withUnsafeBytes { try HEIFDecoding.plan($0, options: options) }
        #expect(plan.usesThumbnail == (file == "deep/alpha10.heic"))
        let image = try HEIFTestFiles.decoder(for: file).decode(data, options: options).image
        #expect(plan.final.width == 32 && image.width == 32 && image.height == plan.final.height)
        let reference = Resampler.resample(try HEIFTestFiles.source(source), width: 32, height: plan.final.height)
        // heif-enc made the 32x24 thumbnail with its own scaling: pillow-heif's decoding of it is 23.9 dB
        // from this reference too.
        let psnr = HEIFTestFiles.psnr(image, reference)
        #expect(psnr > (plan.usesThumbnail ? 22 : 40), "PSNR \(psnr)")
    }

    @Test("Deep samples scale to 8 bits rounded; values past the depth's maximum become 255")
    func narrowing() {
        // Two rows of 10-bit samples, 4 bytes of padding after each.
        let samples: [UInt16] = [0, 1, 3, 512, 0, 0, 1019, 1022, 1023, 4095, 0, 0]
        let narrowed = samples.withUnsafeBytes { bytes in
            HEIFDeepPlane.narrow(
                bytes.baseAddress!.assumingMemoryBound(to: UInt8.self), stride: 12, width: 4, height: 2, bits: 10)
        }
        defer { narrowed.deallocate() }
        #expect(Array(UnsafeBufferPointer(start: narrowed, count: 8)) == [0, 0, 1, 128, 254, 255, 255, 255])
    }
}
