import Foundation

@testable import TIP

/// Pixel comparisons for tests.
enum ImageComparison {
    /// Peak signal-to-noise ratio in dB over the RGB channels (alpha too when either has it);
    /// `.infinity` for identical images. Both bitmaps must have the same dimensions.
    static func psnr(_ a: Bitmap, _ b: Bitmap) -> Double {
        precondition(a.width == b.width && a.height == b.height, "psnr needs equal dimensions")
        let withAlpha = a.format.hasAlpha || b.format.hasAlpha
        var sum = 0.0
        var count = 0
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
        let mse = sum / Double(count)
        return 10 * log10(255 * 255 / mse)
    }

    /// The largest per-channel difference between two bitmaps of equal dimensions.
    static func maxDifference(_ a: Bitmap, _ b: Bitmap) -> Int {
        precondition(a.width == b.width && a.height == b.height, "maxDifference needs equal dimensions")
        var worst = 0
        for y in 0..<a.height {
            for x in 0..<a.width {
                let p = a.pixel(x: x, y: y), q = b.pixel(x: x, y: y)
                for c in 0..<4 { worst = max(worst, abs(Int(p[c]) - Int(q[c]))) }
            }
        }
        return worst
    }
}
