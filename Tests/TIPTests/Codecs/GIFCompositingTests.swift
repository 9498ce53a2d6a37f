import Foundation
import Testing

@testable import TIP

/// Exact compositing checks on GIFs written field by field with ``GIFTestWriter``.
@Suite("GIF compositing")
struct GIFCompositingTests {
    static let red: SIMD4<UInt8> = [255, 0, 0, 255]
    static let green: SIMD4<UInt8> = [0, 255, 0, 255]
    static let blue: SIMD4<UInt8> = [0, 0, 255, 255]
    static let white: SIMD4<UInt8> = [255, 255, 255, 255]
    static let clear: SIMD4<UInt8> = [0, 0, 0, 0]
    /// Global palette: 0 red, 1 green, 2 blue, 3 white.
    static let palette: [GIFTestWriter.RGB] = [(255, 0, 0), (0, 255, 0), (0, 0, 255), (255, 255, 255)]

    func decode(_ writer: GIFTestWriter, options: ImageDecodingOptions = ImageDecodingOptions()) throws
        -> ImageContainer
    {
        try GIFCodec().decoder.decode(writer.data, options: options)
    }

    /// Asserts every pixel of `bitmap` equals `expected(x, y)`.
    func expectPixels(
        _ bitmap: Bitmap, _ expected: (Int, Int) -> SIMD4<UInt8>, sourceLocation: SourceLocation = #_sourceLocation
    ) {
        #expect(bitmap.format == .rgba8Premultiplied, sourceLocation: sourceLocation)
        var mismatches = 0
        for y in 0..<bitmap.height {
            for x in 0..<bitmap.width where bitmap.pixel(x: x, y: y) != expected(x, y) {
                if mismatches < 3 {
                    Issue.record(
                        "pixel (\(x), \(y)) is \(bitmap.pixel(x: x, y: y)), expected \(expected(x, y))",
                        sourceLocation: sourceLocation)
                }
                mismatches += 1
            }
        }
        #expect(mismatches == 0, sourceLocation: sourceLocation)
    }

    func inRect(_ x: Int, _ y: Int, _ l: Int, _ t: Int, _ w: Int, _ h: Int) -> Bool {
        x >= l && x < l + w && y >= t && y < t + h
    }

    @Test func staticFrameIsStaticContainer() throws {
        var gif = GIFTestWriter(width: 3, height: 2, globalPalette: Self.palette)
        gif.frame(width: 3, height: 2, indices: [0, 1, 2, 3, 2, 1])
        gif.trailer()
        let image = try decode(gif)
        #expect(!image.isAnimated && !image.isPartial && image.frameDurations.isEmpty && image.loopCount == 0)
        let colours = [Self.red, Self.green, Self.blue, Self.white, Self.blue, Self.green]
        expectPixels(image.image) { x, y in colours[y * 3 + x] }
    }

    @Test func disposalNoneKeepsPreviousFrame() throws {
        var gif = GIFTestWriter(width: 4, height: 4, globalPalette: Self.palette)
        gif.control(disposal: 1, delay: 10)
        gif.frame(width: 4, height: 4, indices: Array(repeating: 0, count: 16))
        gif.control(disposal: 0, delay: 10)
        gif.frame(left: 1, top: 1, width: 2, height: 2, indices: [1, 1, 1, 1])
        gif.trailer()
        let image = try decode(gif)
        #expect(image.frameCount == 2)
        expectPixels(image.frames[0]) { _, _ in Self.red }
        expectPixels(image.frames[1]) { x, y in inRect(x, y, 1, 1, 2, 2) ? Self.green : Self.red }
    }

    @Test func disposalBackgroundClearsToTransparent() throws {
        var gif = GIFTestWriter(width: 4, height: 4, globalPalette: Self.palette, background: 3)
        gif.control(disposal: 1)
        gif.frame(width: 4, height: 4, indices: Array(repeating: 0, count: 16))
        gif.control(disposal: 2)
        gif.frame(left: 0, top: 0, width: 2, height: 2, indices: [1, 1, 1, 1])
        gif.control(disposal: 1)
        gif.frame(left: 3, top: 3, width: 1, height: 1, indices: [2])
        gif.trailer()
        let image = try decode(gif)
        #expect(image.frameCount == 3)
        expectPixels(image.frames[1]) { x, y in inRect(x, y, 0, 0, 2, 2) ? Self.green : Self.red }
        expectPixels(image.frames[2]) { x, y in
            if inRect(x, y, 0, 0, 2, 2) { return Self.clear }
            return x == 3 && y == 3 ? Self.blue : Self.red
        }
    }

    @Test func disposalPreviousRestoresCanvas() throws {
        var gif = GIFTestWriter(width: 4, height: 4, globalPalette: Self.palette)
        gif.control(disposal: 1)
        gif.frame(width: 4, height: 4, indices: Array(repeating: 0, count: 16))
        gif.control(disposal: 3)
        gif.frame(width: 2, height: 2, indices: [1, 1, 1, 1])
        gif.control(disposal: 3)
        gif.frame(left: 3, top: 3, width: 1, height: 1, indices: [2])
        gif.control(disposal: 0)
        gif.frame(left: 2, top: 0, width: 1, height: 1, indices: [3])
        gif.trailer()
        let image = try decode(gif)
        #expect(image.frameCount == 4)
        expectPixels(image.frames[1]) { x, y in inRect(x, y, 0, 0, 2, 2) ? Self.green : Self.red }
        expectPixels(image.frames[2]) { x, y in x == 3 && y == 3 ? Self.blue : Self.red }
        expectPixels(image.frames[3]) { x, y in x == 2 && y == 0 ? Self.white : Self.red }
    }

    @Test func disposalPreviousOnFirstFrameRestoresTransparency() throws {
        var gif = GIFTestWriter(width: 2, height: 1, globalPalette: Self.palette)
        gif.control(disposal: 3)
        gif.frame(width: 2, height: 1, indices: [0, 0])
        gif.frame(left: 1, top: 0, width: 1, height: 1, indices: [2])
        gif.trailer()
        let image = try decode(gif)
        expectPixels(image.frames[1]) { x, _ in x == 1 ? Self.blue : Self.clear }
    }

    @Test func transparentIndexShowsWhatIsBelow() throws {
        var gif = GIFTestWriter(width: 3, height: 1, globalPalette: Self.palette)
        gif.control(disposal: 1, transparent: 2)
        gif.frame(width: 3, height: 1, indices: [0, 2, 1])
        gif.control(disposal: 1, transparent: 3)
        gif.frame(width: 3, height: 1, indices: [3, 3, 2])
        gif.trailer()
        let image = try decode(gif)
        expectPixels(image.frames[0]) { x, _ in [Self.red, Self.clear, Self.green][x] }
        expectPixels(image.frames[1]) { x, _ in [Self.red, Self.clear, Self.blue][x] }
    }

    @Test func transparencyAppliesOnlyToTheNextFrame() throws {
        var gif = GIFTestWriter(width: 2, height: 1, globalPalette: Self.palette)
        gif.control(transparent: 0)
        gif.frame(width: 2, height: 1, indices: [0, 1])
        gif.frame(width: 2, height: 1, indices: [0, 0])
        gif.trailer()
        let image = try decode(gif)
        expectPixels(image.frames[0]) { x, _ in x == 0 ? Self.clear : Self.green }
        expectPixels(image.frames[1]) { _, _ in Self.red }
    }

    @Test func localPaletteOverridesGlobal() throws {
        var gif = GIFTestWriter(width: 2, height: 1, globalPalette: Self.palette)
        gif.frame(width: 2, height: 1, indices: [0, 1])
        gif.frame(width: 2, height: 1, indices: [0, 1], localPalette: [(10, 20, 30), (40, 50, 60)])
        gif.frame(width: 2, height: 1, indices: [1, 0])
        gif.trailer()
        let image = try decode(gif)
        expectPixels(image.frames[0]) { x, _ in x == 0 ? Self.red : Self.green }
        expectPixels(image.frames[1]) { x, _ in x == 0 ? [10, 20, 30, 255] : [40, 50, 60, 255] }
        expectPixels(image.frames[2]) { x, _ in x == 0 ? Self.green : Self.red }
    }

    @Test func localPaletteWithoutGlobalPalette() throws {
        var gif = GIFTestWriter(width: 2, height: 2, globalPalette: nil)
        gif.frame(width: 2, height: 2, indices: [0, 1, 1, 0], localPalette: [(1, 2, 3), (4, 5, 6)], minCodeSize: 2)
        gif.trailer()
        let image = try decode(gif)
        expectPixels(image.image) { x, y in x == y ? [1, 2, 3, 255] : [4, 5, 6, 255] }
    }

    @Test func missingPaletteIsAnError() throws {
        var gif = GIFTestWriter(width: 2, height: 1, globalPalette: nil)
        gif.frame(width: 2, height: 1, indices: [0, 1])
        gif.trailer()
        #expect(throws: ImageDecodingError.self) { try decode(gif) }
    }

    @Test func missingPaletteOnALaterFrameKeepsEarlierFrames() throws {
        var gif = GIFTestWriter(width: 2, height: 1, globalPalette: nil)
        gif.frame(width: 2, height: 1, indices: [0, 1], localPalette: [(1, 2, 3), (4, 5, 6)])
        gif.frame(width: 2, height: 1, indices: [0, 1])
        gif.trailer()
        let image = try decode(gif)
        #expect(image.frameCount == 1 && image.isPartial)
    }

    @Test func indicesPastThePaletteDrawNothing() throws {
        var gif = GIFTestWriter(width: 3, height: 1, globalPalette: [(255, 0, 0), (0, 255, 0)])
        gif.frame(width: 3, height: 1, indices: [1, 7, 200])
        gif.trailer()
        let image = try decode(gif)
        expectPixels(image.image) { x, _ in x == 0 ? Self.green : Self.clear }
    }

    @Test func framesPartlyOutsideTheCanvasAreClipped() throws {
        var gif = GIFTestWriter(width: 4, height: 4, globalPalette: Self.palette)
        gif.frame(width: 4, height: 4, indices: Array(repeating: 0, count: 16))
        // 4x4 at (2, 2): only the top-left 2x2 is on the canvas.
        gif.frame(
            left: 2, top: 2, width: 4, height: 4,
            indices: (0..<16).map { (i: Int) -> UInt8 in UInt8((i % 4 + i / 4) % 3 + 1) })
        // Entirely outside.
        gif.frame(left: 100, top: 100, width: 3, height: 3, indices: Array(repeating: 2, count: 9))
        // Larger than the canvas on every side is impossible with unsigned offsets; wider than the canvas:
        gif.frame(left: 0, top: 3, width: 9, height: 1, indices: Array(repeating: 3, count: 9))
        gif.trailer()
        let image = try decode(gif)
        #expect(image.frameCount == 4 && !image.isPartial)
        let second: (Int, Int) -> SIMD4<UInt8> = { x, y in
            guard x >= 2, y >= 2 else { return Self.red }
            let i = (y - 2) * 4 + (x - 2)
            return [Self.green, Self.blue, Self.white][(i % 4 + i / 4) % 3]
        }
        expectPixels(image.frames[1], second)
        expectPixels(image.frames[2], second)
        expectPixels(image.frames[3]) { x, y in y == 3 ? Self.white : second(x, y) }
    }

    @Test func zeroSizedFrameIsSkipped() throws {
        var gif = GIFTestWriter(width: 2, height: 1, globalPalette: Self.palette)
        gif.frame(width: 2, height: 1, indices: [0, 1])
        gif.frame(width: 0, height: 0, indices: [])
        gif.frame(width: 1, height: 1, indices: [2])
        gif.trailer()
        let image = try decode(gif)
        #expect(image.frameCount == 3 && !image.isPartial)
        expectPixels(image.frames[2]) { x, _ in x == 0 ? Self.blue : Self.green }
    }

    @Test(arguments: [1, 2, 3, 4, 5, 7, 8, 9, 13, 16, 17])
    func interlacedFramesAreDeinterlaced(height: Int) throws {
        let colours: [GIFTestWriter.RGB] = (0..<32).map { (i: Int) -> GIFTestWriter.RGB in
            (UInt8(i * 7), UInt8(255 - i * 5), UInt8(i * 3))
        }
        var gif = GIFTestWriter(width: 3, height: height, globalPalette: colours)
        gif.frame(
            width: 3, height: height, indices: (0..<(3 * height)).map { (i: Int) -> UInt8 in UInt8(i / 3) },
            interlaced: true)
        gif.trailer()
        let image = try decode(gif)
        expectPixels(image.image) { _, y in
            let c = colours[y]
            return [c.0, c.1, c.2, 255]
        }
    }

    @Test func interlacedFrameAtAnOffset() throws {
        var gif = GIFTestWriter(width: 4, height: 12, globalPalette: Self.palette)
        gif.frame(width: 4, height: 12, indices: Array(repeating: 3, count: 48))
        gif.frame(
            left: 1, top: 2, width: 2, height: 9, indices: (0..<18).map { (i: Int) -> UInt8 in UInt8((i / 2) % 3) },
            interlaced: true)
        gif.trailer()
        let image = try decode(gif)
        expectPixels(image.frames[1]) { x, y in
            guard inRect(x, y, 1, 2, 2, 9) else { return Self.white }
            return [Self.red, Self.green, Self.blue][(y - 2) % 3]
        }
    }

    @Test(arguments: [(0, 0.1), (1, 0.1), (2, 0.02), (10, 0.1), (35, 0.35)])
    func delaysBelowTwoCentisecondsBecomeATenth(centiseconds: Int, seconds: Double) throws {
        var gif = GIFTestWriter(width: 1, height: 1, globalPalette: Self.palette)
        gif.control(delay: centiseconds)
        gif.frame(width: 1, height: 1, indices: [0])
        gif.control(delay: 50)
        gif.frame(width: 1, height: 1, indices: [1])
        gif.trailer()
        let image = try decode(gif)
        #expect(image.frameDurations.count == 2)
        #expect(abs(image.frameDurations[0] - seconds) < 1e-9)
        #expect(abs(image.frameDurations[1] - 0.5) < 1e-9)
    }

    @Test func framesWithoutControlExtensionGetTheDefaultDuration() throws {
        var gif = GIFTestWriter(width: 1, height: 1, globalPalette: Self.palette)
        gif.frame(width: 1, height: 1, indices: [0])
        gif.frame(width: 1, height: 1, indices: [1])
        gif.trailer()
        #expect(try decode(gif).frameDurations == [0.1, 0.1])
    }

    @Test(arguments: [
        (Optional("NETSCAPE2.0"), 0, 0), (Optional("NETSCAPE2.0"), 5, 5), (Optional("ANIMEXTS1.0"), 0, 0),
        (Optional("ANIMEXTS1.0"), 65535, 65535), (Optional("XMPDataXMP"), 7, 1), (nil, 0, 1),
    ])
    func loopCount(blockName: String?, value: Int, expected: Int) throws {
        var gif = GIFTestWriter(width: 1, height: 1, globalPalette: Self.palette)
        if let blockName {
            if blockName.utf8.count == 11 {
                gif.loop(value, name: blockName)
            } else {
                gif.raw([0x21, 0xFF, 11] + Array("XMP DataXMP".utf8) + [3, 1, 7, 0, 0])
            }
        }
        gif.comment("made by a test")
        gif.frame(width: 1, height: 1, indices: [0])
        gif.frame(width: 1, height: 1, indices: [1])
        gif.trailer()
        #expect(try decode(gif).loopCount == expected)
    }

    @Test func framesAreResampledToTheTarget() throws {
        var gif = GIFTestWriter(width: 8, height: 4, globalPalette: Self.palette)
        gif.frame(width: 8, height: 4, indices: Array(repeating: 1, count: 32))
        gif.frame(width: 8, height: 4, indices: Array(repeating: 2, count: 32))
        gif.trailer()
        let options = ImageDecodingOptions(
            targetDimensions: CGSize(width: 4, height: 4), targetContentMode: .scaleAspectFit)
        let image = try decode(gif, options: options)
        #expect(image.frames.map(\.width) == [4, 4] && image.frames.map(\.height) == [2, 2])
        expectPixels(image.frames[1]) { _, _ in Self.blue }
    }

    @Test func gif87aIsRead() throws {
        var gif = GIFTestWriter(width: 1, height: 1, globalPalette: Self.palette, signature: "GIF87a")
        gif.frame(width: 1, height: 1, indices: [2])
        gif.trailer()
        expectPixels(try decode(gif).image) { _, _ in Self.blue }
    }
}
