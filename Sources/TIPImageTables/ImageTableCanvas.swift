import Foundation
import TIP

/// The pixels of one image-table entry while a drawing fills them: the entry's own memory in the table's
/// file, written in place (no copy). It exists only for the duration of a drawing (it cannot be copied or
/// kept).
///
/// ```swift
/// canvas.fill(SIMD4(0, 0, 0, 255))
/// canvas.draw(bitmap, x: 4, y: 4)
/// ```
///
/// Colours are premultiplied RGBA whatever the table's pixel format: opaque formats ignore alpha after
/// compositing, gray keeps the luma (the same rule as ``Bitmap/setPixel(x:y:_:)``). Row padding and the
/// fourth byte of `rgbx8` are set right by the table once the drawing returns.
public struct ImageTableCanvas: ~Copyable {
    /// Width in pixels (the format's).
    public let width: Int
    /// Height in pixels (the format's).
    public let height: Int
    /// Bytes from one row to the next: a multiple of 64.
    public let bytesPerRow: Int
    /// The table's pixel format.
    public let pixelFormat: PixelFormat
    private let pixels: UnsafeMutableRawPointer
    /// True from ``clear()`` until the first change: drawing onto a cleared canvas of the same format is a
    /// copy (source-over onto transparent black leaves the source as it is).
    private var isCleared = false

    init(pixels: UnsafeMutableRawPointer, width: Int, height: Int, bytesPerRow: Int, pixelFormat: PixelFormat) {
        self.pixels = pixels
        self.width = width
        self.height = height
        self.bytesPerRow = bytesPerRow
        self.pixelFormat = pixelFormat
    }

    /// Calls `body` with the entry's bytes (`bytesPerRow * height`), for drawing code of your own.
    public mutating func withUnsafeMutableBytes<R>(_ body: (UnsafeMutableRawBufferPointer) throws -> R) rethrows -> R {
        isCleared = false
        return try body(UnsafeMutableRawBufferPointer(start: pixels, count: bytesPerRow * height))
    }

    /// The pixel at (`x`, `y`) as premultiplied RGBA.
    public func pixel(x: Int, y: Int) -> SIMD4<UInt8> {
        precondition(x >= 0 && x < width && y >= 0 && y < height, "pixel out of bounds")
        return Self.load(pixels + y * bytesPerRow + x * pixelFormat.bytesPerPixel, pixelFormat)
    }

    /// Sets the pixel at (`x`, `y`) (no blending).
    public mutating func setPixel(x: Int, y: Int, _ value: SIMD4<UInt8>) {
        precondition(x >= 0 && x < width && y >= 0 && y < height, "pixel out of bounds")
        isCleared = false
        Self.store(value, pixels + y * bytesPerRow + x * pixelFormat.bytesPerPixel, pixelFormat)
    }

    /// Sets every pixel to `color` (no blending).
    public mutating func fill(_ color: SIMD4<UInt8>) {
        isCleared = false
        let step = pixelFormat.bytesPerPixel
        for y in 0..<height {
            let row = pixels + y * bytesPerRow
            for x in 0..<width { Self.store(color, row + x * step, pixelFormat) }
        }
    }

    /// Draws `bitmap` with its top-left corner at (`x`, `y`), clipped to the canvas, composited over what
    /// is there (source-over; an opaque bitmap replaces the pixels).
    public mutating func draw(_ bitmap: Bitmap, x: Int, y: Int) {
        let left = max(0, -x), top = max(0, -y)
        let right = min(bitmap.width, width - x), bottom = min(bitmap.height, height - y)
        guard left < right, top < bottom else { return }
        let canvasFormat = pixelFormat, stride = bytesPerRow, base = pixels
        let copies = bitmap.format == canvasFormat && (isCleared || !bitmap.format.hasAlpha)
        isCleared = false
        bitmap.withUnsafeBytes { source in
            guard let from = source.baseAddress else { return }
            let sourceStep = bitmap.format.bytesPerPixel, step = canvasFormat.bytesPerPixel
            for row in top..<bottom {
                let sourceRow = from + row * bitmap.bytesPerRow + left * sourceStep
                let canvasRow = base + (y + row) * stride + (x + left) * step
                if copies {
                    canvasRow.copyMemory(from: sourceRow, byteCount: (right - left) * step)
                    continue
                }
                for column in 0..<(right - left) {
                    let value = Self.load(sourceRow + column * sourceStep, bitmap.format)
                    let target = canvasRow + column * step
                    Self.store(Self.sourceOver(value, Self.load(target, canvasFormat)), target, canvasFormat)
                }
            }
        }
    }

    /// Draws `bitmap` centred (a larger bitmap is cropped evenly on both sides).
    public mutating func drawCentered(_ bitmap: Bitmap) {
        draw(bitmap, x: (width - bitmap.width) / 2, y: (height - bitmap.height) / 2)
    }

    /// Clears every byte, then applies the format's rules (the state a drawing starts from).
    mutating func clear() {
        pixels.initializeMemory(as: UInt8.self, repeating: 0, count: bytesPerRow * height)
        normalize()
        isCleared = true
    }

    /// Zeroes the row padding and sets `rgbx8`'s fourth byte to 255, as ``Bitmap`` requires.
    mutating func normalize() {
        let used = width * pixelFormat.bytesPerPixel
        for y in 0..<height {
            let row = pixels + y * bytesPerRow
            if used < bytesPerRow {
                (row + used).initializeMemory(as: UInt8.self, repeating: 0, count: bytesPerRow - used)
            }
            if pixelFormat == .rgbx8 {
                for x in 0..<width { row.storeBytes(of: 255, toByteOffset: x * 4 + 3, as: UInt8.self) }
            }
        }
    }

    private static func load(_ p: UnsafeRawPointer, _ format: PixelFormat) -> SIMD4<UInt8> { format.loadPixel(from: p) }

    private static func store(_ value: SIMD4<UInt8>, _ p: UnsafeMutableRawPointer, _ format: PixelFormat) {
        format.storePixel(value, to: p)
    }

    /// Premultiplied source-over: `source + destination * (255 - source alpha) / 255`, rounded.
    private static func sourceOver(_ source: SIMD4<UInt8>, _ destination: SIMD4<UInt8>) -> SIMD4<UInt8> {
        let alpha = Int(source[3])
        if alpha == 255 { return source }
        if alpha == 0 { return destination }
        var out = SIMD4<UInt8>()
        for channel in 0..<4 {
            let scaled = Int(destination[channel]) * (255 - alpha) + 127
            out[channel] = UInt8(min(255, Int(source[channel]) + (scaled + (scaled >> 8)) >> 8))
        }
        return out
    }
}
