import Foundation
import TIPHEIF
import Testing

@testable import TIP

@Suite("HEIF registration")
struct HEIFRegistrationTests {
    @Test func registerMakesTheCatalogueDecodeHEICAndAVIF() throws {
        let catalogue = CodecCatalogue()
        let heic = try HEIFTestFiles.data("photo.heic"), avif = try HEIFTestFiles.data("photo.avif")
        #expect(throws: ImageDecodingError.missingCodec(.heic)) { try catalogue.decodeImage(heic) }
        #expect(TIPHEIF.register(on: catalogue) == [.heic, .avif])
        for (data, type) in [(heic, ImageType.heic), (avif, .avif)] {
            #expect(
                catalogue.supportsDecoding(type) && !catalogue.supportsAnimation(type)
                    && !catalogue.supportsProgressiveLoading(type))
            #expect(catalogue.supportsEncoding(type) == HEIFCodec.canEncode(type == .heic ? .heic : .avif))
            #expect(catalogue.detectImageType(data, isComplete: true) == type)
            let (image, decodedType) = try catalogue.decodeImage(data)
            #expect(decodedType == type && image.dimensions == CGSize(width: 96, height: 64))
        }
    }

    /// The README's HEIF sample, kept compiling and running (public API only).
    @Test func readmeExample() throws {
        let heicData = try HEIFTestFiles.data("thumbnail.heic")
        let options = ImageDecodingOptions(
            targetDimensions: CGSize(width: 400, height: 400), targetContentMode: .scaleAspectFit)

        // From the README:
        TIPHEIF.register()  // CodecCatalogue.shared now decodes public.heic and public.avif
        let (image, type) = try CodecCatalogue.shared.decodeImage(heicData, options: options)
        if HEIFCodec.canEncode(.avif) {
            let avif = try CodecCatalogue.shared.encodeImage(image, type: .avif, quality: 0.7)
            #expect(ImageType.detect(fromMagicNumbers: avif) == .match(.avif))
        }

        #expect(type == .heic && image.dimensions == CGSize(width: 400, height: 300))
    }
}
