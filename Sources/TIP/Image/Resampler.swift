/// Resizes bitmaps with a separable filter.
///
/// ```swift
/// let thumbnail = Resampler.resample(bitmap, width: 400, height: 267)
/// ```
public enum Resampler {
    /// `bitmap` resized to `width` x `height` (both > 0) with the filter chosen by `quality`.
    /// Returns `bitmap` itself when the size does not change. Works on premultiplied pixels, so
    /// transparent edges do not bleed colour.
    public static func resample(_ bitmap: Bitmap, width: Int, height: Int, quality: InterpolationQuality = .default) -> Bitmap {
        precondition(width > 0 && height > 0, "resample needs positive dimensions")
        if width == bitmap.width && height == bitmap.height { return bitmap }
        // Placeholder: nearest neighbour. Replaced by the fixed-point separable filter.
        var out = Bitmap(uninitializedWidth: width, height: height, format: bitmap.format)!
        let bpp = bitmap.format.bytesPerPixel
        bitmap.withUnsafeBytes { src in
            let stride = out.bytesPerRow
            out.withUnsafeMutableBytes { dst in
                for y in 0..<height {
                    let sy = min(bitmap.height - 1, (2 * y + 1) * bitmap.height / (2 * height))
                    for x in 0..<width {
                        let sx = min(bitmap.width - 1, (2 * x + 1) * bitmap.width / (2 * width))
                        (dst.baseAddress! + y * stride + x * bpp).copyMemory(from: src.baseAddress! + sy * bitmap.bytesPerRow + sx * bpp, byteCount: bpp)
                    }
                }
            }
        }
        return out
    }
}
