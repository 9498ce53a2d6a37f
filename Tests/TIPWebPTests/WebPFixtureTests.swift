import Foundation
import Testing

@testable import TIP
@testable import TIPWebP

@Suite("WebP fixtures")
struct WebPFixtureTests {
    let decoder = WebPCodec().decoder

    @Test(arguments: [("sample.webp", 1880, 1253), ("twitterfied.webp", 1024, 576)])
    func decodesStillFixture(name: String, width: Int, height: Int) throws {
        guard let data = WebPFixtures.data(name) else {
            print(WebPFixtures.skipMessage)
            return
        }
        let image = try decoder.decode(data, options: ImageDecodingOptions())
        #expect(image.image.width == width && image.image.height == height)
        #expect(image.image.format == .rgbx8 && !image.isPartial)
        let target = CGSize(width: 400, height: 400)
        let scaled = try decoder.decode(
            data, options: ImageDecodingOptions(targetDimensions: target, targetContentMode: .scaleAspectFit))
        let expected = TargetSizing.pixelDimensions(
            width: width, height: height, targetDimensions: target, contentMode: .scaleAspectFit)
        #expect(scaled.image.width == expected.width && scaled.image.height == expected.height)
        let reference = Resampler.resample(image.image, width: expected.width, height: expected.height)
        #expect(WebPTestImages.psnr(scaled.image, reference) > 25)
    }
}
