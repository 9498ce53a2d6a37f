import Foundation
import Testing

@testable import TIP

/// The real GIFs in shared/fixtures (skipped with a message when absent).
@Suite("GIF fixtures")
struct GIFFixtureTests {
    @Test func fireworksIsATenFrameAnimation() throws {
        guard let data = Fixtures.data("fireworks.gif") else {
            print(Fixtures.skipMessage)
            return
        }
        let image = try GIFCodec().decoder.decode(data, options: ImageDecodingOptions())
        #expect(image.dimensions == CGSize(width: 480, height: 320))
        #expect(image.frameCount == 10 && !image.isPartial && image.isAnimated)
        let expected = (0..<10).map { 0.1 + 0.05 * Double($0) }
        for (a, b) in zip(image.frameDurations, expected) { #expect(abs(a - b) < 1e-9) }
        #expect(image.loopCount == 3)  // its NETSCAPE2.0 block says 3
        #expect(image.frames.allSatisfy { $0.format == .rgba8Premultiplied && $0.width == 480 && $0.height == 320 })

        // Re-encoded, it keeps its frames, timing and loop count.
        let encoded = try #require(try GIFCodec().encoder?.encode(image, options: [], quality: 1))
        let again = try GIFCodec().decoder.decode(encoded, options: ImageDecodingOptions())
        #expect(
            again.frameCount == 10 && again.frameDurations == image.frameDurations && again.loopCount == image.loopCount
        )
        for (a, b) in zip(again.frames, image.frames) {
            let psnr = ImageComparison.psnr(a, b)
            #expect(psnr > 30, "PSNR \(psnr)")
        }
    }

    @Test func fireworksThroughAContextInChunks() throws {
        guard let data = Fixtures.data("fireworks.gif") else {
            print(Fixtures.skipMessage)
            return
        }
        let whole = try GIFCodec().decoder.decode(data, options: ImageDecodingOptions())
        let context = GIFCodec().decoder.makeContext(expectedLength: data.count, options: ImageDecodingOptions())
        var offset = 0, firstFrameSeen = false
        while offset < data.count {
            let end = min(data.count, offset + 16 * 1024)
            let result = try context.append(data.subdata(in: offset..<end))
            if result >= .didLoadFrame && !firstFrameSeen {
                firstFrameSeen = true
                let first = try #require(
                    try context.render(mode: .fullFrameProgress, targetDimensions: .zero, targetContentMode: .center))
                #expect(first.frames[0] == whole.frames[0] && first.isPartial)
            }
            offset = end
        }
        #expect(try context.finalize() == .didCompleteLoading)
        #expect(context.frameCount == 10 && context.isAnimated)
        let options = (CGSize(width: 240, height: 240), ContentMode.scaleAspectFit)
        let rendered = try #require(
            try context.render(mode: .completeImage, targetDimensions: options.0, targetContentMode: options.1))
        #expect(
            rendered.dimensions == CGSize(width: 240, height: 160) && rendered.frameCount == 10 && !rendered.isPartial)
    }

    @Test func singleFrameIsStatic() throws {
        guard let data = Fixtures.data("single_frame.gif") else {
            print(Fixtures.skipMessage)
            return
        }
        let image = try GIFCodec().decoder.decode(data, options: ImageDecodingOptions())
        #expect(image.dimensions == CGSize(width: 360, height: 200))
        #expect(!image.isAnimated && image.frameCount == 1 && image.frameDurations.isEmpty && !image.isPartial)
        let context = GIFCodec().decoder.makeContext(expectedLength: nil, options: ImageDecodingOptions())
        #expect(try context.append(data) == .didCompleteLoading)
        #expect(!context.isAnimated && context.frameCount == 1)
        let (catalogued, type) = try CodecCatalogue.shared.decodeImage(data)
        #expect(type == .gif && catalogued.image == image.image)
    }
}
