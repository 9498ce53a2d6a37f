import Foundation

@testable import TIP

/// Deterministic synthetic images for tests: smooth gradients with detail, so that lossy codecs and
/// resamplers have something realistic to work on, and a fresh clone needs no files.
enum TestImages {
    /// A photo-like opaque image: diagonal gradients, a few hard edges and a little deterministic noise.
    static func photo(width: Int, height: Int, format: PixelFormat = .rgbx8, seed: UInt64 = 1) -> Bitmap {
        var bitmap = Bitmap(width: width, height: height, format: format)!
        var rng = SplitMix64(seed: seed)
        for y in 0..<height {
            for x in 0..<width {
                let fx = Double(x) / Double(max(width - 1, 1)), fy = Double(y) / Double(max(height - 1, 1))
                var r = 255 * fx, g = 255 * fy, b = 255 * (1 - fx) * (0.5 + 0.5 * fy)
                if (x / max(width / 6, 1) + y / max(height / 5, 1)) % 2 == 0 { r = 255 - r * 0.5 }
                let noise = Double(Int(rng.next() % 9) - 4)
                r += noise; g += noise; b += noise
                bitmap.setPixel(x: x, y: y, SIMD4(clamp(r), clamp(g), clamp(b), 255))
            }
        }
        return bitmap
    }

    /// An image with varying alpha (premultiplied): opaque centre fading to transparent corners.
    static func translucent(width: Int, height: Int, seed: UInt64 = 2) -> Bitmap {
        var bitmap = Bitmap(width: width, height: height, format: .rgba8Premultiplied)!
        let cx = Double(width) / 2, cy = Double(height) / 2
        let maxD = (cx * cx + cy * cy).squareRoot()
        for y in 0..<height {
            for x in 0..<width {
                let d = ((Double(x) - cx) * (Double(x) - cx) + (Double(y) - cy) * (Double(y) - cy)).squareRoot()
                let a = clamp(255 * (1 - d / maxD) * 1.3)
                let r = clamp(255 * Double(x) / Double(max(width - 1, 1)))
                let g = clamp(255 * Double(y) / Double(max(height - 1, 1)))
                let b: UInt8 = 128
                func pm(_ c: UInt8) -> UInt8 { UInt8((Int(c) * Int(a) + 127) / 255) }
                bitmap.setPixel(x: x, y: y, SIMD4(pm(r), pm(g), pm(b), a))
            }
        }
        return bitmap
    }

    /// A solid colour.
    static func solid(width: Int, height: Int, _ color: SIMD4<UInt8>, format: PixelFormat = .rgba8Premultiplied)
        -> Bitmap
    {
        var bitmap = Bitmap(width: width, height: height, format: format)!
        for y in 0..<height { for x in 0..<width { bitmap.setPixel(x: x, y: y, color) } }
        return bitmap
    }

    private static func clamp(_ v: Double) -> UInt8 { UInt8(max(0, min(255, v.rounded()))) }
}

/// A small deterministic random number generator (SplitMix64) for reproducible tests.
struct SplitMix64: RandomNumberGenerator {
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
