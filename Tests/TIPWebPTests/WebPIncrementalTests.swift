import Foundation
import Testing

@testable import TIP
@testable import TIPWebP

@Suite("WebP incremental decoding")
struct WebPIncrementalTests {
    let decoder = WebPCodec().decoder

    /// Feeds `data` in random chunks; returns the context, the best append result seen and whether
    /// some `anyProgress` render before the last chunk showed something.
    func feed(_ data: Data, seed: UInt64, maximumChunk: Int) throws -> (
        context: any ImageDecoderContext, sawEarlyImage: Bool
    ) {
        var rng = SeededGenerator(seed: seed)
        let context = decoder.makeContext(expectedLength: data.count, options: ImageDecodingOptions())
        var offset = 0
        var sawEarlyImage = false
        while offset < data.count {
            let length = min(Int.random(in: 1...maximumChunk, using: &rng), data.count - offset)
            let result = try context.append(data.subdata(in: offset..<(offset + length)))
            offset += length
            if offset < data.count,
                let partial = try context.render(
                    mode: .anyProgress, targetDimensions: .zero, targetContentMode: .center)
            {
                #expect(partial.isPartial)
                sawEarlyImage = true
            }
            if offset < data.count { #expect(result != .didCompleteLoading) }
        }
        #expect(try context.finalize() == .didCompleteLoading)
        return (context, sawEarlyImage)
    }

    @Test(arguments: [UInt64(1), 2, 3])
    func staticLossyMatchesOneShot(seed: UInt64) throws {
        let data = try WebPTestFiles.encode(WebPTestImages.photo(width: 180, height: 140), quality: 0.8)
        let (context, sawEarlyImage) = try feed(data, seed: seed, maximumChunk: 700)
        #expect(sawEarlyImage)
        #expect(context.dimensions == CGSize(width: 180, height: 140))
        #expect(context.frameCount == 1)
        let oneShot = try decoder.decode(data, options: ImageDecodingOptions())
        let final = try #require(
            try context.render(mode: .completeImage, targetDimensions: .zero, targetContentMode: .center))
        #expect(!final.isPartial)
        #expect(final.image == oneShot.image)
        let target = CGSize(width: 60, height: 60)
        let scaled = try #require(
            try context.render(mode: .completeImage, targetDimensions: target, targetContentMode: .scaleAspectFit))
        let scaledOneShot = try decoder.decode(
            data, options: ImageDecodingOptions(targetDimensions: target, targetContentMode: .scaleAspectFit))
        #expect(scaled.image == scaledOneShot.image)
    }

    @Test func staticLosslessWithAlphaMatchesOneShot() throws {
        let data = try WebPTestFiles.encode(WebPTestImages.translucent(width: 90, height: 70), quality: 1)
        let (context, _) = try feed(data, seed: 9, maximumChunk: 300)
        #expect(context.hasAlpha)
        let final = try #require(
            try context.render(mode: .completeImage, targetDimensions: .zero, targetContentMode: .center))
        #expect(final.image == (try decoder.decode(data, options: ImageDecodingOptions())).image)
    }

    @Test func animationRendersFirstFrameEarly() throws {
        let data = try WebPAnimationTests.sampleAnimation()
        let context = decoder.makeContext(expectedLength: nil, options: ImageDecodingOptions())
        var firstFrameAt: Int?
        for offset in stride(from: 0, to: data.count, by: 16) {
            _ = try context.append(data.subdata(in: offset..<min(offset + 16, data.count)))
            if firstFrameAt == nil, offset + 16 < data.count,
                let early = try context.render(
                    mode: .fullFrameProgress, targetDimensions: .zero, targetContentMode: .center)
            {
                #expect(early.isPartial && early.frameCount == 1)
                #expect(early.image.pixel(x: 0, y: 0) == SIMD4(255, 0, 0, 255))
                firstFrameAt = offset
            }
        }
        #expect(firstFrameAt != nil)
        #expect(context.isAnimated)
        #expect(try context.finalize() == .didCompleteLoading)
        let final = try #require(
            try context.render(mode: .completeImage, targetDimensions: .zero, targetContentMode: .center))
        let oneShot = try decoder.decode(data, options: ImageDecodingOptions())
        #expect(final.frames == oneShot.frames && final.frameDurations == oneShot.frameDurations && !final.isPartial)
    }

    @Test func truncatedAnimationAfterFinalizeRendersCompleteFrames() throws {
        let data = try WebPAnimationTests.sampleAnimation()
        let context = decoder.makeContext(expectedLength: nil, options: ImageDecodingOptions())
        _ = try context.append(data.prefix(data.count - 10))
        #expect(try context.render(mode: .completeImage, targetDimensions: .zero, targetContentMode: .center) == nil)
        #expect(try context.finalize() != .didCompleteLoading)
        let partial = try #require(
            try context.render(mode: .anyProgress, targetDimensions: .zero, targetContentMode: .center))
        #expect(partial.frameCount == 2 && partial.isPartial)
    }

    @Test func truncatedStaticRendersDecodedRows() throws {
        let data = try WebPTestFiles.encode(WebPTestImages.photo(width: 120, height: 200), quality: 0.8)
        let context = decoder.makeContext(expectedLength: nil, options: ImageDecodingOptions())
        _ = try context.append(data.prefix(data.count * 2 / 3))
        #expect(try context.finalize() != .didCompleteLoading)
        #expect(
            try context.render(mode: .fullFrameProgress, targetDimensions: .zero, targetContentMode: .center) == nil)
        let partial = try #require(
            try context.render(mode: .anyProgress, targetDimensions: .zero, targetContentMode: .center))
        #expect(partial.isPartial && partial.image.width == 120 && partial.image.height == 200)
    }
}

/// A small deterministic generator for chunk sizes.
struct SeededGenerator: RandomNumberGenerator {
    private var state: UInt64
    init(seed: UInt64) { state = seed }
    mutating func next() -> UInt64 {
        state &+= 0x9E37_79B9_7F4A_7C15
        var z = state
        z = (z ^ (z >> 30)) &* 0xBF58_476D_1CE4_E5B9
        z = (z ^ (z >> 27)) &* 0x94D0_49BB_1331_11EB
        return z ^ (z >> 31)
    }
}
