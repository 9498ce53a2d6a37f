import Foundation
import Testing

@testable import TIP

@Suite("Processing: grayscale and closures")
struct GrayscaleTests {
    @Test("Opaque images become gray8 with BT.601 luma; alpha images keep premultiplied alpha")
    func grayscale() throws {
        let photo = TestImages.photo(width: 9, height: 7)
        let gray = try ImageProcessors.Grayscale().process(photo, context: ImageProcessingContext())
        #expect(gray.format == .gray8 && gray.width == 9 && gray.height == 7)
        for y in 0..<7 {
            for x in 0..<9 {
                let p = photo.pixel(x: x, y: y)
                let luma = 0.299 * Double(p[0]) + 0.587 * Double(p[1]) + 0.114 * Double(p[2])
                #expect(abs(Double(gray.pixel(x: x, y: y)[0]) - luma) <= 0.5 + 1e-9)
            }
        }
        #expect(try ImageProcessors.Grayscale().process(gray, context: ImageProcessingContext()) == gray)
        let translucent = TestImages.translucent(width: 8, height: 8)
        let grayAlpha = try ImageProcessors.Grayscale().process(translucent, context: ImageProcessingContext())
        #expect(grayAlpha.format == .rgba8Premultiplied)
        for y in 0..<8 {
            for x in 0..<8 {
                let p = grayAlpha.pixel(x: x, y: y)
                #expect(p[0] == p[1] && p[1] == p[2] && p[0] <= p[3] && p[3] == translucent.pixel(x: x, y: y)[3])
            }
        }
        #expect(ImageProcessors.Grayscale().identifier == "tip.grayscale")
    }

    @Test("A closure processor runs with the context and its identifier")
    func closure() throws {
        let flip = ImageProcessors.Anonymous(identifier: "com.example.flip") { image, context in
            #expect(context.targetDimensions == CGSize(width: 3, height: 3))
            return image.applyingOrientation(.upMirrored)
        }
        let photo = TestImages.photo(width: 4, height: 2)
        let out = try ImageContainer(image: photo).processed(
            by: [flip], context: ImageProcessingContext(targetDimensions: CGSize(width: 3, height: 3)))
        #expect(out.image.pixel(x: 0, y: 0) == photo.pixel(x: 3, y: 0))
        #expect(out.processorIdentifiers == ["com.example.flip"])
    }
}
