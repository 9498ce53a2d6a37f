import Foundation
import Testing

@testable import TIP

@Suite("PNG fixtures")
struct PNGFixtureTests {
    let decoder = PNGDecoder()

    @Test("alpha detection", arguments: [("allAlpha.png", true), ("someAlpha.png", true), ("noAlpha.png", false)])
    func alpha(_ name: String, _ transparent: Bool) throws {
        guard let data = Fixtures.data(name) else { print(Fixtures.skipMessage); return }
        let image = try decoder.decode(data, options: ImageDecodingOptions())
        #expect(!image.isPartial)
        #expect(image.image.width == 60 && image.image.height == 60)
        #expect(image.image.format == (transparent ? .rgba8Premultiplied : .rgbx8))
        #expect(image.image.containsTransparency() == transparent)
        for y in 0..<60 {
            for x in 0..<60 {
                let p = image.image.pixel(x: x, y: y)
                #expect(p[0] <= p[3] && p[1] <= p[3] && p[2] <= p[3], "not premultiplied at \(x),\(y)")
            }
        }
    }

    @Test(
        "large fixtures decode whole, through the context and round-trip",
        arguments: ["carnival.png", "carnival_less_color.png", "twitterfied.png"])
    func large(_ name: String) throws {
        guard let data = Fixtures.data(name) else { print(Fixtures.skipMessage); return }
        let image = try decoder.decode(data, options: ImageDecodingOptions())
        #expect(!image.isPartial)
        if name.hasPrefix("carnival") { #expect(image.image.width == 1880 && image.image.height == 1253) }
        let context = decoder.makeContext(expectedLength: data.count, options: ImageDecodingOptions())
        var offset = 0
        var last = ImageDecoderAppendResult.didProgress
        while offset < data.count {
            let end = min(data.count, offset + 65536)
            last = try context.append(data[offset..<end])
            offset = end
        }
        #expect(last == .didCompleteLoading)
        let streamed = try #require(
            try context.render(mode: .completeImage, targetDimensions: .zero, targetContentMode: .center))
        #expect(streamed.image == image.image)
        let png = try PNGEncoder().encode(image, options: [], quality: 1)
        let decoded = try decoder.decode(png, options: ImageDecodingOptions()).image
        #expect(decoded.format == (image.image.containsTransparency() ? .rgba8Premultiplied : .rgbx8))
        #expect(ImageComparison.maxDifference(decoded, image.image) == 0)
        let thumbnail = try decoder.decode(
            data,
            options: ImageDecodingOptions(
                targetDimensions: CGSize(width: 400, height: 400), targetContentMode: .scaleAspectFit))
        #expect(thumbnail.image.width == 400 || thumbnail.image.height == 400)
    }
}
