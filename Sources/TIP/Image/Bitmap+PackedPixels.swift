import Foundation

/// How tightly packed pixel bytes are laid out when they leave or enter a ``Bitmap``: rows of `width` pixels
/// with no padding, the top row first, 8 bits per channel, alpha straight (not premultiplied). This is what
/// most other libraries take (NumPy arrays, PIL's `frombytes`, OpenCV after a channel swap, ML runtimes).
public enum PackedPixelLayout: Sendable, CaseIterable {
    /// Red, green, blue, alpha; alpha straight.
    case rgba8
    /// Red, green, blue; no alpha (a transparent image comes out composited onto black).
    case rgb8

    /// Bytes one pixel takes: 4 or 3.
    public var bytesPerPixel: Int {
        switch self {
        case .rgba8: return 4
        case .rgb8: return 3
        }
    }
}

extension Bitmap {
    /// The pixels as tightly packed bytes in `layout`: `width * height * layout.bytesPerPixel` of them, rows
    /// without padding, alpha straight (un-premultiplied, rounded to nearest).
    ///
    /// ```swift
    /// let rgba = image.image.packedPixels(.rgba8)   // hand to NumPy, PIL, an ML model...
    /// ```
    ///
    /// `rgb8` drops alpha: a transparent pixel comes out composited onto black (its premultiplied colour).
    /// Gray bitmaps are expanded to three equal channels. O(pixels).
    public func packedPixels(_ layout: PackedPixelLayout = .rgba8) -> [UInt8] {
        let width = self.width, height = self.height, stride = bytesPerRow, format = self.format
        let outStride = width * layout.bytesPerPixel
        return [UInt8](unsafeUninitializedCapacity: outStride * height) { out, initialized in
            withUnsafeBytes { source in
                for y in 0..<height {
                    let row = source.baseAddress! + y * stride
                    let dst = out.baseAddress! + y * outStride
                    Self.pack(row: row, into: dst, width: width, format: format, layout: layout)
                }
            }
            initialized = outStride * height
        }
    }

    /// A bitmap made from tightly packed bytes in `layout` (rows without padding, top row first, alpha straight);
    /// nil when a dimension is not positive or `bytes` does not hold exactly `width * height *
    /// layout.bytesPerPixel` bytes.
    ///
    /// ```swift
    /// let bitmap = Bitmap(packedPixels: rgba, width: 640, height: 480, layout: .rgba8)
    /// ```
    ///
    /// `rgba8` gives a `.rgba8Premultiplied` bitmap (colours premultiplied, rounded to nearest), `rgb8` an opaque
    /// `.rgbx8` one. ``packedPixels(_:)`` gives the same bytes back, except that a colour under a partly
    /// transparent alpha comes back within the precision premultiplication keeps (exactly, for opaque pixels).
    public init?(packedPixels bytes: some ContiguousBytes, width: Int, height: Int, layout: PackedPixelLayout) {
        let format: PixelFormat = layout == .rgba8 ? .rgba8Premultiplied : .rgbx8
        let (rowBytes, rowOverflow) = width.multipliedReportingOverflow(by: layout.bytesPerPixel)
        let (count, overflow) = rowBytes.multipliedReportingOverflow(by: height)
        guard width > 0, height > 0, !rowOverflow, !overflow,
            var bitmap = Bitmap(uninitializedWidth: width, height: height, format: format)
        else { return nil }
        let fits = bytes.withUnsafeBytes { $0.count == count }
        guard fits else { return nil }
        let stride = bitmap.bytesPerRow, inStride = width * layout.bytesPerPixel
        bitmap.withUnsafeMutableBytes { destination in
            bytes.withUnsafeBytes { source in
                for y in 0..<height {
                    Self.unpack(
                        row: source.baseAddress! + y * inStride, into: destination.baseAddress! + y * stride,
                        width: width, layout: layout)
                }
            }
        }
        self = bitmap
    }

    // MARK: Rows

    private static func pack(
        row: UnsafeRawPointer, into dst: UnsafeMutablePointer<UInt8>, width: Int,
        format: PixelFormat, layout: PackedPixelLayout
    ) {
        let bpp = layout.bytesPerPixel
        for x in 0..<width {
            let out = dst + x * bpp
            switch format {
            case .gray8:
                let g = row.load(fromByteOffset: x, as: UInt8.self)
                out[0] = g; out[1] = g; out[2] = g
                if bpp == 4 { out[3] = 255 }
            case .rgbx8, .rgba8Premultiplied:
                let p = row.loadUnaligned(fromByteOffset: x * 4, as: SIMD4<UInt8>.self)
                let alpha = format == .rgbx8 ? 255 : p[3]
                if bpp == 3 || alpha == 255 || alpha == 0 {
                    // Opaque, or composited onto black (rgb8), or fully transparent (straight colour unknown: 0).
                    let keep = alpha != 0 || bpp == 3
                    out[0] = keep ? p[0] : 0; out[1] = keep ? p[1] : 0; out[2] = keep ? p[2] : 0
                } else {
                    out[0] = unpremultiply(p[0], alpha); out[1] = unpremultiply(p[1], alpha);
                    out[2] = unpremultiply(p[2], alpha)
                }
                if bpp == 4 { out[3] = alpha }
            }
        }
    }

    private static func unpack(
        row: UnsafeRawPointer, into dst: UnsafeMutableRawPointer, width: Int, layout: PackedPixelLayout
    ) {
        let bytes = row.assumingMemoryBound(to: UInt8.self)
        for x in 0..<width {
            let pixel: SIMD4<UInt8>
            switch layout {
            case .rgb8:
                let p = bytes + x * 3
                pixel = SIMD4(p[0], p[1], p[2], 255)
            case .rgba8:
                let p = bytes + x * 4
                let alpha = p[3]
                pixel =
                    alpha == 255
                    ? SIMD4(p[0], p[1], p[2], 255)
                    : SIMD4(premultiply(p[0], alpha), premultiply(p[1], alpha), premultiply(p[2], alpha), alpha)
            }
            dst.storeBytes(of: pixel, toByteOffset: x * 4, as: SIMD4<UInt8>.self)
        }
    }

    /// round(colour * alpha / 255): 255 is odd, so `(x + 127) / 255` never meets a tie.
    @inline(__always)
    static func premultiply(_ colour: UInt8, _ alpha: UInt8) -> UInt8 {
        UInt8((Int(colour) * Int(alpha) + 127) / 255)
    }

    /// round(premultiplied * 255 / alpha), at most 255; `alpha` > 0.
    @inline(__always)
    static func unpremultiply(_ premultiplied: UInt8, _ alpha: UInt8) -> UInt8 {
        let a = Int(alpha)
        return UInt8(min(255, (Int(premultiplied) * 255 + a / 2) / a))
    }
}
