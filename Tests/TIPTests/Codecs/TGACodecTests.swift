import Foundation
import Testing

@testable import TIP

@Suite("TGA codec")
struct TGACodecTests {
    let codec = TGACodec()

    @Test("capabilities; detection by header fields, since TGA has no signature")
    func detection() throws {
        #expect(codec.properties == [.decoding, .encoding])
        #expect(CodecCatalogue.shared.properties(for: .targa) == [.decoding, .encoding])
        for path in CodecFixtureFiles.files("tga") {
            let data = try CodecFixtureFiles.data(path)
            #expect(ImageType.detect(fromMagicNumbers: data) == .noMatch, "\(path)")
            #expect(codec.decoder.detect(data, isComplete: true) == .match, "\(path)")
            #expect(CodecCatalogue.shared.detectImageType(data, isComplete: true) == .targa, "\(path)")
            #expect(try CodecCatalogue.shared.decodeImage(data).type == .targa)
        }
        #expect(codec.decoder.detect(Data(count: 10), isComplete: false) == .needMoreData)
        // Text, zeros and other formats are not TGA.
        for bytes in [
            Data("<html><body>Not found</body></html>".utf8), Data(count: 64),
            try CodecFixtureFiles.data("bmp/rgb24.bmp"),
        ] {
            #expect(codec.decoder.detect(bytes, isComplete: true) == .noMatch)
        }
        // Random headers rarely pass: every field must be in range.
        var rng = SplitMix64(seed: 3)
        var matches = 0
        for _ in 0..<10_000 {
            let bytes = Data((0..<18).map { _ in UInt8(truncatingIfNeeded: rng.next()) })
            if codec.decoder.detect(bytes, isComplete: true) == .match { matches += 1 }
        }
        #expect(matches == 0)
    }

    @Test("round trip uncompressed and run-length encoded", arguments: [TGACodec.Compression.none, .runLength])
    func roundTrip(_ compression: TGACodec.Compression) throws {
        // Through the codec's public choice of compression (the encoder type itself is internal).
        let tga = TGACodec(compression: compression)
        #expect(tga.compression == compression)
        let encoder = try #require(tga.encoder)
        for source in [
            TestImages.photo(width: 29, height: 17), TestImages.translucent(width: 29, height: 17),
            TestImages.photo(width: 29, height: 17).converted(to: .gray8),
            TestImages.solid(width: 300, height: 2, SIMD4(9, 8, 7, 255), format: .rgbx8),
        ] {
            let data = try encoder.encode(ImageContainer(image: source), options: [], quality: 1)
            #expect(Array(data.suffix(18)) == TGAHeader.footerSignature)
            #expect(data[2] & 8 == (compression == .runLength ? 8 : 0))
            let decoded = try codec.decoder.decode(data, options: ImageDecodingOptions()).image
            #expect(decoded.format == source.format)
            #expect(ImageComparison.maxDifference(decoded, source) <= (source.format == .rgba8Premultiplied ? 1 : 0))
        }
        // Runs make flat images small.
        let flat = try encoder.encode(
            ImageContainer(image: TestImages.solid(width: 300, height: 2, SIMD4(9, 8, 7, 255), format: .rgbx8)),
            options: [], quality: 1)
        #expect(compression == .none ? flat.count > 1800 : flat.count < 100)
    }

    @Test("a cut file shows the rows it holds; a cut run-length stream too")
    func truncated() throws {
        for path in ["tga/rgb24.tga", "tga/rgba32-rle-topleft.tga"] {
            let data = try CodecFixtureFiles.data(path)
            let whole = try codec.decoder.decode(data, options: ImageDecodingOptions()).image
            let cut = try codec.decoder.decode(data.prefix(data.count / 2), options: ImageDecodingOptions())
            #expect(cut.isPartial, "\(path)")
            let keptRow = path.contains("topleft") ? 0 : 12
            #expect(cut.image.pixel(x: 10, y: keptRow) == whole.pixel(x: 10, y: keptRow), "\(path)")
        }
        #expect(throws: ImageDecodingError.truncatedData) {
            try codec.decoder.decode(
                try CodecFixtureFiles.data("tga/rgb24.tga").prefix(20),
                options: ImageDecodingOptions())
        }
    }

    @Test("the extension area can say the alpha is not to be used; all-zero alpha is ignored")
    func alphaRules() throws {
        let source = TestImages.translucent(width: 8, height: 4)
        var data = [UInt8](try codec.encoder!.encode(ImageContainer(image: source), options: [], quality: 1))
        // An extension area (495 bytes) whose attributes type (byte 494) is 0: no alpha.
        let footer = data.count - 26
        var extensionArea = [UInt8](repeating: 0, count: 495)
        extensionArea[0] = 0xEF
        extensionArea[1] = 0x01
        data.insert(contentsOf: extensionArea, at: footer)
        let offset = footer
        data[data.count - 26] = UInt8(offset & 0xFF)
        data[data.count - 25] = UInt8((offset >> 8) & 0xFF)
        let opaque = try codec.decoder.decode(Data(data), options: ImageDecodingOptions()).image
        #expect(opaque.format == .rgbx8)
        // 32-bit pixels whose alpha bytes are all zero: transparent when the extension area our encoder writes
        // says the alpha is real, opaque in a file without one (a writer that left the channel unfilled).
        var zeros = [UInt8](
            try codec.encoder!.encode(
                ImageContainer(image: TestImages.translucent(width: 4, height: 2)), options: [], quality: 1))
        for i in 0..<8 { zeros[18 + i * 4 + 3] = 0 }
        #expect(try codec.decoder.decode(Data(zeros), options: ImageDecodingOptions()).image.pixel(x: 0, y: 0)[3] == 0)
        for i in 0..<4 { zeros[zeros.count - 26 + i] = 0 }  // the footer's extension area offset
        #expect(
            try codec.decoder.decode(Data(zeros), options: ImageDecodingOptions()).image.pixel(x: 0, y: 0)[3] == 255)
    }

    @Test("an image transparent everywhere comes back transparent, uncompressed and run-length encoded")
    func transparentRoundTrip() throws {
        let clear = TestImages.solid(width: 5, height: 3, SIMD4(0, 0, 0, 0))
        for compression in [TGACodec.Compression.none, .runLength] {
            let data = try TGAEncoder(compression: compression).encode(
                ImageContainer(image: clear), options: [], quality: 1)
            let decoded = try codec.decoder.decode(data, options: ImageDecodingOptions()).image
            #expect(decoded.format == .rgba8Premultiplied, "\(compression)")
            #expect(decoded.pixel(x: 2, y: 1) == SIMD4(0, 0, 0, 0), "\(compression)")
        }
    }

    @Test("every prefix and random damage of every TGA fixture: an image or a typed error")
    func exhaustive() throws {
        try CodecFixtureFiles.decodeDamaged(CodecFixtureFiles.files("tga"), with: codec.decoder, seed: 6)
    }
}
