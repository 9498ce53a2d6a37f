import Foundation
import Testing

@testable import TIP
@testable import TIPImageTables

@Suite("Image table canvas and drawings")
struct ImageTableCanvasTests {
    /// Runs `drawing` on a cleared canvas of `format` over a scratch bitmap, as a table would, and returns it.
    static func draw(
        _ source: Bitmap, width: Int, height: Int, format: PixelFormat,
        _ drawing: ImageTableDrawing
    ) throws -> Bitmap {
        var out = Bitmap(width: width, height: height, format: format)!
        let stride = out.bytesPerRow
        try out.withUnsafeMutableBytes { bytes in
            var canvas = ImageTableCanvas(
                pixels: bytes.baseAddress!, width: width, height: height, bytesPerRow: stride, pixelFormat: format)
            canvas.clear()
            try drawing.body(source, &canvas)
            canvas.normalize()
        }
        return out
    }

    static func solid(_ width: Int, _ height: Int, _ color: SIMD4<UInt8>, format: PixelFormat = .rgba8Premultiplied)
        -> Bitmap
    {
        var bitmap = Bitmap(width: width, height: height, format: format)!
        for y in 0..<height { for x in 0..<width { bitmap.setPixel(x: x, y: y, color) } }
        return bitmap
    }

    @Test("drawing clips at every edge and offset", arguments: PixelFormat.allCases)
    func clipping(format: PixelFormat) throws {
        let source = TableTestImages.pattern(width: 5, height: 4, pixelFormat: format, seed: 9)
        for dx in -6...7 {
            for dy in -5...6 {
                let out = try Self.draw(
                    source, width: 6, height: 5, format: format,
                    ImageTableDrawing { source, canvas in canvas.draw(source, x: dx, y: dy) })
                for y in 0..<5 {
                    for x in 0..<6 {
                        let sx = x - dx, sy = y - dy
                        let inside = sx >= 0 && sx < 5 && sy >= 0 && sy < 4
                        let cleared =
                            format == .rgba8Premultiplied ? SIMD4<UInt8>(0, 0, 0, 0) : SIMD4<UInt8>(0, 0, 0, 255)
                        #expect(
                            out.pixel(x: x, y: y) == (inside ? source.pixel(x: sx, y: sy) : cleared),
                            "offset \(dx),\(dy) pixel \(x),\(y)")
                    }
                }
            }
        }
    }

    @Test("a translucent source is composited over the canvas (premultiplied source-over)")
    func compositing() throws {
        let half = Self.solid(2, 2, SIMD4(0, 0, 100, 128))
        let drawing = ImageTableDrawing { source, canvas in
            canvas.fill(SIMD4(200, 0, 0, 255))
            canvas.draw(source, x: 0, y: 0)
        }
        let out = try Self.draw(half, width: 2, height: 2, format: .rgba8Premultiplied, drawing)
        // 200 * 127 / 255 = 99.6; alpha 128 + 255 * 127 / 255 = 255.
        #expect(out.pixel(x: 1, y: 1) == SIMD4(100, 0, 100, 255))
        let gray = try Self.draw(half, width: 2, height: 2, format: .gray8, drawing)
        let luma: UInt8 = 41  // (299 * 100 + 587 * 0 + 114 * 100 + 500) / 1000
        #expect(gray.pixel(x: 0, y: 0)[0] == luma)
        let opaque = try Self.draw(
            half, width: 2, height: 2, format: .rgbx8,
            ImageTableDrawing { source, canvas in canvas.draw(source, x: 0, y: 0) })
        #expect(opaque.pixel(x: 0, y: 0) == SIMD4(0, 0, 100, 255), "over opaque black")
    }

    @Test("aspect fill crops the middle of a larger source; aspect fit centres it on the background")
    func builtInDrawings() throws {
        // 4x2: columns red, green, blue, white.
        var source = Bitmap(width: 4, height: 2, format: .rgbx8)!
        let colors: [SIMD4<UInt8>] = [
            SIMD4(255, 0, 0, 255), SIMD4(0, 255, 0, 255), SIMD4(0, 0, 255, 255), SIMD4(255, 255, 255, 255),
        ]
        for x in 0..<4 { for y in 0..<2 { source.setPixel(x: x, y: y, colors[x]) } }
        let filled = try Self.draw(source, width: 2, height: 2, format: .rgbx8, .aspectFill)
        #expect(filled.pixel(x: 0, y: 0) == colors[1] && filled.pixel(x: 1, y: 1) == colors[2])
        // Fit into 4x4: the 4x2 source sits in rows 1-2, on the background.
        let fitted = try Self.draw(
            source, width: 4, height: 4, format: .rgbx8, .aspectFit(background: SIMD4(9, 9, 9, 255)))
        #expect(fitted.pixel(x: 0, y: 0) == SIMD4(9, 9, 9, 255) && fitted.pixel(x: 3, y: 3) == SIMD4(9, 9, 9, 255))
        #expect(fitted.pixel(x: 0, y: 1) == colors[0] && fitted.pixel(x: 3, y: 2) == colors[3])
        // A larger source is resampled first: 400x200 to cover 20x20 is 40x20, cropped to its middle.
        let big = Self.solid(400, 200, SIMD4(10, 20, 30, 255), format: .rgbx8)
        let scaled = try Self.draw(big, width: 20, height: 20, format: .rgbx8, .aspectFill)
        #expect(scaled.pixel(x: 10, y: 10) == SIMD4(10, 20, 30, 255))
    }

    @Test("a rendering drawing draws the bitmap it returns, centred")
    func rendering() throws {
        let drawing = ImageTableDrawing.rendering { source, size in
            #expect(size.width == 6 && size.height == 6)
            return Self.solid(2, 2, SIMD4(1, 2, 3, 255))
        }
        let out = try Self.draw(Self.solid(1, 1, .zero), width: 6, height: 6, format: .rgba8Premultiplied, drawing)
        #expect(out.pixel(x: 2, y: 2) == SIMD4(1, 2, 3, 255) && out.pixel(x: 3, y: 3) == SIMD4(1, 2, 3, 255))
        #expect(out.pixel(x: 1, y: 1) == .zero && out.pixel(x: 4, y: 4) == .zero)
    }

    @Test(
        "a processed drawing crops to fill and rounds the corners with TIP's processors, the entry size as their target"
    )
    func processed() throws {
        // 40x20: the left half red, the right half blue; cropped to the middle 20x20 of a 40x20 aspect fill.
        var source = Bitmap(width: 40, height: 20, format: .rgbx8)!
        for y in 0..<20 {
            for x in 0..<40 { source.setPixel(x: x, y: y, x < 20 ? SIMD4(255, 0, 0, 255) : SIMD4(0, 0, 255, 255)) }
        }
        let drawing = ImageTableDrawing.processed(by: [.cropToFill(), .roundedCorners(radius: 6)])
        #expect(drawing.sourceContentMode == .scaleAspectFill)
        let out = try Self.draw(source, width: 20, height: 20, format: .rgba8Premultiplied, drawing)
        #expect(out.pixel(x: 0, y: 0) == .zero && out.pixel(x: 19, y: 19) == .zero, "rounded corners are transparent")
        #expect(
            out.pixel(x: 5, y: 10) == SIMD4(255, 0, 0, 255) && out.pixel(x: 14, y: 10) == SIMD4(0, 0, 255, 255),
            "the middle of the source, red on the left and blue on the right")
        #expect(out.pixel(x: 10, y: 0) == SIMD4(0, 0, 255, 255), "the top edge between the corners is kept")
    }

    @Test("a processor that refuses its parameters fails the write with drawingFailed")
    func processedFailure() throws {
        let env = TableTestEnvironment()
        let format = try TableTestImages.format()
        let store = try env.store([format])
        let entity = TableTestImages.entity("a", drawing: .processed(by: [.roundedCorners(radius: -1)]))
        #expect {
            _ = try store.setImage(
                TableTestImages.pattern(width: 24, height: 16, seed: 1), for: entity, formatName: format.name)
        } throws: { error in
            if case ImageTableError.drawingFailed(let underlying) = error { return underlying is ImageProcessingError }
            return false
        }
        #expect(store.image(for: entity, formatName: format.name) == nil)
    }

    @Test("after a drawing, row padding is zero and rgbx8's fourth byte is 255, whatever the drawing wrote")
    func normalized() throws {
        let scribble = ImageTableDrawing { _, canvas in
            canvas.withUnsafeMutableBytes { _ = memset($0.baseAddress!, 0x37, $0.count) }
        }
        let out = try Self.draw(Self.solid(1, 1, .zero), width: 5, height: 3, format: .rgbx8, scribble)
        out.withUnsafeBytes { bytes in
            for y in 0..<3 {
                for offset in 0..<out.bytesPerRow {
                    let byte = bytes[y * out.bytesPerRow + offset]
                    let expected: UInt8 = offset >= 20 ? 0 : (offset % 4 == 3 ? 255 : 0x37)
                    #expect(byte == expected, "row \(y) byte \(offset)")
                }
            }
        }
    }

    @Test("a drawing that throws fails the write with drawingFailed and leaves the table as it was")
    func failingDrawing() throws {
        struct Refused: Error {}
        let env = TableTestEnvironment()
        let format = try TableTestImages.format(maximumCount: 1)
        let store = try env.store([format])
        _ = try store.setImage(
            TableTestImages.pattern(width: 24, height: 16, seed: 1), for: TableTestImages.entity("a"),
            formatName: format.name)
        let failing = TableTestImages.entity("b", drawing: ImageTableDrawing { _, _ in throw Refused() })
        #expect {
            _ = try store.setImage(
                TableTestImages.pattern(width: 24, height: 16, seed: 2), for: failing, formatName: format.name)
        } throws: { error in
            if case ImageTableError.drawingFailed(let underlying) = error { return underlying is Refused }
            return false
        }
        // The only slot was a's, evicted for the write; the failed write gives it back empty.
        #expect(store.image(for: failing, formatName: format.name) == nil)
        _ = try store.setImage(
            TableTestImages.pattern(width: 24, height: 16, seed: 3), for: TableTestImages.entity("c"),
            formatName: format.name)
        #expect(store.statistics(formatName: format.name)?.entryCount == 1)
    }
}
