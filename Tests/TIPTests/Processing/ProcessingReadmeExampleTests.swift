import Foundation
import TIP
import Testing

/// The "Processing images" sample of README.md, kept compiling and running. Only the public API is used.
@Suite("README examples: processing")
struct ProcessingReadmeExampleTests {
    @Test("Processing images")
    func processing() throws {
        var photo = try #require(Bitmap(width: 600, height: 400, format: .rgbx8))
        for y in 0..<400 {
            for x in 0..<600 { photo.setPixel(x: x, y: y, SIMD4(UInt8(x % 256), UInt8(y % 256), 80, 255)) }
        }
        let data = try CodecCatalogue.shared.encodeImage(ImageContainer(image: photo), type: .jpeg, quality: 0.9)

        let target = CGSize(width: 200, height: 200)
        let options = ImageDecodingOptions(targetDimensions: target, targetContentMode: .scaleAspectFill)
        let (decoded, _) = try CodecCatalogue.shared.decodeImage(data, options: options)  // 300x200 for a 3:2 photo
        let context = ImageProcessingContext(targetDimensions: target, targetContentMode: .scaleAspectFill)
        let avatar = try decoded.processed(
            by: [.cropToFill(), .circle(border: ImageProcessors.Border(width: 2, color: .init(255, 255, 255, 255)))],
            context: context)
        print(avatar.dimensions, avatar.processorIdentifiers)
        #expect(decoded.dimensions == CGSize(width: 300, height: 200))
        #expect(avatar.dimensions == CGSize(width: 200, height: 200))
        #expect(avatar.processorIdentifiers == ["tip.crop(target,centre)", "tip.circle(border=2,#ffffffff)"])
    }
}
