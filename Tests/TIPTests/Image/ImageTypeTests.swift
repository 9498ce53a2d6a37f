import Foundation
import Testing

@testable import TIP

@Suite("Image types")
struct ImageTypeTests {
    static let samples: [(ImageType, [UInt8])] = [
        (.jpeg, [0xFF, 0xD8, 0xFF, 0xE0, 0x00, 0x10, 0x4A, 0x46, 0x49, 0x46, 0x00, 0x01]),
        (.png, [0x89, 0x50, 0x4E, 0x47, 0x0D, 0x0A, 0x1A, 0x0A, 0x00, 0x00, 0x00, 0x0D]),
        (.gif, Array("GIF89a".utf8) + [1, 0, 1, 0, 0, 0]),
        (.bmp, [0x42, 0x4D, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0]),
        (.webp, Array("RIFF".utf8) + [0x24, 0, 0, 0] + Array("WEBP".utf8)),
    ]

    @Test("Every prefix of a signature needs more data, then matches")
    func everyPrefix() {
        for (type, bytes) in Self.samples {
            let signatureLength = type == .webp ? 12 : (type == .png ? 8 : (type == .bmp ? 2 : 3))
            for length in 0...bytes.count {
                let result = ImageType.detect(fromMagicNumbers: bytes.prefix(length))
                if length >= signatureLength {
                    #expect(result == .match(type), "\(type) prefix \(length)")
                } else {
                    #expect(result == .needMoreData, "\(type) prefix \(length)")
                }
            }
        }
    }

    @Test("Non-images do not match")
    func noMatch() {
        #expect(ImageType.detect(fromMagicNumbers: Array("<html>".utf8)) == .noMatch)
        #expect(ImageType.detect(fromMagicNumbers: [0xFF, 0xD8, 0x00]) == .noMatch)
        #expect(ImageType.detect(fromMagicNumbers: Array("RIFF".utf8) + [0, 0, 0, 0] + Array("WAVE".utf8)) == .noMatch)
        #expect(ImageType.detect(fromMagicNumbers: [UInt8]()) == .needMoreData)
    }

    @Test("Type strings, extensions and MIME types")
    func tables() {
        #expect(ImageType.jpeg.rawValue == "public.jpeg")
        #expect(ImageType.gif.rawValue == "com.compuserve.gif")
        #expect(ImageType.webp.rawValue == "org.webmproject.webp")
        #expect(ImageType(fileExtension: ".JPG") == .jpeg)
        #expect(ImageType(fileExtension: "pjpg") == .jpeg)
        #expect(ImageType(mimeType: "image/png; charset=binary") == .png)
        #expect(ImageType(mimeType: "text/html") == nil)
        for type in ImageType.allKnown {
            #expect(type.preferredFileExtension != nil && type.mimeType != nil, "\(type)")
            #expect(ImageType(fileExtension: type.preferredFileExtension!) == type)
        }
    }

    @Test("Progressive scan counting")
    func scanCount() {
        let baseline: [UInt8] = [0xFF, 0xD8, 0xFF, 0xC0, 0, 0, 0xFF, 0xDA, 0, 0xFF, 0xD9]
        let progressive: [UInt8] = [0xFF, 0xD8, 0xFF, 0xC2, 0, 0, 0xFF, 0xDA, 1, 0xFF, 0xDA, 2, 0xFF, 0xDA, 3]
        #expect(ImageType.progressiveScanCount(inJPEG: baseline) == 0)
        #expect(ImageType.progressiveScanCount(inJPEG: progressive) == 3)
    }
}
