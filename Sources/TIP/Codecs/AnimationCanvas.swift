import Foundation

/// The canvas an animation's frames are composited on (GIF's logical screen, APNG's image): one
/// premultiplied RGBA word per pixel (bytes r, g, b, a in memory), fully transparent at the start.
///
/// ```swift
/// let canvas = AnimationCanvas(width: 480, height: 320)
/// canvas.draw(frameBitmap, x: 10, y: 20, blendsOver: true)
/// let frame = canvas.makeBitmap()
/// ```
///
/// Drawing a frame changes only its rectangle, so ``save()`` / ``restore()`` of the whole canvas
/// implement both GIF's disposal 3 and APNG's `APNG_DISPOSE_OP_PREVIOUS`. Used by one decode on one
/// thread; not shared.
final class AnimationCanvas {
    /// Decoded frames of one animation, as kept, may total at most this multiple of `maximumPixelCount`
    /// pixels (see ``AnimationPixelBudget``, which also bounds the work); decoders stop there and return the
    /// frames so far as a partial image.
    static let totalPixelBudgetMultiple = AnimationPixelBudget.keptMultiple

    /// Width in pixels.
    let width: Int
    /// Height in pixels.
    let height: Int
    /// `width * height` premultiplied RGBA words, row after row.
    let pixels: UnsafeMutablePointer<UInt32>
    private var saved: UnsafeMutablePointer<UInt32>?

    /// A transparent canvas; `width * height` must already have been checked against the limits.
    init(width: Int, height: Int) {
        self.width = width
        self.height = height
        pixels = .allocate(capacity: width * height)
        pixels.initialize(repeating: 0, count: width * height)
    }

    deinit {
        pixels.deallocate()
        saved?.deallocate()
    }

    /// The part of the frame rectangle that lies on the canvas, or nil when none does.
    func clip(left: Int, top: Int, width w: Int, height h: Int) -> (x0: Int, y0: Int, x1: Int, y1: Int)? {
        let x0 = max(0, left), y0 = max(0, top)
        let x1 = min(width, left + w), y1 = min(height, top + h)
        return x0 < x1 && y0 < y1 ? (x0, y0, x1, y1) : nil
    }

    /// Makes the rectangle (clipped) transparent: GIF's disposal 2 (as browsers do), APNG's
    /// `APNG_DISPOSE_OP_BACKGROUND`.
    func clear(left: Int, top: Int, width w: Int, height h: Int) {
        guard let r = clip(left: left, top: top, width: w, height: h) else { return }
        for y in r.y0..<r.y1 {
            (pixels + y * width + r.x0).update(repeating: 0, count: r.x1 - r.x0)
        }
    }

    /// Remembers the current pixels for a later ``restore()``.
    func save() {
        let count = width * height
        let copy = saved ?? .allocate(capacity: count)
        copy.update(from: pixels, count: count)
        saved = copy
    }

    /// Back to the pixels of the last ``save()``, or transparent when there was none.
    func restore() {
        if let saved {
            pixels.update(from: saved, count: width * height)
        } else {
            pixels.update(repeating: 0, count: width * height)
        }
    }

    /// Draws `frame` with its top-left corner at (`x`, `y`), clipped to the canvas. With
    /// `blendsOver`, premultiplied source-over compositing (APNG's `APNG_BLEND_OP_OVER`); otherwise
    /// the frame's pixels replace the canvas's (`APNG_BLEND_OP_SOURCE`). Gray and opaque frames are
    /// drawn as opaque RGBA.
    func draw(_ frame: Bitmap, x: Int, y: Int, blendsOver: Bool) {
        guard let r = clip(left: x, top: y, width: frame.width, height: frame.height) else { return }
        let format = frame.format, stride = frame.bytesPerRow, canvasWidth = width, pixels = self.pixels
        let blends = blendsOver && format == .rgba8Premultiplied
        frame.withUnsafeBytes { bytes in
            guard let base = bytes.baseAddress else { return }
            for row in r.y0..<r.y1 {
                let source = base + (row - y) * stride + (r.x0 - x) * format.bytesPerPixel
                let target = pixels + row * canvasWidth + r.x0
                let count = r.x1 - r.x0
                if format == .gray8 {
                    let gray = source.assumingMemoryBound(to: UInt8.self)
                    for i in 0..<count {
                        let g = UInt32(gray[i])
                        target[i] = (g | g << 8 | g << 16 | 0xFF00_0000).littleEndian
                    }
                } else if blends {
                    AnimationCanvas.blendOver(source.assumingMemoryBound(to: UInt32.self), onto: target, count: count)
                } else {
                    // rgbx8 words carry 255 in their fourth byte: they are opaque RGBA already.
                    target.update(from: source.assumingMemoryBound(to: UInt32.self), count: count)
                }
            }
        }
    }

    /// Premultiplied source-over: every channel becomes `source + destination * (255 - source alpha) / 255`
    /// (rounded), so opaque sources replace and transparent ones leave the destination.
    private static func blendOver(
        _ source: UnsafePointer<UInt32>, onto target: UnsafeMutablePointer<UInt32>, count: Int
    ) {
        for i in 0..<count {
            let s = UInt32(littleEndian: source[i])
            let alpha = s >> 24
            if alpha == 255 {
                target[i] = source[i]
            } else if alpha != 0 {
                let d = UInt32(littleEndian: target[i])
                let keep = 255 - alpha
                var out: UInt32 = 0
                for shift in stride(from: 0 as UInt32, to: 32, by: 8) {
                    let t = ((d >> shift) & 0xFF) * keep + 128
                    let scaled = (t + (t >> 8)) >> 8
                    out |= min(255, ((s >> shift) & 0xFF) + scaled) << shift
                }
                target[i] = out.littleEndian
            }
        }
    }

    /// A copy of the canvas as an `rgba8Premultiplied` bitmap.
    func makeBitmap() -> Bitmap? {
        guard var bitmap = Bitmap(uninitializedWidth: width, height: height, format: .rgba8Premultiplied) else {
            return nil
        }
        let stride = bitmap.bytesPerRow, w = width, h = height, source = UnsafeRawPointer(pixels)
        bitmap.withUnsafeMutableBytes { bytes in
            guard let base = bytes.baseAddress else { return }
            for y in 0..<h {
                (base + y * stride).copyMemory(from: source + y * w * 4, byteCount: w * 4)
            }
        }
        return bitmap
    }
}
