import Foundation
import Testing

@testable import TIP
@testable import TIPJPEG2000

@Suite("JPEG 2000 encoding")
struct JPEG2000RoundTripTests {
    let decoder = JPEG2000Codec().decoder

    @Test("Lossless round trips are exact: RGB, alpha, gray", arguments: ["photo.png", "alpha.png", "gray.png"])
    func lossless(source: String) throws {
        let bitmap = try JPEG2000TestFiles.source(source)
        let data = try JPEG2000TestFiles.encode(bitmap, quality: 1)
        #expect(ImageType.detect(fromMagicNumbers: data) == .match(.jpeg2000))
        let decoded = try decoder.decode(data, options: ImageDecodingOptions()).image
        #expect(decoded.format == bitmap.format)
        #expect(decoded == bitmap, "max difference \(PixelComparison.maximumDifference(decoded, bitmap))")
    }

    @Test("Lossy quality trades size for fidelity")
    func lossy() throws {
        let bitmap = try JPEG2000TestFiles.source("large.png")
        var previous: (size: Int, psnr: Double)?
        for quality: Float in [0.3, 0.6, 0.9] {
            let data = try JPEG2000TestFiles.encode(bitmap, quality: quality)
            let psnr = PixelComparison.psnr(try decoder.decode(data, options: ImageDecodingOptions()).image, bitmap)
            #expect(psnr > 28, "quality \(quality): PSNR \(psnr)")
            if let previous { #expect(data.count > previous.size && psnr > previous.psnr) }
            previous = (data.count, psnr)
        }
    }

    @Test("Options: grayscale writes one component, noAlpha drops alpha")
    func options() throws {
        let bitmap = try JPEG2000TestFiles.source("alpha.png")
        let gray = try decoder.decode(
            JPEG2000TestFiles.encode(bitmap, quality: 1, options: [.grayscale, .noAlpha]),
            options: ImageDecodingOptions()
        ).image
        #expect(gray.format == .gray8)
        let opaque = try decoder.decode(
            JPEG2000TestFiles.encode(bitmap, quality: 1, options: [.noAlpha]), options: ImageDecodingOptions()
        ).image
        #expect(opaque.format == .rgbx8)
    }

    @Test("Tiny images encode (fewer resolution levels) and decode", arguments: [(1, 1), (3, 2), (1, 40)])
    func tiny(width: Int, height: Int) throws {
        var bitmap = try #require(Bitmap(width: width, height: height, format: .rgbx8))
        bitmap.setPixel(x: 0, y: 0, SIMD4(200, 100, 50, 255))
        let decoded = try decoder.decode(JPEG2000TestFiles.encode(bitmap, quality: 1), options: ImageDecodingOptions())
            .image
        #expect(decoded == bitmap)
    }
}
