/// Maps TIP's (ImageIO's) 0...1 JPEG quality onto libjpeg's 1...100 scale by interpolating the
/// JFIF-equivalence table TIP documents (0.999 → 100, 0.830 → 95, 0.575 → 85, 0.465 → 75,
/// 0.400 → 65, then linearly down to 1 at 0).
enum JPEGQualityMapping {
    /// (TIP quality, libjpeg quality) anchor points, ascending.
    static let table: [(tip: Double, libjpeg: Double)] = [
        (0.0, 1), (0.400, 65), (0.465, 75), (0.575, 85), (0.830, 95), (0.999, 100),
    ]

    /// The libjpeg quality (1...100) for a TIP quality; out-of-range values are clamped and NaN
    /// is treated as TIP's default 0.575.
    static func libjpegQuality(forTIPQuality quality: Float) -> Int {
        var q = quality.isNaN ? 0.575 : Double(quality)
        q = min(max(q, 0), 1)
        if q >= 0.999 { return 100 }
        var lower = table[0]
        for upper in table.dropFirst() {
            if q <= upper.tip {
                let t = (q - lower.tip) / (upper.tip - lower.tip)
                let value = lower.libjpeg + t * (upper.libjpeg - lower.libjpeg)
                return min(100, max(1, Int(value.rounded())))
            }
            lower = upper
        }
        return 100
    }
}
