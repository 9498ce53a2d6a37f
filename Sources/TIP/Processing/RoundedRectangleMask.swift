import Foundation

/// Cuts a bitmap to a rounded rectangle (a circle when the radius is half a square's side), antialiased,
/// with an optional border drawn inside the edge: the work behind ``ImageProcessors/RoundedCorners`` and
/// ``ImageProcessors/Circle``.
///
/// Each pixel's coverage by a shape is `clamp(0.5 - d, 0, 1)`, `d` the signed distance (pixels, negative
/// inside) from the pixel's centre to the shape's edge. With a border, the border colour covers the ring between the
/// outer shape and the shape inset by the border width, composited over the image as a stroke is drawn (source
/// over): a translucent border shows the image through it.
/// Only pixels near the edge are computed: the shape is symmetric, so each row is scanned from its left end
/// until the first fully covered pixel and mirrored.
struct RoundedRectangleMask {
    /// Shape size in pixels: the image's.
    let width: Int
    let height: Int
    /// Corner radius in pixels, 0...min(width, height) / 2.
    let radius: Double
    /// Border width in pixels (0: none) and its premultiplied colour.
    let borderWidth: Double
    let borderColor: SIMD4<UInt8>

    /// `image` (`width` x `height`) masked, as premultiplied RGBA.
    func apply(to image: Bitmap) -> Bitmap {
        precondition(image.width == width && image.height == height, "mask and image sizes differ")
        var out = image.converted(to: .rgba8Premultiplied)
        let stride = out.bytesPerRow
        let hasBorder = borderWidth > 0
        let borderTransparency = 1 - Float(borderColor[3]) / 255
        let half = (width + 1) / 2
        out.withUnsafeMutableBytes { bytes in
            guard let base = bytes.baseAddress else { return }
            for y in 0..<height {
                let row = base + y * stride
                let py = Double(y) + 0.5
                for x in 0..<half {
                    let px = Double(x) + 0.5
                    let outer = coverage(px, py, inset: 0)
                    let inner = hasBorder ? coverage(px, py, inset: borderWidth) : outer
                    if inner >= 1 { break }
                    // The image inside the inset shape, and under the ring where the border lets it through.
                    let ring = Float(outer - inner)
                    let weights = (image: Float(inner) + ring * borderTransparency, border: ring)
                    blend(row + x * 4, weights)
                    if width - 1 - x != x { blend(row + (width - 1 - x) * 4, weights) }
                }
            }
        }
        return out
    }

    /// The pixel at `pointer` times `weights.image`, plus the border colour times `weights.border`.
    @inline(__always)
    private func blend(_ pointer: UnsafeMutableRawPointer, _ weights: (image: Float, border: Float)) {
        let border = SIMD4<Float>(
            Float(borderColor[0]), Float(borderColor[1]), Float(borderColor[2]), Float(borderColor[3]))
        let pixel = SIMD4<Float>(pointer.loadUnaligned(as: SIMD4<UInt8>.self))
        var mixed = pixel * weights.image + border * weights.border
        mixed.round(.toNearestOrAwayFromZero)
        let value = SIMD4<UInt8>(clamping: SIMD4<Int32>(mixed))
        // Colour ≤ alpha holds before rounding (both weights apply to every channel); the minimum keeps it after.
        pointer.storeBytes(of: pointwiseMin(value, SIMD4(repeating: value[3])), as: SIMD4<UInt8>.self)
    }

    /// The share (0...1) of the pixel centred at (`px`, `py`) inside the shape inset by `inset` pixels
    /// (its radius shrinks by as much, down to 0).
    func coverage(_ px: Double, _ py: Double, inset: Double) -> Double {
        let halfWidth = Double(width) / 2 - inset, halfHeight = Double(height) / 2 - inset
        guard halfWidth > 0, halfHeight > 0 else { return 0 }
        let r = min(max(0, radius - inset), min(halfWidth, halfHeight))
        let qx = abs(px - Double(width) / 2) - (halfWidth - r), qy = abs(py - Double(height) / 2) - (halfHeight - r)
        let outside = (max(qx, 0) * max(qx, 0) + max(qy, 0) * max(qy, 0)).squareRoot()
        let distance = outside + min(max(qx, qy), 0) - r
        return min(1, max(0, 0.5 - distance))
    }
}
