import Foundation
import TIP

/// Generated pictures for the sample corpus: smooth, photo-like and different for every seed.
enum SampleImages {
    /// An opaque `width` x `height` picture; `seed` picks its colours, `phase` shifts it (animation frames).
    /// `posterized` keeps 6 levels per channel (216 colours), which a GIF palette holds exactly.
    static func photo(width: Int, height: Int, seed: Int = 0, phase: Int = 0, posterized: Bool = false) -> Bitmap? {
        guard var bitmap = Bitmap(width: width, height: height, format: .rgbx8) else { return nil }
        let shift = Double(phase) * 0.125 + Double(seed) * 0.37
        let hue = Double(seed % 7) / 7
        // Red depends on x only and green on y only: one row and one column of sines instead of one per pixel.
        let level: (Double) -> UInt8 = { value in
            posterized ? UInt8((value / 51).rounded() * 51) : UInt8(value)
        }
        let reds = (0..<width).map { x in level(127.5 + 127.5 * sin(6.28 * (Double(x) / Double(width) + shift))) }
        let greens = (0..<height).map { y in
            level(127.5 + 127.5 * cos(6.28 * (Double(y) / Double(height) * 1.5 - shift + hue)))
        }
        // Blue takes one of 6 levels per pixel only when posterized.
        let blueLevels: [UInt8] = (0...255).map { level(Double($0)) }
        let stride = bitmap.bytesPerRow
        bitmap.withUnsafeMutableBytes { bytes in
            guard let base = bytes.baseAddress else { return }
            for y in 0..<height {
                let row = base + y * stride
                let fy = Double(y) / Double(height)
                for x in 0..<width {
                    let blue = blueLevels[Int(255 * (Double(x) / Double(width)) * (fy * (1 - hue) + hue * 0.5))]
                    row.storeBytes(
                        of: SIMD4<UInt8>(reds[x], greens[y], blue, 255), toByteOffset: x * 4, as: SIMD4<UInt8>.self)
                }
            }
        }
        return bitmap
    }
}
