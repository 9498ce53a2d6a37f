import Foundation
import Testing

@testable import TIP

@Suite("APNG decoding")
struct APNGDecoderTests {
    let decoder = PNGDecoder()

    /// (file, expected durations, loop count, reference frames to compare: their indices in the film strip).
    static let cases: [(String, [TimeInterval], Int, [Int])] = [
        ("apng/dispose-blend.png", [0.1, 0.2, 0.3, 0.4, 0.5], 3, [0, 1, 2, 3, 4]),
        ("apng/delays.png", [0.1, 0.1, 0.02, 1.0, 0.05], 0, [0, 1, 2, 3, 4]),
        // Pillow lists the default image as its frame 0; the animation is frames 1 and 2.
        ("apng/default-image-excluded.png", [0.1, 0.1], 1, [1, 2]),
        ("apng/rgb-background.png", [0.1, 0.1, 0.1], 2, [0, 1, 2]),
    ]

    @Test("frames, delays (TIP's 0.1 s rule) and loop count match Pillow's compositing", arguments: cases.indices)
    func matchesPillow(_ index: Int) throws {
        let (path, durations, loops, referenceFrames) = Self.cases[index]
        let data = try CodecFixtureFiles.data(path)
        let image = try decoder.decode(data, options: ImageDecodingOptions())
        #expect(image.frameCount == durations.count, "\(path)")
        #expect(image.isAnimated)
        #expect(!image.isPartial)
        #expect(image.loopCount == loops, "\(path)")
        #expect(
            zip(image.frameDurations, durations).allSatisfy { abs($0 - $1) < 1e-9 }, "\(path): \(image.frameDurations)")
        let strip = try CodecFixtureFiles.reference(path)
        let height = image.image.height
        for (frame, stripIndex) in zip(image.frames, referenceFrames) {
            let expected = PNGChunkList.band(strip, top: stripIndex * height, height: height)
            #expect(CodecFixtureFiles.difference(frame, expected) <= 1, "\(path) frame \(stripIndex)")
        }
        // The catalogue detects and decodes it as PNG.
        let (viaCatalogue, type) = try CodecCatalogue.shared.decodeImage(data)
        #expect(type == .png && viaCatalogue.frameCount == durations.count)
    }

    @Test("frames are resampled to the target sizing")
    func scaled() throws {
        let data = try CodecFixtureFiles.data("apng/dispose-blend.png")
        let image = try decoder.decode(
            data,
            options: ImageDecodingOptions(
                targetDimensions: CGSize(width: 10, height: 10),
                targetContentMode: .scaleAspectFit))
        #expect(image.frameCount == 5)
        #expect(image.frames.allSatisfy { $0.width == 10 && $0.height == 6 })
    }

    @Test("the default image alone, without the animation")
    func defaultImage() throws {
        let data = try CodecFixtureFiles.data("apng/default-image-excluded.png")
        let still = try data.withUnsafeBytes {
            try PNGDecoder.decode($0, options: ImageDecodingOptions(), allowsAnimation: false)
        }
        let strip = try CodecFixtureFiles.reference("apng/default-image-excluded.png")
        #expect(!still.isAnimated)
        #expect(
            CodecFixtureFiles.difference(still.image, PNGChunkList.band(strip, top: 0, height: still.image.height)) <= 1
        )
    }

    @Test("every way of breaking APNG's rules shows the default image")
    func brokenRulesFallBack() throws {
        let original = try CodecFixtureFiles.data("apng/dispose-blend.png")
        let still = try original.withUnsafeBytes {
            try PNGDecoder.decode($0, options: ImageDecodingOptions(), allowsAnimation: false)
        }
        var edits: [(String, (inout PNGChunkList) -> Void)] = []
        edits.append(("sequence out of order", { list in list.chunks[list.indices(of: "fcTL")[2]].data[3] = 9 }))
        edits.append(("frame outside the canvas", { list in list.chunks[list.indices(of: "fcTL")[1]].data[15] = 200 }))
        edits.append(
            (
                "fcTL CRC damaged",
                { list in
                    let index = list.indices(of: "fcTL")[1]
                    list.chunks[index].keepsCRC = true
                    list.chunks[index].storedCRC[0] ^= 0xFF
                }
            ))
        edits.append(
            (
                "fdAT before any fcTL after the image data",
                { list in list.chunks.remove(at: list.indices(of: "fcTL")[1]) }
            ))
        edits.append(("dispose op out of range", { list in list.chunks[list.indices(of: "fcTL")[1]].data[24] = 7 }))
        edits.append(
            ("first fcTL smaller than the canvas", { list in list.chunks[list.indices(of: "fcTL")[0]].data[7] = 5 }))
        for (name, edit) in edits {
            var list = PNGChunkList(original)
            edit(&list)
            let image = try decoder.decode(list.data, options: ImageDecodingOptions())
            #expect(!image.isAnimated, "\(name)")
            #expect(image.image == still.image, "\(name)")
            // The incremental context agrees.
            let context = decoder.makeContext(expectedLength: nil, options: ImageDecodingOptions())
            _ = try context.append(list.data)
            #expect(try context.finalize() == .didCompleteLoading, "\(name)")
            let rendered = try #require(
                try context.render(mode: .completeImage, targetDimensions: .zero, targetContentMode: .center))
            #expect(rendered.image == still.image && !rendered.isAnimated, "\(name)")
        }
    }

    @Test("a damaged frame ends the animation there; a cut file keeps its complete frames")
    func damage() throws {
        let original = try CodecFixtureFiles.data("apng/dispose-blend.png")
        let whole = try decoder.decode(original, options: ImageDecodingOptions())
        var list = PNGChunkList(original)
        let third = list.indices(of: "fdAT")[1]
        list.chunks[third].keepsCRC = true
        list.chunks[third].data[10] ^= 0x55
        let damaged = try decoder.decode(list.data, options: ImageDecodingOptions())
        #expect(damaged.isPartial)
        #expect(damaged.frameCount == 2)
        #expect(Array(damaged.frames) == Array(whole.frames.prefix(2)))
        // Every prefix: no crash; once the first frame is whole, those frames and nothing wrong.
        for length in stride(from: 1, to: original.count, by: 7) {
            let cut = original.prefix(length)
            guard let image = try? decoder.decode(cut, options: ImageDecodingOptions()) else { continue }
            #expect(image.isPartial, "prefix \(length)")
            if image.isAnimated {
                #expect(Array(image.frames) == Array(whole.frames.prefix(image.frameCount)), "prefix \(length)")
            }
        }
    }

    @Test("the incremental context shows the first frame as soon as its bytes are in")
    func firstFrameEarly() throws {
        let data = try CodecFixtureFiles.data("apng/dispose-blend.png")
        let whole = try decoder.decode(data, options: ImageDecodingOptions())
        let list = PNGChunkList(data)
        // The first frame ends with its last IDAT; it is known complete once the next chunk's header arrives.
        var endOfFirstFrame = 8
        for (index, chunk) in list.chunks.enumerated() {
            endOfFirstFrame += 12 + chunk.data.count
            if chunk.type == "IDAT", list.chunks[index + 1].type != "IDAT" { break }
        }
        let context = decoder.makeContext(expectedLength: data.count, options: ImageDecodingOptions())
        var sawAnimated = false
        var firstFrameAt: Int?
        var frameEvents = 0
        for offset in data.indices {
            let result = try context.append(data[offset..<offset + 1])
            if context.isAnimated { sawAnimated = true }
            if result == .didLoadFrame { frameEvents += 1 }
            if firstFrameAt == nil,
                let first = try context.render(
                    mode: .fullFrameProgress, targetDimensions: .zero, targetContentMode: .center)
            {
                firstFrameAt = offset + 1
                #expect(first.image == whole.image)
                #expect(first.isPartial)
                #expect(
                    try context.render(mode: .completeImage, targetDimensions: .zero, targetContentMode: .center) == nil
                )
            }
        }
        #expect(sawAnimated)
        #expect(frameEvents == 5)
        let at = try #require(firstFrameAt)
        #expect(at <= endOfFirstFrame + 8, "first frame shown after \(at) of \(data.count) bytes")
        #expect(at < data.count / 2)
        #expect(try context.finalize() == .didCompleteLoading)
        #expect(context.frameCount == 5)
        let final = try #require(
            try context.render(mode: .completeImage, targetDimensions: .zero, targetContentMode: .center))
        #expect(!final.isPartial)
        #expect(Array(final.frames) == Array(whole.frames))
        #expect(final.frameDurations == whole.frameDurations && final.loopCount == 3)
        // Rendering at a target size resamples the same frames.
        let small = try #require(
            try context.render(
                mode: .completeImage, targetDimensions: CGSize(width: 10, height: 10),
                targetContentMode: .scaleAspectFit))
        #expect(small.frames.allSatisfy { $0.width == 10 && $0.height == 6 })
    }

    @Test("hostile animations stop at the pixel budget; huge declared frame counts cost nothing")
    func budget() throws {
        // A 64x64 canvas at a 4,096-pixel limit keeps 2 x 4,096 pixels of frames: two.
        let frames = (0..<6).map { TestImages.solid(width: 64, height: 64, SIMD4(UInt8($0 * 40), 0, 0, 255)) }
        let animation = try #require(
            ImageContainer(animatedFrames: frames, frameDurations: Array(repeating: 0.1, count: 6), loopCount: 0))
        let data = try PNGEncoder().encode(animation, options: [], quality: 1)
        let limited = try decoder.decode(data, options: ImageDecodingOptions(maximumPixelCount: 64 * 64))
        #expect(limited.frameCount == 2 && limited.isPartial)
        var list = PNGChunkList(data)
        let actl = list.indices(of: "acTL")[0]
        list.chunks[actl].data = PNGChunk.bigEndian(Int(Int32.max)) + PNGChunk.bigEndian(0)
        let image = try decoder.decode(list.data, options: ImageDecodingOptions())
        #expect(image.frameCount == 6)
    }
}
