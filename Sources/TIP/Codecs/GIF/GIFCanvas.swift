import Foundation

/// The logical screen a GIF's frames are composited on: one premultiplied RGBA word per pixel
/// (bytes r, g, b, a in memory), fully transparent at the start.
///
/// ```swift
/// let canvas = GIFCanvas(width: 480, height: 320)
/// canvas.drawRow(line, count: 480, x: 0, y: 0, palette: palette)
/// let frame = canvas.makeBitmap()
/// ```
///
/// Used by one decode on one thread; not shared.
final class GIFCanvas {
    /// Width in pixels.
    let width: Int
    /// Height in pixels.
    let height: Int
    private let pixels: UnsafeMutablePointer<UInt32>
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

    /// Disposal 2: the rectangle (clipped) becomes transparent, as browsers do.
    func clear(left: Int, top: Int, width w: Int, height h: Int) {
        guard let r = clip(left: left, top: top, width: w, height: h) else { return }
        for y in r.y0..<r.y1 {
            (pixels + y * width + r.x0).update(repeating: 0, count: r.x1 - r.x0)
        }
    }

    /// Remembers the current pixels for a later ``restore()`` (disposal 3).
    func save() {
        let count = width * height
        let copy = saved ?? .allocate(capacity: count)
        copy.update(from: pixels, count: count)
        saved = copy
    }

    /// Disposal 3: back to the pixels of the last ``save()``, or transparent when there was none.
    func restore() {
        if let saved {
            pixels.update(from: saved, count: width * height)
        } else {
            pixels.update(repeating: 0, count: width * height)
        }
    }

    /// Draws `count` palette indices starting at canvas column `x` of row `y` (which may be off the
    /// canvas: the row is clipped). `palette` has 256 entries; an entry of 0 means "leave the pixel"
    /// (the transparent index, and indices past the colour table).
    func drawRow(_ indices: UnsafePointer<UInt8>, count: Int, x: Int, y: Int, palette: UnsafePointer<UInt32>) {
        guard y >= 0, y < height else { return }
        let start = max(0, x), end = min(width, x + count)
        guard start < end else { return }
        let row = pixels + y * width
        var i = start
        var source = indices + (start - x)
        while i < end {
            let colour = palette[Int(source.pointee)]
            if colour != 0 { row[i] = colour }
            i += 1
            source += 1
        }
    }

    /// A copy of the canvas as an `rgba8Premultiplied` bitmap.
    func makeBitmap() -> Bitmap? {
        guard var bitmap = Bitmap(uninitializedWidth: width, height: height, format: .rgba8Premultiplied) else { return nil }
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
