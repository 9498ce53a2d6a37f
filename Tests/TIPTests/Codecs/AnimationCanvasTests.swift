import Foundation
import Testing

@testable import TIP

@Suite("Animation canvas compositing")
struct AnimationCanvasTests {
    @Test("source-over blends premultiplied colours exactly; source replaces")
    func blending() throws {
        let canvas = AnimationCanvas(width: 3, height: 1)
        canvas.draw(TestImages.solid(width: 3, height: 1, SIMD4(200, 100, 0, 255)), x: 0, y: 0, blendsOver: false)
        var top = try #require(Bitmap(width: 3, height: 1, format: .rgba8Premultiplied))
        top.setPixel(x: 0, y: 0, SIMD4(0, 0, 64, 128))  // half-transparent blue
        top.setPixel(x: 1, y: 0, SIMD4(0, 0, 0, 0))  // transparent: leaves the canvas
        top.setPixel(x: 2, y: 0, SIMD4(10, 20, 30, 255))  // opaque: replaces
        canvas.draw(top, x: 0, y: 0, blendsOver: true)
        let over = try #require(canvas.makeBitmap())
        // 200 * (255 - 128) / 255 = 99.6 -> 100; 100 * 127 / 255 = 49.8 -> 50; alpha 128 + 255 * 127 / 255 = 255.
        #expect(over.pixel(x: 0, y: 0) == SIMD4(100, 50, 64, 255))
        #expect(over.pixel(x: 1, y: 0) == SIMD4(200, 100, 0, 255))
        #expect(over.pixel(x: 2, y: 0) == SIMD4(10, 20, 30, 255))
        canvas.draw(top, x: 0, y: 0, blendsOver: false)
        let source = try #require(canvas.makeBitmap())
        #expect(source.pixel(x: 0, y: 0) == SIMD4(0, 0, 64, 128) && source.pixel(x: 1, y: 0) == SIMD4(0, 0, 0, 0))
    }

    @Test("gray and opaque frames are drawn as opaque RGBA, clipped to the canvas")
    func formats() throws {
        let canvas = AnimationCanvas(width: 4, height: 4)
        canvas.draw(
            TestImages.solid(width: 3, height: 3, SIMD4(90, 90, 90, 255), format: .gray8), x: 2, y: -1, blendsOver: true
        )
        let bitmap = try #require(canvas.makeBitmap())
        #expect(
            bitmap.pixel(x: 2, y: 0) == SIMD4(90, 90, 90, 255) && bitmap.pixel(x: 3, y: 1) == SIMD4(90, 90, 90, 255))
        #expect(bitmap.pixel(x: 1, y: 0) == SIMD4(0, 0, 0, 0) && bitmap.pixel(x: 2, y: 2) == SIMD4(0, 0, 0, 0))
    }
}
