import Foundation

@testable import TIP

/// Deterministic synthetic images and pixel comparisons for the WebP tests.
enum WebPTestImages {
    /// An opaque photo-like image: gradients, hard edges and a little deterministic noise.
    static func photo(width: Int, height: Int, seed: UInt64 = 1) -> Bitmap {
        var bitmap = Bitmap(width: width, height: height, format: .rgbx8)!
        var state = seed
        for y in 0..<height {
            for x in 0..<width {
                state = state &* 6_364_136_223_846_793_005 &+ 1_442_695_040_888_963_407
                let noise = Int(state >> 61) - 4
                let fx = Double(x) / Double(max(width - 1, 1)), fy = Double(y) / Double(max(height - 1, 1))
                var r = 255 * fx, g = 255 * fy, b = 255 * (1 - fx) * (0.5 + 0.5 * fy)
                if (x / max(width / 6, 1) + y / max(height / 5, 1)) % 2 == 0 { r = 255 - r * 0.5 }
                r += Double(noise); g += Double(noise); b += Double(noise)
                bitmap.setPixel(x: x, y: y, SIMD4(clamp(r), clamp(g), clamp(b), 255))
            }
        }
        return bitmap
    }

    /// A premultiplied image with alpha from opaque (centre) to transparent (corners).
    static func translucent(width: Int, height: Int) -> Bitmap {
        var bitmap = Bitmap(width: width, height: height, format: .rgba8Premultiplied)!
        let cx = Double(width) / 2, cy = Double(height) / 2
        let maxD = (cx * cx + cy * cy).squareRoot()
        for y in 0..<height {
            for x in 0..<width {
                let d = ((Double(x) - cx) * (Double(x) - cx) + (Double(y) - cy) * (Double(y) - cy)).squareRoot()
                let a = clamp(255 * (1 - d / maxD) * 1.3)
                let r = clamp(255 * Double(x) / Double(max(width - 1, 1)))
                let g = clamp(255 * Double(y) / Double(max(height - 1, 1)))
                func pm(_ c: UInt8) -> UInt8 { UInt8((Int(c) * Int(a) + 127) / 255) }
                bitmap.setPixel(x: x, y: y, SIMD4(pm(r), pm(g), pm(128), a))
            }
        }
        return bitmap
    }

    /// A solid colour (premultiplied RGBA).
    static func solid(width: Int, height: Int, _ color: SIMD4<UInt8>) -> Bitmap {
        var bitmap = Bitmap(width: width, height: height, format: .rgba8Premultiplied)!
        for y in 0..<height { for x in 0..<width { bitmap.setPixel(x: x, y: y, color) } }
        return bitmap
    }

    /// Peak signal-to-noise ratio in dB over RGB (and alpha when either has it); infinity when equal.
    static func psnr(_ a: Bitmap, _ b: Bitmap) -> Double {
        precondition(a.width == b.width && a.height == b.height)
        let withAlpha = a.format.hasAlpha || b.format.hasAlpha
        var sum = 0.0, count = 0
        for y in 0..<a.height {
            for x in 0..<a.width {
                let p = a.pixel(x: x, y: y), q = b.pixel(x: x, y: y)
                for c in 0..<(withAlpha ? 4 : 3) {
                    let d = Double(p[c]) - Double(q[c])
                    sum += d * d
                }
                count += withAlpha ? 4 : 3
            }
        }
        if sum == 0 { return .infinity }
        return 10 * log10(255 * 255 / (sum / Double(count)))
    }

    /// The largest per-channel difference.
    static func maxDifference(_ a: Bitmap, _ b: Bitmap) -> Int {
        precondition(a.width == b.width && a.height == b.height)
        var worst = 0
        for y in 0..<a.height {
            for x in 0..<a.width {
                let p = a.pixel(x: x, y: y), q = b.pixel(x: x, y: y)
                for c in 0..<4 { worst = max(worst, abs(Int(p[c]) - Int(q[c]))) }
            }
        }
        return worst
    }

    private static func clamp(_ v: Double) -> UInt8 { UInt8(max(0, min(255, v.rounded()))) }
}
