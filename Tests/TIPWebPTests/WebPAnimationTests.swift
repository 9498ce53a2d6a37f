import Foundation
import Testing

@testable import TIP
@testable import TIPWebP

@Suite("WebP animations")
struct WebPAnimationTests {
    let decoder = WebPCodec().decoder

    static func sampleAnimation() throws -> Data {
        let red = WebPTestImages.solid(width: 16, height: 12, SIMD4(255, 0, 0, 255))
        let green = WebPTestImages.solid(width: 4, height: 4, SIMD4(0, 255, 0, 255))
        let halfBlue = WebPTestImages.solid(width: 6, height: 6, SIMD4(0, 0, 128, 128))
        return try WebPTestFiles.animation(
            width: 16, height: 12, loopCount: 3,
            frames: [
                .init(bitmap: red, x: 0, y: 0, milliseconds: 100, blend: false, disposeToBackground: false),
                .init(bitmap: green, x: 2, y: 2, milliseconds: 5, blend: true, disposeToBackground: true),
                .init(bitmap: halfBlue, x: 8, y: 4, milliseconds: 250, blend: true, disposeToBackground: false),
            ])
    }

    @Test func decodesGeneratedAnimation() throws {
        let data = try Self.sampleAnimation()
        let image = try decoder.decode(data, options: ImageDecodingOptions())
        #expect(image.frameCount == 3)
        #expect(image.loopCount == 3)
        #expect(image.frameDurations == [0.1, 0.1, 0.25])
        #expect(!image.isPartial)
        #expect(image.dimensions == CGSize(width: 16, height: 12))
        // Frame 2: the green square over the red frame.
        #expect(image.frames[1].pixel(x: 0, y: 0) == SIMD4(255, 0, 0, 255))
        #expect(image.frames[1].pixel(x: 3, y: 3) == SIMD4(0, 255, 0, 255))
        // Frame 3: the green square was disposed to transparent; half-transparent blue blends over red.
        #expect(image.frames[2].pixel(x: 3, y: 3) == SIMD4(0, 0, 0, 0))
        let blended = image.frames[2].pixel(x: 10, y: 6)
        #expect(blended[3] == 255)
        #expect(abs(Int(blended[0]) - 127) <= 2 && abs(Int(blended[2]) - 128) <= 2, "\(blended)")
    }

    @Test func scalesAnimationFrames() throws {
        let data = try Self.sampleAnimation()
        let image = try decoder.decode(
            data,
            options: ImageDecodingOptions(
                targetDimensions: CGSize(width: 8, height: 8), targetContentMode: .scaleAspectFit))
        #expect(image.frameCount == 3)
        #expect(image.frames.allSatisfy { $0.width == 8 && $0.height == 6 })
    }

    @Test func truncatedAnimationKeepsCompleteFrames() throws {
        let data = try Self.sampleAnimation()
        let image = try decoder.decode(data.prefix(data.count - 10), options: ImageDecodingOptions())
        #expect(image.frameCount == 2)
        #expect(image.isPartial)
        #expect(image.frames[1].pixel(x: 3, y: 3) == SIMD4(0, 255, 0, 255))
    }

    @Test func tenorFixture() throws {
        guard let data = WebPFixtures.data("tenor_test.webp") else {
            print(WebPFixtures.skipMessage)
            return
        }
        let image = try decoder.decode(data, options: ImageDecodingOptions())
        #expect(image.frameCount == 18)
        #expect(image.dimensions == CGSize(width: 90, height: 73))
        #expect(image.loopCount == 0)
        #expect(image.frameDurations.allSatisfy { abs($0 - 0.11) < 1e-9 })
        #expect(!image.isPartial)
        let scaled = try decoder.decode(
            data,
            options: ImageDecodingOptions(
                targetDimensions: CGSize(width: 45, height: 45), targetContentMode: .scaleAspectFit))
        #expect(scaled.frameCount == 18 && scaled.image.width == 45 && scaled.image.height == 37)
        let truncated = try decoder.decode(data.prefix(data.count / 2), options: ImageDecodingOptions())
        #expect(truncated.isPartial)
        #expect(truncated.frameCount > 1 && truncated.frameCount < 18)
        for index in 0..<truncated.frameCount {
            #expect(truncated.frames[index] == image.frames[index])
        }
    }
}
