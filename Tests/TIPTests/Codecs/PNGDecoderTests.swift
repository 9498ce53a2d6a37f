import Foundation
import Testing

@testable import TIP

/// One PNG flavour for the exhaustive decode tests.
struct PNGFlavour: CustomTestStringConvertible, Sendable {
    let colorType: UInt8
    let bitDepth: Int
    let withTransparency: Bool
    let interlaced: Bool

    var testDescription: String {
        "type \(colorType) depth \(bitDepth)\(withTransparency ? " tRNS" : "")\(interlaced ? " Adam7" : "")"
    }

    static let all: [PNGFlavour] = {
        var flavours: [PNGFlavour] = []
        let combos: [(UInt8, [Int], Bool)] = [
            (0, [1, 2, 4, 8, 16], true), (2, [8, 16], true), (3, [1, 2, 4, 8], true), (4, [8, 16], false),
            (6, [8, 16], false),
        ]
        for (type, depths, canHaveTransparency) in combos {
            for depth in depths {
                for transparency in canHaveTransparency ? [false, true] : [false] {
                    for interlaced in [false, true] {
                        flavours.append(
                            PNGFlavour(
                                colorType: type, bitDepth: depth, withTransparency: transparency, interlaced: interlaced
                            ))
                    }
                }
            }
        }
        return flavours
    }()

    /// A deterministic `width` x `height` image of this flavour.
    func writer(width: Int, height: Int, seed: UInt64 = 7) -> PNGTestWriter {
        var rng = SplitMix64(seed: seed)
        let channels: Int
        switch colorType {
        case 0, 3: channels = 1
        case 4: channels = 2
        case 2: channels = 3
        default: channels = 4
        }
        let maxValue: UInt64 = colorType == 3 ? UInt64(min(1 << bitDepth, 6)) : UInt64(1) << bitDepth
        var samples = (0..<(width * height * channels)).map { _ in UInt16(rng.next() % maxValue) }
        var writer = PNGTestWriter(
            width: width, height: height, colorType: colorType, bitDepth: bitDepth, samples: samples)
        writer.interlaced = interlaced
        if colorType == 3 {
            writer.palette = (0..<Int(maxValue)).map { (i: Int) -> SIMD3<UInt8> in
                let r = UInt8(i * 40 + 10), g = UInt8(255 - i * 30), b = UInt8(i * 17 % 256)
                return SIMD3(r, g, b)
            }
            if withTransparency { writer.transparency = Array([0, 128, 255, 77].prefix(Int(maxValue))) }
        } else if withTransparency {
            // Make the transparent key colour actually occur: copy pixel 0 to a few places.
            let key = Array(samples[0..<channels])
            for p in stride(from: 0, to: width * height, by: 5) {
                samples.replaceSubrange(p * channels..<(p + 1) * channels, with: key)
            }
            writer.samples = samples
            writer.transparency = key.flatMap { [UInt8($0 >> 8), UInt8($0 & 0xFF)] }
        }
        return writer
    }

    var expectedFormat: PixelFormat {
        if colorType == 4 || colorType == 6 || withTransparency { return .rgba8Premultiplied }
        return colorType == 0 ? .gray8 : .rgbx8
    }
}

@Suite("PNG decoding")
struct PNGDecoderTests {
    let decoder = PNGDecoder()

    @Test("every colour type and bit depth decodes exactly", arguments: PNGFlavour.all)
    func flavour(_ flavour: PNGFlavour) throws {
        for (width, height) in [(13, 11), (1, 1), (3, 2), (9, 1), (1, 9)] {
            let writer = flavour.writer(width: width, height: height)
            let image = try decoder.decode(writer.encoded(), options: ImageDecodingOptions())
            #expect(!image.isPartial)
            let bitmap = image.image
            #expect(bitmap.format == flavour.expectedFormat)
            #expect(bitmap.width == width && bitmap.height == height)
            var mismatches = 0
            for y in 0..<height {
                for x in 0..<width where bitmap.pixel(x: x, y: y) != writer.expectedPixel(x: x, y: y) {
                    mismatches += 1
                }
            }
            #expect(mismatches == 0, "\(width)x\(height): \(mismatches) pixels differ")
        }
    }

    @Test("detection")
    func detection() {
        let png = PNGFlavour(colorType: 2, bitDepth: 8, withTransparency: false, interlaced: false).writer(
            width: 2, height: 2
        ).encoded()
        #expect(decoder.detect(png, isComplete: true) == .match)
        #expect(decoder.detect(png.prefix(4), isComplete: false) == .needMoreData)
        #expect(decoder.detect(png.prefix(4), isComplete: true) == .noMatch)
        #expect(decoder.detect(Data([0xFF, 0xD8, 0xFF]), isComplete: false) == .noMatch)
    }

    @Test(
        "decodes to every target sizing",
        arguments: [ContentMode.scaleToFill, .scaleAspectFit, .scaleAspectFill, .center])
    func targetSizing(_ mode: ContentMode) throws {
        let png = try PNGEncoder().encode(
            ImageContainer(image: TestImages.photo(width: 120, height: 80)), options: [], quality: 1)
        for target in [
            CGSize(width: 50, height: 50), CGSize(width: 200, height: 30), CGSize(width: 120, height: 80), .zero,
        ] {
            let image = try decoder.decode(
                png, options: ImageDecodingOptions(targetDimensions: target, targetContentMode: mode))
            let expected = TargetSizing.pixelDimensions(
                width: 120, height: 80, targetDimensions: target, contentMode: mode)
            #expect(image.image.width == expected.width && image.image.height == expected.height, "\(target) \(mode)")
        }
    }

    @Test("an eXIf orientation is applied")
    func exifOrientation() throws {
        var writer = PNGFlavour(colorType: 2, bitDepth: 8, withTransparency: false, interlaced: false).writer(
            width: 5, height: 3)
        // Big-endian TIFF, IFD0 with one entry: orientation (SHORT) = 6.
        let tiff: [UInt8] = [
            0x4D, 0x4D, 0, 42, 0, 0, 0, 8, 0, 1, 0x01, 0x12, 0, 3, 0, 0, 0, 1, 0, 6, 0, 0, 0, 0, 0, 0, 0, 0,
        ]
        writer.extraChunks = [("eXIf", tiff)]
        let image = try decoder.decode(writer.encoded(), options: ImageDecodingOptions())
        #expect(image.image.width == 3 && image.image.height == 5)
        // Orientation 6: displayed (x, y) shows stored (y, h - 1 - x).
        #expect(image.image.pixel(x: 0, y: 0) == writer.expectedPixel(x: 0, y: 2))
        let context = decoder.makeContext(expectedLength: nil, options: ImageDecodingOptions())
        _ = try context.append(writer.encoded())
        #expect(context.dimensions == CGSize(width: 3, height: 5))
    }

    @Test("gamma, ICC, text and unknown chunks are ignored")
    func ancillaryChunks() throws {
        var writer = PNGFlavour(colorType: 6, bitDepth: 8, withTransparency: false, interlaced: false).writer(
            width: 4, height: 4)
        writer.extraChunks = [
            ("gAMA", [0, 0, 0xB1, 0x8F]), ("iCCP", Array("junk\0\0".utf8) + [1, 2, 3]),
            ("tEXt", Array("Comment\0hello".utf8)), ("zzZz", [1, 2, 3]),
        ]
        let image = try decoder.decode(writer.encoded(), options: ImageDecodingOptions())
        #expect(image.image.pixel(x: 3, y: 3) == writer.expectedPixel(x: 3, y: 3))
    }

    @Test("an animated PNG whose control chunks break APNG's rules decodes as its default image")
    func animatedPNG() throws {
        var writer = PNGFlavour(colorType: 6, bitDepth: 8, withTransparency: false, interlaced: false).writer(
            width: 6, height: 4)
        writer.extraChunks = [("acTL", [0, 0, 0, 2, 0, 0, 0, 0]), ("fcTL", [UInt8](repeating: 0, count: 26))]
        writer.trailingChunks = [("fcTL", [UInt8](repeating: 0, count: 26)), ("fdAT", [0, 0, 0, 2, 1, 2, 3, 4])]
        let image = try decoder.decode(writer.encoded(), options: ImageDecodingOptions())
        #expect(!image.isPartial && !image.isAnimated)
        #expect(image.image.pixel(x: 5, y: 3) == writer.expectedPixel(x: 5, y: 3))
    }

    @Test("the catalogue finds and uses the PNG codec")
    func catalogue() throws {
        let writer = PNGFlavour(colorType: 3, bitDepth: 4, withTransparency: true, interlaced: true).writer(
            width: 7, height: 5)
        let catalogue = CodecCatalogue(codecs: [.png: PNGCodec()])
        let (image, type) = try catalogue.decodeImage(writer.encoded())
        #expect(type == .png)
        #expect(image.image.pixel(x: 6, y: 4) == writer.expectedPixel(x: 6, y: 4))
    }

    @Test("a partial image is scaled to the target like a whole one")
    func partialScaled() throws {
        let png = PNGFlavour(colorType: 2, bitDepth: 8, withTransparency: false, interlaced: false).writer(
            width: 40, height: 30
        ).encoded()
        let image = try decoder.decode(
            png.prefix(png.count * 2 / 3),
            options: ImageDecodingOptions(
                targetDimensions: CGSize(width: 20, height: 20), targetContentMode: .scaleAspectFill))
        #expect(image.isPartial)
        #expect(image.image.width == 27 && image.image.height == 20)
    }
}
