import Foundation
import Testing

@testable import TIP

@Suite("Image types: TIFF, ICO and TGA detection, the catalogue's answers")
struct ImageTypeNewSignaturesTests {
    static let samples: [(ImageType, [UInt8])] = [
        (.tiff, [0x49, 0x49, 0x2A, 0x00, 8, 0, 0, 0]),
        (.tiff, [0x4D, 0x4D, 0x00, 0x2A, 0, 0, 0, 8]),
        (.tiff, [0x49, 0x49, 0x2B, 0x00, 8, 0, 0, 0]),
        (.tiff, [0x4D, 0x4D, 0x00, 0x2B, 0, 8, 0, 0]),
        (.ico, [0x00, 0x00, 0x01, 0x00, 0x01, 0x00, 16, 16]),
    ]

    @Test("every prefix of a TIFF or ICO signature needs more data, then matches")
    func everyPrefix() {
        for (type, bytes) in Self.samples {
            // An icon is told from an ISO-BMFF file whose first box is 256 bytes long (00 00 01 00 "ftyp")
            // at the first byte after the signature that differs from "ftyp": here the fifth.
            let decisive = type == .ico ? 5 : 4
            for length in 0...bytes.count {
                let expected: ImageTypeDetection = length >= decisive ? .match(type) : .needMoreData
                #expect(
                    ImageType.detect(fromMagicNumbers: bytes.prefix(length)) == expected, "\(type) prefix \(length)")
            }
        }
        #expect(ImageType.detect(fromMagicNumbers: [0x49, 0x49, 0x2A, 0x01]) == .noMatch)
        // A cursor, not an icon (its first 4 bytes could still start an ISO-BMFF box).
        #expect(ImageType.detect(fromMagicNumbers: [0x00, 0x00, 0x02, 0x00]) == .needMoreData)
        #expect(ImageType.detect(fromMagicNumbers: [0x00, 0x00, 0x02, 0x00, 0x01, 0x00, 16, 16]) == .noMatch)
        #expect(ImageType.detectableViaMagicNumbers.filter { $0 == .tiff }.count == 1)
        #expect(Set(ImageType.detectableViaMagicNumbers).isSuperset(of: [.tiff, .ico, .bmp]))
    }

    @Test("an ISO-BMFF file whose first box is 256 bytes long is HEIF, not an icon (both start 00 00 01 00)")
    func iconAndISOBMFFClash() throws {
        func isobmff(_ brand: String) -> [UInt8] {
            [0x00, 0x00, 0x01, 0x00] + Array("ftyp".utf8) + Array(brand.utf8) + [0, 0, 0, 0] + Array("mif1".utf8)
        }
        #expect(ImageType.detect(fromMagicNumbers: isobmff("heic")) == .match(.heic))
        #expect(ImageType.detect(fromMagicNumbers: isobmff("avif")) == .match(.avif))
        // A generic major brand is left to the HEIF decoders' own detection: no magic-number answer.
        #expect(ImageType.detect(fromMagicNumbers: isobmff("mif1")) == .noMatch)
        // Until byte 8 either may follow.
        for length in 4..<8 {
            #expect(
                ImageType.detect(fromMagicNumbers: isobmff("heic").prefix(length)) == .needMoreData, "prefix \(length)")
        }
        let icoDecoder = ICODecoder()
        for brand in ["heic", "avif", "mif1"] {
            #expect(icoDecoder.detect(Data(isobmff(brand)), isComplete: true) == .noMatch, "\(brand)")
            #expect(icoDecoder.detect(Data(isobmff(brand)), isComplete: false) == .noMatch, "\(brand)")
            #expect(CodecCatalogue().detectImageType(Data(isobmff(brand)), isComplete: true) != .ico, "\(brand)")
        }
        // 4 bytes, or "f" after them, may be either; a fifth byte other than "f" makes an icon.
        for undecided in [[0, 0, 1, 0], [0, 0, 1, 0, 0x66, 0x74]] as [[UInt8]] {
            #expect(icoDecoder.detect(Data(undecided), isComplete: false) == .needMoreData, "\(undecided)")
            #expect(icoDecoder.detect(Data(undecided), isComplete: true) == .noMatch, "\(undecided)")
        }
        #expect(icoDecoder.detect(Data([0, 0, 1, 0, 1]), isComplete: false) == .match)
        // Every icon fixture is still an icon, for the magic numbers, the ICO decoder and the catalogue.
        let icons = CodecFixtureFiles.files("ico")
        #expect(!icons.isEmpty)
        for path in icons {
            let data = try CodecFixtureFiles.data(path)
            #expect(ImageType.detect(fromMagicNumbers: data) == .match(.ico), "\(path)")
            #expect(icoDecoder.detect(data, isComplete: true) == .match, "\(path)")
            #expect(icoDecoder.detect(data.prefix(8), isComplete: false) == .match, "\(path)")
            #expect(CodecCatalogue().detectImageType(data, isComplete: true) == .ico, "\(path)")
        }
    }

    @Test("the shared catalogue's capability answers, as TIP's catalogue gives them")
    func capabilities() {
        let catalogue = CodecCatalogue()
        let expected: [(ImageType, ImageCodecProperties)] = [
            (.tiff, [.decoding, .encoding]), (.bmp, [.decoding, .encoding]), (.targa, [.decoding, .encoding]),
            (.ico, [.decoding]), (.png, [.decoding, .encoding, .animation, .progressive]),
        ]
        for (type, properties) in expected {
            #expect(catalogue.properties(for: type) == properties, "\(type)")
        }
        #expect(catalogue.supportsAnimation(.png) && !catalogue.supportsAnimation(.tiff))
        #expect(catalogue.supportsEncoding(.targa) && !catalogue.supportsEncoding(.ico))
        #expect(ImageType.tiff.rawValue == "public.tiff" && ImageType.bmp.rawValue == "com.microsoft.bmp")
        #expect(ImageType.targa.rawValue == "com.truevision.tga-image" && ImageType.ico.rawValue == "com.microsoft.ico")
    }

    @Test("the catalogue detects every fixture, TGA by its header, also from a prefix")
    func catalogueDetection() throws {
        let catalogue = CodecCatalogue()
        for kind in ["tiff", "bmp", "tga", "ico", "apng"] {
            for path in CodecFixtureFiles.files(kind) {
                let data = try CodecFixtureFiles.data(path)
                let expected: ImageType = ["tiff": .tiff, "bmp": .bmp, "tga": .targa, "ico": .ico, "apng": .png][kind]!
                #expect(catalogue.detectImageType(data, isComplete: true) == expected, "\(path)")
                #expect(catalogue.detectImageType(data.prefix(18), isComplete: false) == expected, "\(path)")
            }
        }
        // Too few bytes to tell a TGA header: nothing yet.
        let tga = try CodecFixtureFiles.data("tga/rgb24.tga")
        #expect(catalogue.detectImageType(tga.prefix(10), isComplete: false) == nil)
    }
}
