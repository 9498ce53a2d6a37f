import Foundation
import Testing

@testable import TIP
@testable import TIPJPEG2000

@Suite("JPEG 2000 registration")
struct JPEG2000RegistrationTests {
    @Test func registerMakesTheCatalogueDecodeJPEG2000() throws {
        let catalogue = CodecCatalogue()
        let data = try JPEG2000TestFiles.data("photo-lossless.jp2")
        #expect(throws: ImageDecodingError.missingCodec(.jpeg2000)) { try catalogue.decodeImage(data) }
        #expect(catalogue.properties(for: .jpeg2000) == [])
        TIPJPEG2000.register(on: catalogue)
        #expect(
            catalogue.properties(for: .jpeg2000)
                == (OpenJPEGVersion.allowsPartialDecoding
                    ? [.decoding, .encoding, .progressive] : [.decoding, .encoding]))
        #expect(catalogue.detectImageType(data, isComplete: true) == .jpeg2000)
        let (image, type) = try catalogue.decodeImage(data)
        #expect(type == .jpeg2000 && image.dimensions == CGSize(width: 96, height: 64))
        let encoded = try catalogue.encodeImage(image, type: .jpeg2000, quality: 1)
        #expect(try catalogue.decodeImage(encoded).container.image == image.image)
        #expect(ImageType.jpeg2000.rawValue == "public.jpeg-2000")
    }

    /// The README's JPEG 2000 sample, kept compiling and running (public API only).
    @Test func readmeExample() throws {
        let jp2Data = try JPEG2000TestFiles.data("large.jp2")
        let options = ImageDecodingOptions(
            targetDimensions: CGSize(width: 400, height: 400), targetContentMode: .scaleAspectFit)

        // From the README:
        TIPJPEG2000.register()  // CodecCatalogue.shared now decodes and encodes public.jpeg-2000
        let (image, _) = try CodecCatalogue.shared.decodeImage(jp2Data, options: options)
        let jp2 = try CodecCatalogue.shared.encodeImage(image, type: .jpeg2000, quality: 0.8)

        #expect(image.dimensions == CGSize(width: 400, height: 300))
        #expect(ImageType.detect(fromMagicNumbers: jp2) == .match(.jpeg2000))
    }
}
