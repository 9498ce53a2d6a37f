import Foundation
import Testing

@testable import TIP

/// The one-shot libdeflate path must give exactly what libpng's reader gives, and refuse what it
/// cannot decode exactly (the decoder then falls back to the reader).
@Suite("PNG fast path")
struct PNGFastPathTests {
    /// What a whole-data decode produced: the bitmap and partial flag, or the error.
    enum Outcome: Equatable, CustomStringConvertible {
        case image(Bitmap, isPartial: Bool)
        case failure(String)

        var description: String {
            switch self {
            case .image(let bitmap, let isPartial):
                return "image \(bitmap.width)x\(bitmap.height) \(bitmap.format)\(isPartial ? " partial" : "")"
            case .failure(let message): return "error \(message)"
            }
        }
    }

    static func outcome(_ data: Data, fastPath: Bool) -> Outcome {
        data.withUnsafeBytes { bytes in
            do throws(ImageDecodingError) {
                let image = try PNGDecoder.decode(bytes, options: ImageDecodingOptions(), allowFastPath: fastPath)
                return .image(image.image, isPartial: image.isPartial)
            } catch {
                return .failure("\(error)")
            }
        }
    }

    /// Whether the fast path itself decodes `data` (rather than leaving it to libpng).
    static func fastPathTakes(_ data: Data) -> Bool {
        data.withUnsafeBytes { bytes in
            var scanner = PNGChunkScanner()
            guard (try? scanner.scan(bytes)) != nil, let header = scanner.header, let end = scanner.endOffset else {
                return false
            }
            let format = header.outputFormat(hasTransparencyChunk: scanner.hasTransparencyChunk)
            return PNGFastDecoder.decode(
                UnsafeRawBufferPointer(rebasing: bytes[0..<end]), header: header, format: format) != nil
        }
    }

    static let filterSets: [[UInt8]] = [[0], [1], [2], [3], [4], [4, 3, 2, 1, 0, 1, 4]]

    @Test("identical to libpng for every flavour, filter and width 1...17", arguments: PNGFlavour.all)
    func flavours(_ flavour: PNGFlavour) {
        let eligible = flavour.bitDepth == 8 && !flavour.interlaced
        for filters in PNGFastPathTests.filterSets {
            for width in 1...17 {
                var writer = flavour.writer(width: width, height: 7, seed: UInt64(width))
                writer.filters = filters
                let png = writer.encoded()
                let slow = PNGFastPathTests.outcome(png, fastPath: false)
                let fast = PNGFastPathTests.outcome(png, fastPath: true)
                #expect(
                    fast == slow, "\(flavour.testDescription) filters \(filters) width \(width): \(fast) vs \(slow)")
                #expect(PNGFastPathTests.fastPathTakes(png) == eligible, "\(flavour.testDescription) width \(width)")
                if case .image(let bitmap, let isPartial) = fast {
                    #expect(!isPartial)
                    #expect(bitmap.pixel(x: width - 1, y: 6) == writer.expectedPixel(x: width - 1, y: 6))
                } else {
                    Issue.record("\(flavour.testDescription) width \(width) failed: \(fast)")
                }
            }
        }
    }

    @Test("every alpha value premultiplies exactly as libpng's path does")
    func allAlphaValues() {
        // RGBA: each row sweeps one alpha value over colour values 0...255, with Paeth and Sub rows.
        var samples: [UInt16] = []
        for alpha in 0..<256 {
            for value in 0..<256 {
                samples += [UInt16(value), UInt16(255 - value), UInt16(value * 7 % 256), UInt16(alpha)]
            }
        }
        var writer = PNGTestWriter(width: 256, height: 256, colorType: 6, bitDepth: 8, samples: samples)
        writer.filters = [4, 1, 0, 3, 2]
        let png = writer.encoded()
        #expect(PNGFastPathTests.fastPathTakes(png))
        #expect(PNGFastPathTests.outcome(png, fastPath: true) == PNGFastPathTests.outcome(png, fastPath: false))
    }

    @Test("images from the project's encoder (zlib-compressed, libpng's filters) decode identically")
    func encoderOutput() throws {
        for (width, height) in [(1, 1), (17, 5), (120, 80), (333, 7)] {
            let images = [
                TestImages.photo(width: width, height: height), TestImages.translucent(width: width, height: height),
            ]
            for image in images {
                let png = try PNGEncoder().encode(ImageContainer(image: image), options: [], quality: 1)
                #expect(PNGFastPathTests.fastPathTakes(png))
                #expect(
                    PNGFastPathTests.outcome(png, fastPath: true) == PNGFastPathTests.outcome(png, fastPath: false),
                    "\(width)x\(height)")
            }
        }
    }

    @Test(
        "fixtures decode identically through both paths",
        arguments: [
            "allAlpha.png", "someAlpha.png", "noAlpha.png", "carnival.png", "carnival_less_color.png",
            "twitterfied.png",
        ])
    func fixtures(_ name: String) {
        guard let data = Fixtures.data(name) else { print(Fixtures.skipMessage); return }
        #expect(PNGFastPathTests.fastPathTakes(data))
        let fast = PNGFastPathTests.outcome(data, fastPath: true)
        #expect(fast == PNGFastPathTests.outcome(data, fastPath: false))
        if case .image(_, let isPartial) = fast { #expect(!isPartial) } else { Issue.record("\(name): \(fast)") }
    }

    /// A filtered, stored-block RGBA sample split over several IDAT chunks.
    static func sample() -> PNGTestWriter {
        var writer = PNGFlavour(colorType: 6, bitDepth: 8, withTransparency: false, interlaced: false).writer(
            width: 23, height: 19)
        writer.filters = [0, 1, 2, 3, 4]
        writer.idatChunkSize = 300
        writer.extraChunks = [("tEXt", Array("Comment\0fast path".utf8))]
        writer.trailingChunks = [("tIME", [7, 234, 11, 21, 23, 0, 0])]
        return writer
    }

    @Test("damage gives the same partial image or error as before")
    func damage() {
        let png = PNGFastPathTests.sample().encoded()
        var cases: [(String, Data)] = []
        for cut in stride(from: 0, to: png.count, by: 37) { cases.append(("prefix \(cut)", png.prefix(cut))) }
        cases.append(("without IEND CRC", png.dropLast(1)))
        var rng = SplitMix64(seed: 99)
        for i in 0..<300 {
            var bytes = [UInt8](png)
            let position = 8 + Int(rng.next() % UInt64(png.count - 8))
            bytes[position] ^= UInt8(1 << (rng.next() % 8))
            let flipped = Data(bytes)
            cases.append(("flip \(i) at \(position)", flipped))
            // The same damage with valid CRCs reaches the inflater, the filters and the chunk walk.
            cases.append(("flip \(i) at \(position), CRCs fixed", PNGTestWriter.fixingCRCs(of: flipped)))
        }
        for (label, data) in cases {
            let fast = PNGFastPathTests.outcome(data, fastPath: true)
            let slow = PNGFastPathTests.outcome(data, fastPath: false)
            #expect(fast == slow, "\(label): \(fast) vs \(slow)")
        }
    }

    @Test("image data that ends before the last row gives a partial image through both paths")
    func shortImageData() throws {
        let writer = PNGTestWriter(
            width: 5, height: 3, colorType: 6, bitDepth: 8, samples: [UInt16](repeating: 200, count: 60))
        let taller = PNGTestWriter.replacingDimensions(of: writer.encoded(), width: 5, height: 4)
        for fastPath in [true, false] {
            guard case .image(let bitmap, let isPartial) = PNGFastPathTests.outcome(taller, fastPath: fastPath) else {
                Issue.record("no image")
                continue
            }
            #expect(isPartial)
            #expect(bitmap.pixel(x: 4, y: 2) == SIMD4(157, 157, 157, 200))
            #expect(bitmap.pixel(x: 4, y: 3) == SIMD4(0, 0, 0, 0))
        }
    }

    @Test("unusual layouts fall back to libpng with the same result")
    func unusualLayouts() {
        let base = PNGFastPathTests.sample()
        var variants: [(String, PNGTestWriter)] = []
        var invalidFilter = base
        invalidFilter.filters = [0, 1, 5]
        variants.append(("filter type 5", invalidFilter))
        var emptyIDAT = base
        emptyIDAT.trailingChunks = [("IDAT", [])]
        variants.append(("empty IDAT after the data", emptyIDAT))
        var extraIDAT = base
        extraIDAT.trailingChunks = [("IDAT", [1, 2, 3])]
        variants.append(("IDAT after the stream end", extraIDAT))
        var split = base
        split.trailingChunks = [("tEXt", Array("a\0b".utf8)), ("IDAT", [0])]
        variants.append(("IDAT run interrupted", split))
        var critical = base
        critical.trailingChunks = [("ABCD", [1])]
        variants.append(("unknown critical chunk", critical))
        var lateTransparency = base
        lateTransparency.trailingChunks = [("tRNS", [0, 1])]
        variants.append(("tRNS after IDAT", lateTransparency))
        var grayKey = PNGFlavour(colorType: 0, bitDepth: 8, withTransparency: true, interlaced: false).writer(
            width: 9, height: 4)
        grayKey.transparency = [1, 0]
        variants.append(("gray tRNS above 255", grayKey))
        var longPaletteAlpha = PNGFlavour(colorType: 3, bitDepth: 8, withTransparency: true, interlaced: false).writer(
            width: 9, height: 4)
        longPaletteAlpha.transparency = [UInt8](repeating: 9, count: 10)
        variants.append(("tRNS longer than PLTE", longPaletteAlpha))
        var outOfPalette = PNGFlavour(colorType: 3, bitDepth: 8, withTransparency: false, interlaced: false).writer(
            width: 9, height: 4)
        outOfPalette.samples[5] = 200
        variants.append(("index past the palette", outOfPalette))
        var grayPalette = PNGFlavour(colorType: 0, bitDepth: 8, withTransparency: false, interlaced: false).writer(
            width: 9, height: 4)
        grayPalette.extraChunks = [("PLTE", [1, 2, 3])]
        variants.append(("PLTE in a gray image", grayPalette))
        var suggested = PNGFlavour(colorType: 2, bitDepth: 8, withTransparency: false, interlaced: false).writer(
            width: 9, height: 4)
        suggested.extraChunks = [("PLTE", [1, 2, 3, 4, 5, 6])]
        variants.append(("suggested palette in an RGB image", suggested))
        for (label, writer) in variants {
            let png = writer.encoded()
            let fast = PNGFastPathTests.outcome(png, fastPath: true)
            let slow = PNGFastPathTests.outcome(png, fastPath: false)
            #expect(fast == slow, "\(label): \(fast) vs \(slow)")
        }
        // Streams the fast path must refuse: a bad Adler-32 (libpng ignores it) and a small window.
        var plain = base
        plain.extraChunks = []
        plain.trailingChunks = []
        var stream = [UInt8](plain.encoded())
        let iend = stream.count - 12
        stream[iend - 5] ^= 0x40  // last byte of the Adler-32 in the last IDAT
        let badAdler = PNGTestWriter.fixingCRCs(of: Data(stream))
        #expect(!PNGFastPathTests.fastPathTakes(badAdler))
        #expect(
            PNGFastPathTests.outcome(badAdler, fastPath: true) == PNGFastPathTests.outcome(badAdler, fastPath: false))
        var small = [UInt8](plain.encoded())
        let firstIDAT = 8 + 25 + 8
        #expect(small[firstIDAT] == 0x78)
        small[firstIDAT] = 0x28
        small[firstIDAT + 1] = 0x01 + UInt8((31 - (0x2801 % 31)) % 31)  // fix FCHECK
        let smallWindow = PNGTestWriter.fixingCRCs(of: Data(small))
        #expect(!PNGFastPathTests.fastPathTakes(smallWindow))
        #expect(
            PNGFastPathTests.outcome(smallWindow, fastPath: true)
                == PNGFastPathTests.outcome(smallWindow, fastPath: false))
    }
}
