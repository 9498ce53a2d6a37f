import Foundation
import Testing

@testable import TIP

@Suite("BMP codec")
struct BMPCodecTests {
    let codec = BMPCodec()

    @Test("capabilities and detection")
    func capabilities() throws {
        #expect(codec.properties == [.decoding, .encoding])
        #expect(CodecCatalogue.shared.properties(for: .bmp) == [.decoding, .encoding])
        let data = try CodecFixtureFiles.data("bmp/rgb24.bmp")
        #expect(CodecCatalogue.shared.detectImageType(data, isComplete: true) == .bmp)
        #expect(codec.decoder.detect(data.prefix(1), isComplete: false) == .needMoreData)
        #expect(codec.decoder.detect(Data("BA".utf8), isComplete: true) == .noMatch)
    }

    @Test(
        "round trip: 24-bit opaque, 32-bit V4 with alpha, 8-bit gray",
        arguments: [PixelFormat.rgbx8, .rgba8Premultiplied, .gray8])
    func roundTrip(_ format: PixelFormat) throws {
        let source =
            format == .rgba8Premultiplied
            ? TestImages.translucent(width: 33, height: 19)
            : TestImages.photo(width: 33, height: 19).converted(to: format)
        let data = try codec.encoder!.encode(ImageContainer(image: source), options: [], quality: 1)
        let bits = Int(data[28]) | Int(data[29]) << 8
        let headerSize = Int(data[14])
        #expect(bits == (format == .gray8 ? 8 : format == .rgbx8 ? 24 : 32))
        #expect(headerSize == (format == .rgba8Premultiplied ? 108 : 40))
        let decoded = try codec.decoder.decode(data, options: ImageDecodingOptions()).image
        #expect(decoded.format == format)
        #expect(ImageComparison.maxDifference(decoded, source) <= (format == .rgba8Premultiplied ? 1 : 0))
        // Pillow-compatible layout: the file size field matches.
        #expect(Int(data[2]) | Int(data[3]) << 8 | Int(data[4]) << 16 == data.count)
    }

    @Test("RLE deltas and early line ends leave transparent pixels; running past the row is clipped")
    func runLengthEscapes() throws {
        // 4x3 RLE8, palette: 1 red, 2 green. Bottom row: 2 red then end of line. Middle row: delta (+1, +0),
        // 2 green, end of line. Top row: an absolute run of 3 (padded), then 9 red (clipped), end of bitmap.
        let pixels: [UInt8] = [2, 1, 0, 0, 0, 2, 1, 0, 2, 2, 0, 0, 0, 3, 2, 1, 2, 0, 9, 1, 0, 1]
        var table = [UInt8](repeating: 0, count: 12)
        table[4..<8] = [0, 0, 255, 0]
        table[8..<12] = [0, 255, 0, 0]
        let data = BMPCodecTests.file(
            width: 4, height: 3, bits: 8, compression: 1, colors: 3, table: table, pixels: pixels)
        let image = try codec.decoder.decode(data, options: ImageDecodingOptions())
        #expect(!image.isPartial)
        let red = SIMD4<UInt8>(255, 0, 0, 255), green = SIMD4<UInt8>(0, 255, 0, 255), clear = SIMD4<UInt8>(0, 0, 0, 0)
        let bitmap = image.image
        #expect((0..<4).map { bitmap.pixel(x: $0, y: 2) } == [red, red, clear, clear])
        #expect((0..<4).map { bitmap.pixel(x: $0, y: 1) } == [clear, green, green, clear])
        #expect((0..<4).map { bitmap.pixel(x: $0, y: 0) } == [green, red, green, red])
        // Without the end-of-bitmap code and the top row, the image is partial.
        let cut = BMPCodecTests.file(
            width: 4, height: 3, bits: 8, compression: 1, colors: 3, table: table, pixels: Array(pixels.prefix(11)))
        #expect(try codec.decoder.decode(cut, options: ImageDecodingOptions()).isPartial)
        // Not one run-length code: nothing to show.
        let empty = BMPCodecTests.file(
            width: 4, height: 3, bits: 8, compression: 1, colors: 3, table: table, pixels: [])
        #expect(throws: ImageDecodingError.truncatedData) {
            try codec.decoder.decode(empty, options: ImageDecodingOptions())
        }
    }

    @Test("a cut file shows the rows it holds (bottom-up: the bottom ones)")
    func truncated() throws {
        let data = try CodecFixtureFiles.data("bmp/rgb24.bmp")
        let whole = try codec.decoder.decode(data, options: ImageDecodingOptions()).image
        let rowBytes = (21 * 3 + 3) / 4 * 4
        let cut = try codec.decoder.decode(data.prefix(data.count - rowBytes * 5 - 7), options: ImageDecodingOptions())
        #expect(cut.isPartial)
        #expect(cut.image.pixel(x: 4, y: 12) == whole.pixel(x: 4, y: 12))
        #expect(cut.image.pixel(x: 4, y: 7) == whole.pixel(x: 4, y: 7))
        #expect(cut.image.pixel(x: 4, y: 5) == SIMD4(0, 0, 0, 255))
        #expect(throws: ImageDecodingError.truncatedData) {
            try codec.decoder.decode(data.prefix(60), options: ImageDecodingOptions())
        }
        #expect(throws: ImageDecodingError.truncatedData) {
            try codec.decoder.decode(data.prefix(20), options: ImageDecodingOptions())
        }
    }

    @Test("hostile headers give typed errors before any allocation")
    func hostile() throws {
        let huge = BMPCodecTests.file(
            width: 1 << 30, height: 1 << 20, bits: 24, compression: 0, colors: 0, table: [], pixels: [])
        #expect(
            throws: ImageDecodingError.dimensionsTooLarge(
                width: 1 << 30, height: 1 << 20, maximumPixelCount: ImageDecodingOptions.defaultMaximumPixelCount)
        ) {
            try codec.decoder.decode(huge, options: ImageDecodingOptions())
        }
        let cases: [(String, Data, ImageDecodingError?)] = [
            (
                "zero width",
                BMPCodecTests.file(width: 0, height: 3, bits: 24, compression: 0, colors: 0, table: [], pixels: [0]),
                nil
            ),
            (
                "5 bits per pixel",
                BMPCodecTests.file(width: 2, height: 2, bits: 5, compression: 0, colors: 0, table: [], pixels: [0]), nil
            ),
            (
                "RLE8 with 24 bits",
                BMPCodecTests.file(width: 2, height: 2, bits: 24, compression: 1, colors: 0, table: [], pixels: [0]),
                nil
            ),
            (
                "embedded JPEG",
                BMPCodecTests.file(width: 2, height: 2, bits: 24, compression: 4, colors: 0, table: [], pixels: [0]),
                .unsupported("BMP with embedded JPEG")
            ),
            (
                "overlapping masks",
                BMPCodecTests.file(
                    width: 2, height: 2, bits: 32, compression: 3, colors: 0,
                    table: [0xFF, 0xFF, 0, 0, 0xFF, 0, 0, 0, 0, 0, 0xFF, 0], pixels: [UInt8](repeating: 0, count: 16)),
                nil
            ),
        ]
        for (name, data, expected) in cases {
            do {
                _ = try codec.decoder.decode(data, options: ImageDecodingOptions())
                Issue.record("\(name) decoded")
            } catch {
                if let expected { #expect(error == expected, "\(name)") }
            }
        }
    }

    @Test("every prefix and random damage of every BMP fixture: an image or a typed error")
    func exhaustive() throws {
        try CodecFixtureFiles.decodeDamaged(CodecFixtureFiles.files("bmp"), with: codec.decoder, seed: 5)
    }

    /// A BMP file with a 40-byte header.
    static func file(width: Int, height: Int, bits: Int, compression: Int, colors: Int, table: [UInt8], pixels: [UInt8])
        -> Data
    {
        var header = [UInt8](repeating: 0, count: 54)
        let offset = 54 + table.count
        header.withUnsafeMutableBytes { raw in
            var writer = HeaderWriter(raw)
            writer.bytes([0x42, 0x4D])
            writer.u32(offset + pixels.count)
            writer.u32(0)
            writer.u32(offset)
            writer.u32(40)
            writer.u32(width)
            writer.u32(height)
            writer.u16(1)
            writer.u16(bits)
            writer.u32(compression)
            writer.u32(pixels.count)
            writer.u32(0)
            writer.u32(0)
            writer.u32(colors)
            writer.u32(0)
        }
        return Data(header + table + pixels)
    }
}
