import Foundation
import Testing

@testable import TIP
@testable import TIPJPEG2000

@Suite("JPEG 2000 decoding")
struct JPEG2000DecodeTests {
    let decoder = JPEG2000Codec().decoder

    @Test(
        "Lossless files decode to exactly the pixels they were made from",
        arguments: [("photo-lossless.jp2", "photo.png"), ("photo.j2k", "photo.png"), ("alpha.jp2", "alpha.png")])
    func lossless(file: String, source: String) throws {
        let image = try decoder.decode(JPEG2000TestFiles.data(file), options: ImageDecodingOptions())
        let expected = try JPEG2000TestFiles.source(source)
        #expect(!image.isPartial)
        #expect(image.image.format == expected.format)
        #expect(image.image == expected, "max difference \(PixelComparison.maximumDifference(image.image, expected))")
    }

    @Test("Gray files decode to gray8, 16-bit ones scaled to 8 bits")
    func gray() throws {
        let expected = try JPEG2000TestFiles.source("gray.png")
        for file in ["gray.jp2", "gray16.jp2"] {
            let image = try decoder.decode(JPEG2000TestFiles.data(file), options: ImageDecodingOptions()).image
            #expect(image.format == .gray8, "\(file)")
            #expect(image == expected, "\(file): max difference \(PixelComparison.maximumDifference(image, expected))")
        }
    }

    @Test("Alpha comes back premultiplied, with transparent pixels")
    func alpha() throws {
        let image = try decoder.decode(JPEG2000TestFiles.data("alpha.jp2"), options: ImageDecodingOptions()).image
        #expect(image.format == .rgba8Premultiplied)
        #expect(image.pixel(x: 0, y: 0) == SIMD4(0, 0, 0, 0))
        let half = image.pixel(x: 60, y: 40)
        #expect(half[3] == 128 && half[0] <= 128 && half[1] <= 128 && half[2] <= 128)
    }

    @Test("A lossy file is close to its source")
    func lossy() throws {
        let image = try decoder.decode(JPEG2000TestFiles.data("photo-lossy.jp2"), options: ImageDecodingOptions()).image
        let psnr = PixelComparison.psnr(image, try JPEG2000TestFiles.source("photo.png"))
        #expect(psnr > 30, "PSNR \(psnr)")
    }

    @Test("Discarded resolution levels: the most that keep the image at least as large as the target")
    func resolutionSelection() {
        func levels(
            _ width: Int, _ height: Int, target: CGSize, mode: ContentMode = .scaleAspectFit, available: Int = 6
        ) -> Int {
            let options = ImageDecodingOptions(targetDimensions: target, targetContentMode: mode)
            return JPEG2000ResolutionSelection(
                x0: 0, y0: 0, x1: width, y1: height, resolutionLevels: available, options: options
            ).discardedLevels
        }
        #expect(levels(640, 480, target: CGSize(width: 100, height: 100)) == 2)  // 160x120 ≥ 100x75 > 80x60
        #expect(levels(640, 480, target: CGSize(width: 160, height: 160)) == 2)  // exactly 160x120
        #expect(levels(640, 480, target: CGSize(width: 161, height: 161)) == 1)
        #expect(levels(640, 480, target: CGSize(width: 10, height: 10)) == 5)  // all levels there are
        #expect(levels(640, 480, target: CGSize(width: 10, height: 10), available: 3) == 2)
        #expect(levels(640, 480, target: .zero) == 0)
        #expect(levels(640, 480, target: CGSize(width: 100, height: 100), mode: .center) == 0)
        // rounds up: ceil(641/8) x ceil(481/8) = 81x61
        #expect(levels(641, 481, target: CGSize(width: 81, height: 81)) == 3)
        // 108x81 needs 161x121
        #expect(levels(641, 481, target: CGSize(width: 81, height: 81), mode: .scaleAspectFill) == 2)
        // An image area that does not start at the grid's origin.
        let offset = JPEG2000ResolutionSelection(
            x0: 3, y0: 3, x1: 643, y1: 483, resolutionLevels: 6,
            options: ImageDecodingOptions(
                targetDimensions: CGSize(width: 160, height: 120), targetContentMode: .scaleAspectFit))
        // ceil(643/4) - ceil(3/4) = 160 and ceil(483/4) - 1 = 120; one more is 80x60
        #expect(offset.discardedLevels == 2)
    }

    @Test(
        "Decoding to a target size gives TIP's exact dimensions and looks like the source scaled",
        arguments: [
            (CGSize(width: 100, height: 100), ContentMode.scaleAspectFit, 100, 75),
            (CGSize(width: 200, height: 200), .scaleAspectFill, 267, 200),
            (CGSize(width: 33, height: 17), .scaleToFill, 33, 17),
        ])
    func scaled(target: CGSize, mode: ContentMode, width: Int, height: Int) throws {
        let options = ImageDecodingOptions(targetDimensions: target, targetContentMode: mode)
        let image = try decoder.decode(JPEG2000TestFiles.data("large.jp2"), options: options).image
        #expect(image.width == width && image.height == height)
        let reference = Resampler.resample(try JPEG2000TestFiles.source("large.png"), width: width, height: height)
        let psnr = PixelComparison.psnr(image, reference)
        #expect(psnr > 28, "PSNR \(psnr)")
    }

    @Test("Type detection by magic number and by the decoder")
    func detection() throws {
        for file in ["photo-lossless.jp2", "photo.j2k"] {
            let data = try JPEG2000TestFiles.data(file)
            #expect(ImageType.detect(fromMagicNumbers: data) == .match(.jpeg2000))
            #expect(decoder.detect(data, isComplete: true) == .match)
            #expect(decoder.detect(data.prefix(3), isComplete: false) == .needMoreData)
            #expect(decoder.detect(data.prefix(3), isComplete: true) == .noMatch)
        }
        let png = try JPEG2000TestFiles.data("photo.png")
        #expect(decoder.detect(png, isComplete: true) == .noMatch)
    }
}
