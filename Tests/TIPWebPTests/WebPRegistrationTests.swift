import Foundation
import TIPWebP
import Testing

@testable import TIP

@Suite("WebP registration")
struct WebPRegistrationTests {
    @Test func registerMakesTheCatalogueDecodeWebP() throws {
        let catalogue = CodecCatalogue()
        let data = try WebPTestFiles.encode(WebPTestImages.photo(width: 30, height: 20), quality: 0.8)
        #expect(throws: ImageDecodingError.missingCodec(.webp)) { try catalogue.decodeImage(data) }
        TIPWebP.register(on: catalogue)
        #expect(catalogue.supportsDecoding(.webp) && catalogue.supportsEncoding(.webp))
        #expect(catalogue.supportsAnimation(.webp) && catalogue.supportsProgressiveLoading(.webp))
        #expect(catalogue.detectImageType(data, isComplete: true) == .webp)
        let (image, type) = try catalogue.decodeImage(data)
        #expect(type == .webp && image.dimensions == CGSize(width: 30, height: 20))
        let encoded = try catalogue.encodeImage(image, type: .webp, quality: 1)
        #expect(try catalogue.decodeImage(encoded).container.image == image.image)
    }
}
