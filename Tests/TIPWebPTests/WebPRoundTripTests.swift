import Foundation
import Testing

@testable import TIP
@testable import TIPWebP

@Suite("WebP round trips")
struct WebPRoundTripTests {
    let decoder = WebPCodec().decoder

    @Test func lossyRoundTripIsClose() throws {
        let source = WebPTestImages.photo(width: 160, height: 120)
        let data = try WebPTestFiles.encode(source, quality: 0.9)
        #expect(decoder.detect(data, isComplete: true) == .match)
        let image = try decoder.decode(data, options: ImageDecodingOptions())
        #expect(image.image.width == 160 && image.image.height == 120)
        #expect(image.image.format == .rgbx8)
        #expect(!image.isPartial && !image.isAnimated)
        let psnr = WebPTestImages.psnr(image.image, source)
        #expect(psnr > 30, "PSNR \(psnr)")
    }

    @Test func lowerQualityMakesSmallerFiles() throws {
        let source = WebPTestImages.photo(width: 160, height: 120)
        let low = try WebPTestFiles.encode(source, quality: 0.2)
        let high = try WebPTestFiles.encode(source, quality: 0.95)
        #expect(low.count < high.count)
    }

    @Test func losslessRoundTripIsExact() throws {
        let source = WebPTestImages.photo(width: 97, height: 61, seed: 7)
        let data = try WebPTestFiles.encode(source, quality: 1)
        let image = try decoder.decode(data, options: ImageDecodingOptions())
        #expect(image.image == source)
    }

    @Test func alphaSurvivesLossless() throws {
        let source = WebPTestImages.translucent(width: 64, height: 48)
        let data = try WebPTestFiles.encode(source, quality: 1)
        let image = try decoder.decode(data, options: ImageDecodingOptions())
        #expect(image.image.format == .rgba8Premultiplied)
        #expect(image.image.containsTransparency())
        let worst = WebPTestImages.maxDifference(image.image, source)
        #expect(worst <= 1, "max difference \(worst)")
    }

    @Test func alphaSurvivesLossy() throws {
        let source = WebPTestImages.translucent(width: 64, height: 48)
        let data = try WebPTestFiles.encode(source, quality: 0.8)
        let image = try decoder.decode(data, options: ImageDecodingOptions())
        #expect(image.image.format == .rgba8Premultiplied)
        #expect(image.image.pixel(x: 0, y: 0)[3] < 40)
        #expect(image.image.pixel(x: 32, y: 24)[3] == 255)
        #expect(WebPTestImages.psnr(image.image, source) > 30)
    }

    @Test func noAlphaOptionDropsAlpha() throws {
        let source = WebPTestImages.translucent(width: 32, height: 32)
        let data = try WebPCodec().encoder!.encode(ImageContainer(image: source), options: [.noAlpha], quality: 1)
        let image = try decoder.decode(data, options: ImageDecodingOptions())
        #expect(image.image.format == .rgbx8)
    }

    @Test func grayBitmapsEncode() throws {
        let gray = WebPTestImages.photo(width: 40, height: 30).converted(to: .gray8)
        let data = try WebPTestFiles.encode(gray, quality: 1)
        let image = try decoder.decode(data, options: ImageDecodingOptions())
        #expect(image.image == gray.converted(to: .rgbx8))
    }

    @Test func decodesStraightToTargetSize() throws {
        let data = try WebPTestFiles.encode(WebPTestImages.photo(width: 200, height: 100), quality: 0.9)
        let fit = try decoder.decode(
            data,
            options: ImageDecodingOptions(
                targetDimensions: CGSize(width: 64, height: 64), targetContentMode: .scaleAspectFit))
        #expect(fit.image.width == 64 && fit.image.height == 32)
        let fill = try decoder.decode(
            data,
            options: ImageDecodingOptions(
                targetDimensions: CGSize(width: 50, height: 50), targetContentMode: .scaleAspectFill))
        #expect(fill.image.width == 100 && fill.image.height == 50)
        let center = try decoder.decode(
            data,
            options: ImageDecodingOptions(targetDimensions: CGSize(width: 50, height: 50), targetContentMode: .center))
        #expect(center.image.width == 200 && center.image.height == 100)
        let up = try decoder.decode(
            data,
            options: ImageDecodingOptions(
                targetDimensions: CGSize(width: 400, height: 400), targetContentMode: .scaleAspectFit))
        #expect(up.image.width == 400 && up.image.height == 200)
        // The scaled decode still looks like the image.
        let full = try decoder.decode(data, options: ImageDecodingOptions())
        let reference = Resampler.resample(full.image, width: 64, height: 32)
        #expect(WebPTestImages.psnr(fit.image, reference) > 25)
    }

    @Test func encodesOnlyTheFirstFrameOfAnAnimation() throws {
        let first = WebPTestImages.solid(width: 8, height: 8, SIMD4(255, 0, 0, 255))
        let second = WebPTestImages.solid(width: 8, height: 8, SIMD4(0, 0, 255, 255))
        let animation = ImageContainer(animatedFrames: [first, second], frameDurations: [0.1, 0.1], loopCount: 0)!
        let data = try WebPCodec().encoder!.encode(animation, options: [], quality: 1)
        let image = try decoder.decode(data, options: ImageDecodingOptions())
        #expect(image.frameCount == 1)
        #expect(image.image.pixel(x: 4, y: 4) == SIMD4(255, 0, 0, 255))
    }
}
