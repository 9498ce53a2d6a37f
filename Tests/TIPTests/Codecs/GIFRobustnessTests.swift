import Foundation
import Testing

@testable import TIP

/// Hostile, damaged and resource-hungry GIFs.
@Suite("GIF robustness")
struct GIFRobustnessTests {
    static let palette: [GIFTestWriter.RGB] = [(255, 0, 0), (0, 255, 0)]

    @Test func hugeLogicalScreenIsRefusedBeforeAllocating() throws {
        var gif = GIFTestWriter(width: 60000, height: 60000, globalPalette: Self.palette)
        gif.frame(width: 1, height: 1, indices: [0])
        gif.trailer()
        #expect(
            throws: ImageDecodingError.dimensionsTooLarge(
                width: 60000, height: 60000, maximumPixelCount: ImageDecodingOptions.defaultMaximumPixelCount)
        ) {
            try GIFCodec().decoder.decode(gif.data, options: ImageDecodingOptions())
        }
        let context = GIFCodec().decoder.makeContext(expectedLength: nil, options: ImageDecodingOptions())
        #expect(
            throws: ImageDecodingError.dimensionsTooLarge(
                width: 60000, height: 60000, maximumPixelCount: ImageDecodingOptions.defaultMaximumPixelCount)
        ) {
            try context.append(Data(gif.bytes[0..<13]))
        }
    }

    @Test("cut inside the screen descriptor or the global colour table: truncated, not corrupt")
    func cutInHeaderIsTruncated() throws {
        let palette = (0..<256).map { i -> GIFTestWriter.RGB in (UInt8(i), UInt8(255 - i), 0) }
        var gif = GIFTestWriter(width: 4, height: 4, globalPalette: palette)
        gif.frame(width: 1, height: 1, indices: [0])
        gif.trailer()
        _ = try GIFCodec().decoder.decode(gif.data, options: ImageDecodingOptions())
        for cut in [7, 11, 13, 100, 13 + 3 * 256 - 1] {
            #expect(throws: ImageDecodingError.truncatedData, "cut at \(cut)") {
                try GIFCodec().decoder.decode(Data(gif.bytes[0..<cut]), options: ImageDecodingOptions())
            }
        }
    }

    @Test func zeroSizedScreenIsCorrupt() {
        var gif = GIFTestWriter(width: 0, height: 5, globalPalette: Self.palette)
        gif.frame(width: 1, height: 1, indices: [0])
        gif.trailer()
        #expect(throws: ImageDecodingError.self) {
            try GIFCodec().decoder.decode(gif.data, options: ImageDecodingOptions())
        }
    }

    @Test func manyFramesStopAtTheBudget() throws {
        var gif = GIFTestWriter(width: 10, height: 10, globalPalette: Self.palette)
        for _ in 0..<50 { gif.frame(width: 10, height: 10, indices: Array(repeating: 1, count: 100)) }
        gif.trailer()
        // Each frame is kept at 100 pixels against 2 x 250 (its work, 200, fits 16 x 250 twenty times).
        let options = ImageDecodingOptions(maximumPixelCount: 250)
        let image = try GIFCodec().decoder.decode(gif.data, options: options)
        #expect(image.frameCount == 5 && image.isPartial)
        #expect(GIFFrameReader.totalPixelBudgetMultiple == 2)
    }

    /// Frames kept at a smaller output size count at that size: a long animation scaled down decodes whole, and
    /// only the work (each frame's canvas and rectangle, against 16 x the limit) stops a longer one.
    @Test func scaledFramesCountAtTheirOutputSize() throws {
        func animation(frames: Int) -> Data {
            var gif = GIFTestWriter(width: 20, height: 20, globalPalette: Self.palette)
            for _ in 0..<frames { gif.frame(width: 20, height: 20, indices: Array(repeating: 1, count: 400)) }
            gif.trailer()
            return gif.data
        }
        // Kept at 5x5: 25 pixels against 2 x 1000; work 400 + 400 against 16 x 1000, so 20 frames fit.
        let options = ImageDecodingOptions(
            targetDimensions: CGSize(width: 5, height: 5), targetContentMode: .scaleAspectFit, maximumPixelCount: 1000)
        let whole = try GIFCodec().decoder.decode(animation(frames: 15), options: options)
        #expect(whole.frameCount == 15 && !whole.isPartial)
        #expect(whole.image.width == 5 && whole.image.height == 5)
        let long = try GIFCodec().decoder.decode(animation(frames: 30), options: options)
        #expect(long.frameCount == 20 && long.isPartial)
    }

    @Test func frameRectangleOverTheLimitIsRefused() {
        var gif = GIFTestWriter(width: 10, height: 10, globalPalette: Self.palette)
        gif.frame(width: 300, height: 1, indices: Array(repeating: 1, count: 300))
        gif.trailer()
        #expect(throws: ImageDecodingError.self) {
            try GIFCodec().decoder.decode(gif.data, options: ImageDecodingOptions(maximumPixelCount: 200))
        }
    }

    @Test func emptyAndForeignData() {
        let decoder = GIFCodec().decoder
        #expect(throws: ImageDecodingError.emptyData) { try decoder.decode(Data(), options: ImageDecodingOptions()) }
        #expect(throws: ImageDecodingError.self) {
            try decoder.decode(Data([0xFF, 0xD8, 0xFF, 0xE0, 0, 0x10]), options: ImageDecodingOptions())
        }
        #expect(throws: ImageDecodingError.self) {
            try decoder.decode(Data("GIF89a".utf8), options: ImageDecodingOptions())
        }
    }

    @Test func randomBitFlipsNeverCrash() throws {
        let frames = (0..<3).map { TestImages.photo(width: 24, height: 16, seed: UInt64($0 + 1)) }
        let source = try #require(
            ImageContainer(animatedFrames: frames, frameDurations: [0.1, 0.2, 0.3], loopCount: 0))
        let data = try #require(try GIFCodec().encoder?.encode(source, options: [], quality: 1))
        var rng = SplitMix64(seed: 42)
        var decoded = 0, failed = 0
        for _ in 0..<400 {
            var bytes = [UInt8](data)
            for _ in 0..<(1 + Int(rng.next() % 3)) {
                let position = Int(rng.next() % UInt64(bytes.count))
                bytes[position] ^= UInt8(1 << (rng.next() % 8))
            }
            if rng.next() % 4 == 0 { bytes.removeLast(Int(rng.next() % UInt64(bytes.count))) }
            do {
                let image = try GIFCodec().decoder.decode(Data(bytes), options: ImageDecodingOptions())
                #expect(image.frameCount >= 1)
                decoded += 1
            } catch {
                failed += 1
            }
            let context = GIFCodec().decoder.makeContext(expectedLength: nil, options: ImageDecodingOptions())
            var offset = 0
            while offset < bytes.count {
                let end = min(bytes.count, offset + 1 + Int(rng.next() % 300))
                do { _ = try context.append(Data(bytes[offset..<end])) } catch { break }
                offset = end
            }
            _ = try? context.finalize()
            _ = try? context.render(mode: .anyProgress, targetDimensions: .zero, targetContentMode: .center)
        }
        #expect(decoded > 0)
    }
}
