import COpenJPEG
import Foundation
import Testing

@testable import TIP
@testable import TIPJPEG2000

/// JP2 files whose colour space (`colr`), palette (`pclr` + `cmap`) or channel definitions (`cdef`)
/// OpenJPEG applies only while decoding (`Fixtures/colour/`, made by `make-colour-fixtures.py` there;
/// 16x12 pixels, lossless). The pixel layout is chosen from the decoded image, not from the header.
@Suite("JPEG 2000 colour spaces, palettes and channel definitions")
struct JPEG2000ColourTests {
    let decoder = JPEG2000Codec().decoder

    /// Fixture `colour/name` decoded in one shot with `options`.
    private func decode(_ name: String, options: ImageDecodingOptions = ImageDecodingOptions()) throws -> Bitmap {
        try decoder.decode(JPEG2000TestFiles.data("colour/\(name)"), options: options).image
    }

    /// Palette index of the fixtures' index plane at (x, y).
    private static func index(_ x: Int, _ y: Int) -> Int { (x * 11 + y * 17) & 0xFF }

    @Test(
        "sYCC (4:4:4 and 4:2:0) and e-sYCC decode to RGB, as opj_decompress converts them",
        arguments: ["sycc444", "sycc420", "esycc444"])
    func ycc(name: String) throws {
        let image = try decode("\(name).jp2")
        let expected = try JPEG2000TestFiles.source("colour/\(name).png")
        #expect(image.format == .rgbx8)
        #expect(image.width == 16 && image.height == 12)
        let difference = PixelComparison.maximumDifference(image, expected)
        #expect(difference <= 2, "max difference \(difference)")
    }

    @Test("Subsampled sYCC decoded at a reduced resolution is RGB, as opj_decompress -r 1 gives it")
    func yccReduced() throws {
        let options = ImageDecodingOptions(
            targetDimensions: CGSize(width: 8, height: 6), targetContentMode: .scaleToFill)
        let image = try decode("sycc420.jp2", options: options)
        #expect(image.format == .rgbx8 && image.width == 8 && image.height == 6)
        let difference = PixelComparison.maximumDifference(
            image, try JPEG2000TestFiles.source("colour/sycc420-half.png"))
        #expect(difference <= 2, "max difference \(difference)")
    }

    @Test("CMYK decodes to RGB as opj_decompress and Pillow do (R = 255 (1 - C) (1 - K), no Adobe inversion)")
    func cmyk() throws {
        let image = try decode("cmyk.jp2")
        #expect(image.format == .rgbx8)
        let difference = PixelComparison.maximumDifference(image, try JPEG2000TestFiles.source("colour/cmyk.png"))
        #expect(difference <= 1, "max difference \(difference)")
    }

    @Test("Alpha a cdef box marks premultiplied is kept as it is")
    func premultipliedAlpha() throws {
        let image = try decode("premultiplied.jp2")
        #expect(image.format == .rgba8Premultiplied)
        var mismatches = 0
        for y in 0..<image.height {
            for x in 0..<image.width {
                let alpha = (x * 18 + y * 5) % 256
                let color = (0..<3).map { UInt8(min((x * 31 + y * 7 + $0 * 80) % 256, alpha)) }
                if image.pixel(x: x, y: y) != SIMD4(color[0], color[1], color[2], UInt8(alpha)) { mismatches += 1 }
            }
        }
        #expect(mismatches == 0)
    }

    @Test("A palette (pclr + cmap) expands to RGB")
    func palette() throws {
        let image = try decode("palette.jp2")
        #expect(image.format == .rgbx8)
        var mismatches = 0
        for y in 0..<image.height {
            for x in 0..<image.width {
                let i = Self.index(x, y)
                if image.pixel(x: x, y: y) != SIMD4(UInt8(i), UInt8(255 - i), UInt8((3 * i) % 256), 255) {
                    mismatches += 1
                }
            }
        }
        #expect(mismatches == 0)
    }

    /// Three components in the codestream, a one-column palette and a one-channel mapping: one
    /// component after decoding. The layout chosen from the header read components that no longer
    /// existed (a heap over-read).
    @Test("A palette that leaves fewer components than the header shows decodes to gray")
    func paletteShrink() throws {
        let data = try JPEG2000TestFiles.data("colour/palette-shrink.jp2")
        let context = decoder.makeContext(expectedLength: data.count, options: ImageDecodingOptions())
        _ = try context.append(data)
        let rendered = try #require(
            try context.render(mode: .completeImage, targetDimensions: .zero, targetContentMode: .center))
        for image in [try decode("palette-shrink.jp2"), rendered.image] {
            #expect(image.format == .gray8)
            var mismatches = 0
            for y in 0..<image.height {
                for x in 0..<image.width where image.pixel(x: x, y: y)[0] != UInt8(255 - Self.index(x, y)) {
                    mismatches += 1
                }
            }
            #expect(mismatches == 0)
        }
        #expect(!context.hasAlpha)
    }

    @Test("Component layouts: a mismatch is a typed error, not a guess")
    func layouts() throws {
        // Two alpha components.
        #expect(throws: ImageDecodingError.unsupported("JPEG 2000 with 2 alpha components")) {
            try JPEG2000PixelConverter(componentCount: 4, alpha: [0, 0, 1, 1], colorSpace: OPJ_CLRSPC_SRGB)
        }
        // CMYK's K is colour, not alpha; CMYK with a cdef alpha is five components.
        let cmyk = try JPEG2000PixelConverter(componentCount: 4, alpha: [0, 0, 0, 0], colorSpace: OPJ_CLRSPC_CMYK)
        #expect(cmyk.colorModel == .cmyk && cmyk.alphaComponent == nil)
        let cmyka = try JPEG2000PixelConverter(componentCount: 5, alpha: [0, 0, 0, 0, 1], colorSpace: OPJ_CLRSPC_CMYK)
        #expect(cmyka.colorModel == .cmyk && cmyka.alphaComponent == 4 && !cmyka.isPremultiplied)
        // An alpha channel definition anywhere, premultiplied.
        let first = try JPEG2000PixelConverter(componentCount: 4, alpha: [2, 0, 0, 0], colorSpace: OPJ_CLRSPC_SRGB)
        #expect(first.colorComponents == [1, 2, 3] && first.alphaComponent == 0 && first.isPremultiplied)
        #expect(throws: ImageDecodingError.self) {
            try JPEG2000PixelConverter(componentCount: 4, alpha: [0, 0, 0, 1], colorSpace: OPJ_CLRSPC_CMYK)
        }
    }
}
