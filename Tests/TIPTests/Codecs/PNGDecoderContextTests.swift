import Foundation
import Testing

@testable import TIP

@Suite("PNG incremental decoding")
struct PNGDecoderContextTests {
    let decoder = PNGDecoder()

    @Test("header, alpha and completion are reported as bytes arrive", arguments: [false, true])
    func events(_ interlaced: Bool) throws {
        let writer = PNGFlavour(colorType: 2, bitDepth: 8, withTransparency: true, interlaced: interlaced).writer(
            width: 30, height: 17)
        let png = writer.encoded()
        let context = decoder.makeContext(expectedLength: png.count, options: ImageDecodingOptions())
        #expect(try context.append(png.prefix(20)) == .didProgress)
        #expect(context.dimensions == .zero)
        #expect(try context.append(png[20..<40]) == .didLoadHeaders)
        #expect(context.dimensions == CGSize(width: 30, height: 17))
        #expect(context.isProgressive == interlaced)
        #expect(try context.render(mode: .completeImage, targetDimensions: .zero, targetContentMode: .center) == nil)
        #expect(try context.append(png[40..<(png.count - 1)]) == .didProgress)
        #expect(context.hasAlpha)
        #expect(context.frameCount == 0)
        let partial = try #require(
            try context.render(mode: .anyProgress, targetDimensions: .zero, targetContentMode: .center))
        #expect(partial.isPartial)
        #expect(
            try context.render(mode: .fullFrameProgress, targetDimensions: .zero, targetContentMode: .center) == nil)
        #expect(try context.append(png.suffix(1)) == .didCompleteLoading)
        #expect(try context.finalize() == .didCompleteLoading)
        #expect(context.frameCount == 1)
        let image = try #require(
            try context.render(
                mode: .completeImage, targetDimensions: CGSize(width: 15, height: 15),
                targetContentMode: .scaleAspectFit))
        #expect(!image.isPartial)
        #expect(image.image.width == 15 && image.image.height == 9)
        let full = try #require(
            try context.render(mode: .completeImage, targetDimensions: .zero, targetContentMode: .center))
        #expect(full.image == (try decoder.decode(png, options: ImageDecodingOptions())).image)
        #expect(context.data == png)
    }

    @Test(
        "every split point gives the same final image; every prefix renders or returns nil", arguments: [false, true])
    func splits(_ interlaced: Bool) throws {
        var writer = PNGFlavour(colorType: 6, bitDepth: 16, withTransparency: false, interlaced: interlaced).writer(
            width: 19, height: 13)
        writer.idatChunkSize = 200
        let png = writer.encoded()
        let reference = try decoder.decode(png, options: ImageDecodingOptions()).image
        for split in 1..<png.count {
            let context = decoder.makeContext(expectedLength: nil, options: ImageDecodingOptions())
            _ = try context.append(png.prefix(split))
            if let preview = try context.render(mode: .anyProgress, targetDimensions: .zero, targetContentMode: .center)
            {
                #expect(preview.image.width == 19 && preview.image.height == 13)
            }
            _ = try context.append(png.suffix(from: split))
            #expect(try context.finalize() == .didCompleteLoading)
            let image = try #require(
                try context.render(mode: .completeImage, targetDimensions: .zero, targetContentMode: .center))
            #expect(image.image == reference, "split \(split)")
        }
    }

    @Test("byte-by-byte streaming shows rows before the end")
    func streaming() throws {
        let writer = PNGFlavour(colorType: 0, bitDepth: 8, withTransparency: false, interlaced: false).writer(
            width: 16, height: 16)
        let png = writer.encoded()
        let context = decoder.makeContext(expectedLength: nil, options: ImageDecodingOptions())
        var sawPartialRows = false
        for index in png.indices {
            _ = try context.append(png[index..<index + 1])
            if index < png.count - 20,
                let preview = try context.render(
                    mode: .anyProgress, targetDimensions: .zero, targetContentMode: .center)
            {
                #expect(preview.isPartial)
                #expect(preview.image.pixel(x: 0, y: 0) == writer.expectedPixel(x: 0, y: 0))
                sawPartialRows = true
            }
        }
        #expect(sawPartialRows)
        #expect(try context.finalize() == .didCompleteLoading)
    }

    @Test("truncated and corrupt streams end cleanly")
    func failures() throws {
        let png = PNGFlavour(colorType: 2, bitDepth: 8, withTransparency: false, interlaced: false).writer(
            width: 16, height: 16
        ).encoded()
        let empty = decoder.makeContext(expectedLength: nil, options: ImageDecodingOptions())
        #expect(throws: ImageDecodingError.emptyData) { try empty.finalize() }
        let truncated = decoder.makeContext(expectedLength: nil, options: ImageDecodingOptions())
        _ = try truncated.append(png.prefix(png.count - 30))
        #expect(try truncated.finalize() == .didLoadHeaders)
        let partial = try #require(
            try truncated.render(mode: .anyProgress, targetDimensions: .zero, targetContentMode: .center))
        #expect(partial.isPartial)
        let headerOnly = decoder.makeContext(expectedLength: nil, options: ImageDecodingOptions())
        _ = try headerOnly.append(png.prefix(40))
        _ = try headerOnly.finalize()
        #expect(try headerOnly.render(mode: .anyProgress, targetDimensions: .zero, targetContentMode: .center) == nil)
        let foreign = decoder.makeContext(expectedLength: nil, options: ImageDecodingOptions())
        #expect(throws: ImageDecodingError.self) { try foreign.append(Data([0xFF, 0xD8, 0xFF])) }
        #expect(throws: ImageDecodingError.self) { try foreign.append(png) }
    }
}
