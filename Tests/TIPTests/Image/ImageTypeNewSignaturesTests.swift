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
            for length in 0...bytes.count {
                let expected: ImageTypeDetection = length >= 4 ? .match(type) : .needMoreData
                #expect(ImageType.detect(fromMagicNumbers: bytes.prefix(length)) == expected, "\(type) prefix \(length)")
            }
        }
        #expect(ImageType.detect(fromMagicNumbers: [0x49, 0x49, 0x2A, 0x01]) == .noMatch)
        #expect(ImageType.detect(fromMagicNumbers: [0x00, 0x00, 0x02, 0x00]) == .noMatch)   // a cursor, not an icon
        #expect(ImageType.detectableViaMagicNumbers.filter { $0 == .tiff }.count == 1)
        #expect(Set(ImageType.detectableViaMagicNumbers).isSuperset(of: [.tiff, .ico, .bmp]))
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
