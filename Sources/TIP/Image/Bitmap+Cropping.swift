import Foundation

extension Bitmap {
    /// The `width` x `height` pixels whose top-left corner is at (`x`, `y`), in a new bitmap of the same
    /// format; `self` when the rectangle is the whole bitmap.
    ///
    /// ```swift
    /// let square = bitmap.cropped(x: 50, y: 0, width: 200, height: 200)
    /// ```
    ///
    /// The rectangle must lie inside the bitmap and have positive sides (a precondition). Costs one copy
    /// of the kept rows.
    public func cropped(x: Int, y: Int, width: Int, height: Int) -> Bitmap {
        precondition(
            width > 0 && height > 0 && x >= 0 && y >= 0 && x + width <= self.width && y + height <= self.height,
            "crop rectangle outside the bitmap")
        if x == 0 && y == 0 && width == self.width && height == self.height { return self }
        guard var out = Bitmap(uninitializedWidth: width, height: height, format: format) else {
            preconditionFailure("crop: \(width)x\(height) is too large to allocate")
        }
        let bpp = format.bytesPerPixel, rowBytes = width * bpp
        let srcStride = bytesPerRow, dstStride = out.bytesPerRow
        withUnsafeBytes { src in
            out.withUnsafeMutableBytes { dst in
                guard let s = src.baseAddress, let d = dst.baseAddress else { return }
                for row in 0..<height {
                    (d + row * dstStride).copyMemory(from: s + (y + row) * srcStride + x * bpp, byteCount: rowBytes)
                }
            }
        }
        return out
    }
}
