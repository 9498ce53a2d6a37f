import Foundation
import Testing

@testable import TIP

@Suite("Processing: rounded corners and circles")
struct ShapeMaskTests {
    /// The share of pixel (x, y) inside the rounded rectangle `width` x `height` with corner `radius`,
    /// inset by `inset`, by 32x32 point sampling: an independent reading of the geometry.
    static func sampledCoverage(x: Int, y: Int, width: Double, height: Double, radius: Double, inset: Double = 0)
        -> Double
    {
        let n = 32
        let left = inset, top = inset, right = width - inset, bottom = height - inset
        guard right > left, bottom > top else { return 0 }
        let r = min(max(radius - inset, 0), (right - left) / 2, (bottom - top) / 2)
        var inside = 0
        for i in 0..<n {
            for j in 0..<n {
                let px = Double(x) + (Double(i) + 0.5) / Double(n), py = Double(y) + (Double(j) + 0.5) / Double(n)
                guard px >= left, px <= right, py >= top, py <= bottom else { continue }
                let cx = min(max(px, left + r), right - r), cy = min(max(py, top + r), bottom - r)
                if (px - cx) * (px - cx) + (py - cy) * (py - cy) <= r * r { inside += 1 }
            }
        }
        return Double(inside) / Double(n * n)
    }

    @Test(
        "Corner alpha matches the sampled geometry; the inside is untouched and the outside fully transparent",
        arguments: [(24, 16, 5.0), (31, 31, 15.5), (40, 10, 3.5), (9, 9, 20.0)])
    func roundedCoverage(width: Int, height: Int, radius: Double) throws {
        let photo = TestImages.photo(width: width, height: height)
        let out = try ImageProcessors.RoundedCorners(radius: radius).process(photo, context: ImageProcessingContext())
        #expect(out.format == .rgba8Premultiplied && out.width == width && out.height == height)
        let r = min(radius, Double(min(width, height)) / 2)
        var worst = 0.0
        for y in 0..<height {
            for x in 0..<width {
                let expected = Self.sampledCoverage(x: x, y: y, width: Double(width), height: Double(height), radius: r)
                let p = out.pixel(x: x, y: y), source = photo.pixel(x: x, y: y)
                worst = max(worst, abs(Double(p[3]) / 255 - expected))
                if expected == 1 { #expect(p == source, "(\(x), \(y)) inside must be untouched") }
                if expected == 0 { #expect(p == .zero, "(\(x), \(y)) outside must be transparent") }
                for c in 0..<3 {
                    #expect(p[c] <= p[3])
                    // Colour is the source's scaled by the coverage.
                    #expect(abs(Int(p[c]) - Int((Double(source[c]) * Double(p[3]) / 255).rounded())) <= 1)
                }
            }
        }
        #expect(worst <= 0.08, "largest alpha error \(worst)")
    }

    @Test("The circle is the centred square's inscribed disc, symmetric, antialiased")
    func circle() throws {
        for (width, height) in [(30, 20), (20, 30), (21, 21), (1, 1), (2, 5)] {
            let photo = TestImages.photo(width: width, height: height)
            let out = try ImageProcessors.Circle().process(photo, context: ImageProcessingContext())
            let side = min(width, height)
            #expect(out.width == side && out.height == side && out.format == .rgba8Premultiplied)
            let square = photo.cropped(x: (width - side) / 2, y: (height - side) / 2, width: side, height: side)
            var worst = 0.0
            for y in 0..<side {
                for x in 0..<side {
                    let alpha = out.pixel(x: x, y: y)[3]
                    #expect(
                        alpha == out.pixel(x: side - 1 - x, y: y)[3] && alpha == out.pixel(x: x, y: side - 1 - y)[3]
                            && alpha == out.pixel(x: y, y: x)[3])
                    let expected = Self.sampledCoverage(
                        x: x, y: y, width: Double(side), height: Double(side), radius: Double(side) / 2)
                    worst = max(worst, abs(Double(alpha) / 255 - expected))
                    if alpha == 255 { #expect(out.pixel(x: x, y: y) == square.pixel(x: x, y: y)) }
                }
            }
            // A 1-pixel disc covers π/4 of its pixel; the distance estimate is coarser for tiny discs.
            #expect(worst <= (side < 4 ? 0.25 : 0.08), "\(width)x\(height): largest alpha error \(worst)")
        }
    }

    @Test("A border fills the ring between the shape and its inset, antialiased on both edges, over the image")
    func border() throws {
        let black = TestImages.solid(width: 32, height: 24, SIMD4(0, 0, 0, 255), format: .rgbx8)
        let border = ImageProcessors.Border(width: 3, color: SIMD4(255, 255, 255, 255))
        let out = try ImageProcessors.RoundedCorners(radius: 8, border: border).process(
            black, context: ImageProcessingContext())
        var worst = 0.0
        for y in 0..<24 {
            for x in 0..<32 {
                let outer = Self.sampledCoverage(x: x, y: y, width: 32, height: 24, radius: 8)
                let inner = Self.sampledCoverage(x: x, y: y, width: 32, height: 24, radius: 8, inset: 3)
                let p = out.pixel(x: x, y: y)
                worst = max(worst, abs(Double(p[3]) / 255 - outer), abs(Double(p[0]) / 255 - (outer - inner)))
                #expect(p[0] == p[1] && p[1] == p[2] && p[0] <= p[3])
            }
        }
        #expect(worst <= 0.08, "largest error \(worst)")
        // Straight edges: exactly 3 white columns, then the image.
        #expect(
            out.pixel(x: 0, y: 12) == SIMD4(255, 255, 255, 255) && out.pixel(x: 2, y: 12) == SIMD4(255, 255, 255, 255))
        #expect(out.pixel(x: 3, y: 12) == SIMD4(0, 0, 0, 255))
        // A translucent border colour is premultiplied.
        let half = try ImageProcessors.Circle(border: .init(width: 2, color: SIMD4(255, 0, 0, 128))).process(
            TestImages.solid(width: 16, height: 16, SIMD4(0, 0, 0, 0)), context: ImageProcessingContext())
        #expect(half.pixel(x: 8, y: 1) == SIMD4(128, 0, 0, 128))
        // Drawn over the image, as a stroke is: an opaque image shows through a translucent border, and stays opaque.
        let overWhite = try ImageProcessors.Circle(border: .init(width: 2, color: SIMD4(255, 0, 0, 128))).process(
            TestImages.solid(width: 16, height: 16, SIMD4(255, 255, 255, 255), format: .rgbx8),
            context: ImageProcessingContext())
        #expect(overWhite.pixel(x: 8, y: 1) == SIMD4(255, 127, 127, 255))
        #expect(overWhite.pixel(x: 8, y: 8) == SIMD4(255, 255, 255, 255))
        // A border wider than the shape fills it.
        let full = try ImageProcessors.Circle(border: .init(width: 50, color: SIMD4(0, 0, 255, 255))).process(
            TestImages.photo(width: 9, height: 9), context: ImageProcessingContext())
        #expect(full.pixel(x: 4, y: 4) == SIMD4(0, 0, 255, 255))
    }

    @Test("Premultiplied input stays premultiplied at the edges; gray and opaque inputs become premultiplied RGBA")
    func formats() throws {
        let translucent = TestImages.translucent(width: 25, height: 19)
        for processor in [
            ImageProcessors.RoundedCorners(radius: 6) as any ImageProcessor,
            ImageProcessors.Circle(border: .init(width: 1.5, color: SIMD4(10, 200, 30, 200))),
        ] {
            for input in [translucent, translucent.converted(to: .gray8), translucent.converted(to: .rgbx8)] {
                let out = try processor.process(input, context: ImageProcessingContext())
                #expect(out.format == .rgba8Premultiplied)
                for y in 0..<out.height {
                    for x in 0..<out.width {
                        let p = out.pixel(x: x, y: y); #expect(p[0] <= p[3] && p[1] <= p[3] && p[2] <= p[3])
                    }
                }
            }
        }
        // Gray input keeps its values inside.
        let gray = TestImages.photo(width: 12, height: 12).converted(to: .gray8)
        let rounded = try ImageProcessors.RoundedCorners(radius: 3).process(gray, context: ImageProcessingContext())
        #expect(rounded.pixel(x: 6, y: 6) == gray.pixel(x: 6, y: 6))
        // Radius 0 and no border: nothing to do.
        #expect(try ImageProcessors.RoundedCorners(radius: 0).process(gray, context: ImageProcessingContext()) == gray)
    }

    @Test("One-pixel images")
    func onePixel() throws {
        let one = TestImages.solid(width: 1, height: 1, SIMD4(200, 100, 50, 255), format: .rgbx8)
        let rounded = try ImageProcessors.RoundedCorners(radius: 10).process(one, context: ImageProcessingContext())
        let circle = try ImageProcessors.Circle().process(one, context: ImageProcessingContext())
        // A disc of radius 0.5 around the centre: the distance estimate gives it full coverage.
        #expect(rounded.pixel(x: 0, y: 0)[3] == circle.pixel(x: 0, y: 0)[3])
        #expect(circle.pixel(x: 0, y: 0)[3] > 128)
    }
}
