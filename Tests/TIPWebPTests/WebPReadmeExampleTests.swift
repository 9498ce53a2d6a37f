import Foundation
import TIP
import TIPWebP
import Testing

/// The README's WebP sample, kept compiling and running (public API only).
@Suite("WebP: README example")
struct WebPReadmeExampleTests {
    @Test("register, decode at a target size, encode")
    func readme() throws {
        let options = ImageDecodingOptions(
            targetDimensions: CGSize(width: 200, height: 200), targetContentMode: .scaleAspectFit)
        var bitmap = Bitmap(width: 640, height: 480, format: .rgbx8)!
        bitmap.setPixel(x: 1, y: 1, SIMD4(200, 10, 10, 255))

        // From the README:
        TIPWebP.register()  // CodecCatalogue.shared now decodes and encodes org.webmproject.webp
        let webpData = try CodecCatalogue.shared.encodeImage(ImageContainer(image: bitmap), type: .webp, quality: 0.8)
        let (image, _) = try CodecCatalogue.shared.decodeImage(webpData, options: options)
        let webp = try CodecCatalogue.shared.encodeImage(image, type: .webp, quality: 0.8)

        #expect(image.dimensions == CGSize(width: 200, height: 150))
        #expect(webp.starts(with: Array("RIFF".utf8)))
    }
}
