import Foundation
import Testing

@testable import TIP

/// Every prefix of a small animated GIF through the one-shot decoder and the incremental context.
@Suite("GIF incremental")
struct GIFIncrementalTests {
    static let palette: [GIFTestWriter.RGB] = [(255, 0, 0), (0, 255, 0), (0, 0, 255), (255, 255, 255)]

    /// Three frames (the second interlaced with a local palette), a loop block and a comment.
    static func animation() -> GIFTestWriter {
        var gif = GIFTestWriter(width: 6, height: 5, globalPalette: palette)
        gif.loop(2)
        gif.control(disposal: 1, delay: 4)
        gif.frame(width: 6, height: 5, indices: (0..<30).map { (i: Int) -> UInt8 in UInt8(i % 4) })
        gif.comment("between frames")
        gif.control(disposal: 2, delay: 6, transparent: 1)
        gif.frame(
            left: 1, top: 1, width: 4, height: 4, indices: (0..<16).map { (i: Int) -> UInt8 in UInt8(i % 2) },
            localPalette: [(9, 8, 7), (1, 1, 1)], interlaced: true)
        gif.control(delay: 8)
        gif.frame(left: 2, top: 0, width: 3, height: 2, indices: [3, 2, 1, 0, 1, 2])
        gif.trailer()
        return gif
    }

    @Test func everyPrefixDecodesOrFailsCleanly() throws {
        let gif = Self.animation()
        let full = try GIFCodec().decoder.decode(gif.data, options: ImageDecodingOptions())
        #expect(full.frameCount == 3 && !full.isPartial && full.loopCount == 2)
        for n in 0...gif.bytes.count {
            let prefix = Data(gif.bytes[0..<n])
            let expected = gif.frameEnds.filter { $0 <= n }.count
            do {
                let image = try GIFCodec().decoder.decode(prefix, options: ImageDecodingOptions())
                #expect(image.frameCount == expected, "prefix \(n)")
                #expect(image.isPartial == (n < gif.bytes.count), "prefix \(n)")
                for i in 0..<image.frameCount { #expect(image.frames[i] == full.frames[i], "prefix \(n) frame \(i)") }
            } catch {
                #expect(expected == 0, "prefix \(n) threw \(error) with \(expected) complete frames")
                if n == 0 { #expect(error == .emptyData) }
            }
        }
    }

    @Test func everyPrefixThroughAContext() throws {
        let gif = Self.animation()
        let full = try GIFCodec().decoder.decode(gif.data, options: ImageDecodingOptions())
        for n in 0...gif.bytes.count {
            let context = GIFCodec().decoder.makeContext(
                expectedLength: gif.bytes.count, options: ImageDecodingOptions())
            let expected = gif.frameEnds.filter { $0 <= n }.count
            let result = try context.append(Data(gif.bytes[0..<n]))
            #expect(context.frameCount == expected, "prefix \(n)")
            #expect(context.dimensions == (n >= 13 ? CGSize(width: 6, height: 5) : .zero))
            #expect(context.isAnimated == (n >= 13 + 12 + 2 + 12))  // header, palette, loop block name
            if n == gif.bytes.count { #expect(result == .didCompleteLoading) }
            let rendered = try context.render(mode: .anyProgress, targetDimensions: .zero, targetContentMode: .center)
            #expect((rendered?.frameCount ?? 0) == expected, "prefix \(n)")
            if let rendered {
                for i in 0..<rendered.frameCount { #expect(rendered.frames[i] == full.frames[i]) }
                #expect(rendered.isPartial == (n < gif.bytes.count))
            }
            let complete = try context.render(mode: .completeImage, targetDimensions: .zero, targetContentMode: .center)
            #expect((complete != nil) == (n == gif.bytes.count))
            if n == 0 {
                #expect(throws: ImageDecodingError.emptyData) { try context.finalize() }
            } else if n < 13 {
                #expect(throws: ImageDecodingError.truncatedData) { try context.finalize() }
            } else {
                let final = try context.finalize()
                #expect(
                    final
                        == (n == gif.bytes.count ? .didCompleteLoading : expected > 0 ? .didLoadFrame : .didLoadHeaders)
                )
            }
        }
    }

    @Test func eventsArriveAsSoonAsTheirBytes() throws {
        let gif = Self.animation()
        let full = try GIFCodec().decoder.decode(gif.data, options: ImageDecodingOptions())
        let context = GIFCodec().decoder.makeContext(expectedLength: nil, options: ImageDecodingOptions())
        var frameEvents: [Int] = [], headerAt = -1, completeAt = -1
        for (i, byte) in gif.bytes.enumerated() {
            let result = try context.append(Data([byte]))
            switch result {
            case .didLoadHeaders: headerAt = i + 1
            case .didLoadFrame: frameEvents.append(i + 1)
            case .didCompleteLoading: completeAt = i + 1
            case .didProgress: break
            }
            // Each frame renders the moment its last byte is in, resuming the same decode.
            let rendered = try context.render(
                mode: .fullFrameProgress, targetDimensions: .zero, targetContentMode: .center)
            #expect((rendered?.frameCount ?? 0) == frameEvents.count)
            if let rendered {
                for k in 0..<rendered.frameCount { #expect(rendered.frames[k] == full.frames[k]) }
                #expect(rendered.isPartial == (completeAt < 0))
            }
        }
        #expect(headerAt == 13)
        #expect(frameEvents == gif.frameEnds)
        #expect(completeAt == gif.bytes.count)
        #expect(context.isAnimated && context.hasAlpha && !context.isProgressive)
    }

    @Test func rendersAreCachedPerSizingAndFrameCount() throws {
        let gif = Self.animation()
        let context = GIFCodec().decoder.makeContext(expectedLength: nil, options: ImageDecodingOptions())
        _ = try context.append(Data(gif.bytes[0..<gif.frameEnds[1]]))
        let a = try #require(
            try context.render(mode: .anyProgress, targetDimensions: .zero, targetContentMode: .center))
        let b = try #require(
            try context.render(mode: .fullFrameProgress, targetDimensions: .zero, targetContentMode: .scaleAspectFit))
        #expect(a === b)
        let scaled = try #require(
            try context.render(
                mode: .anyProgress, targetDimensions: CGSize(width: 3, height: 3), targetContentMode: .scaleAspectFit))
        #expect(scaled !== a && scaled.dimensions == CGSize(width: 3, height: 3) && scaled.frameCount == 2)
        _ = try context.append(Data(gif.bytes[gif.frameEnds[1]...]))
        let whole = try #require(
            try context.render(mode: .completeImage, targetDimensions: .zero, targetContentMode: .center))
        #expect(whole.frameCount == 3 && !whole.isPartial)
    }

    @Test func contextRejectsWhatCanNotBeAGIF() {
        let context = GIFCodec().decoder.makeContext(expectedLength: nil, options: ImageDecodingOptions())
        #expect(throws: ImageDecodingError.unrecognizedFormat) { try context.append(Data("PNG".utf8)) }
        var gif = GIFTestWriter(width: 2, height: 2, globalPalette: Self.palette)
        gif.raw([0x99])
        let context2 = GIFCodec().decoder.makeContext(expectedLength: nil, options: ImageDecodingOptions())
        #expect(throws: ImageDecodingError.self) { try context2.append(gif.data) }
    }

    @Test func garbageAfterAFrameKeepsTheFrame() throws {
        var gif = GIFTestWriter(width: 2, height: 1, globalPalette: Self.palette)
        gif.frame(width: 2, height: 1, indices: [0, 1])
        gif.raw([0x99, 0x01, 0x02])
        let context = GIFCodec().decoder.makeContext(expectedLength: nil, options: ImageDecodingOptions())
        #expect(try context.append(gif.data) == .didLoadFrame)
        #expect(try context.finalize() == .didLoadFrame)
        let image = try #require(
            try context.render(mode: .anyProgress, targetDimensions: .zero, targetContentMode: .center))
        #expect(image.isPartial && image.frameCount == 1)
        let decoded = try GIFCodec().decoder.decode(gif.data, options: ImageDecodingOptions())
        #expect(decoded.isPartial && decoded.frameCount == 1)
    }
}
