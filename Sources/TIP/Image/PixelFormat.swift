/// The memory layout of one pixel in a ``Bitmap``.
///
/// Every format stores 8 bits per channel. `rgbx8` keeps its fourth byte at 255, so an `rgbx8`
/// bitmap can always be read as `rgba8Premultiplied` without a conversion.
public enum PixelFormat: Int, Sendable, CaseIterable {
    /// Red, green, blue, alpha; colour channels premultiplied by alpha.
    case rgba8Premultiplied = 0
    /// Red, green, blue and a padding byte that is always 255 (opaque).
    case rgbx8 = 1
    /// One luminance byte per pixel (opaque).
    case gray8 = 2

    /// Bytes one pixel occupies (4 or 1).
    public var bytesPerPixel: Int {
        switch self {
        case .rgba8Premultiplied, .rgbx8: return 4
        case .gray8: return 1
        }
    }

    /// Whether pixels of this format can be transparent.
    public var hasAlpha: Bool { self == .rgba8Premultiplied }

    /// The pixel at `p` as premultiplied RGBA (gray is replicated, opaque formats report alpha 255).
    /// Package-visible: image tables' canvases read their entries with it.
    @inlinable
    package func loadPixel(from p: UnsafeRawPointer) -> SIMD4<UInt8> {
        switch self {
        case .rgba8Premultiplied:
            return p.loadUnaligned(as: SIMD4<UInt8>.self)
        case .rgbx8:
            var value = p.loadUnaligned(as: SIMD4<UInt8>.self)
            value[3] = 255
            return value
        case .gray8:
            let g = p.load(as: UInt8.self)
            return SIMD4(g, g, g, 255)
        }
    }

    /// Stores premultiplied RGBA `value` at `p` (gray takes the rounded luma; opaque formats store alpha 255).
    @inlinable
    package func storePixel(_ value: SIMD4<UInt8>, to p: UnsafeMutableRawPointer) {
        switch self {
        case .rgba8Premultiplied:
            p.storeBytes(of: value, as: SIMD4<UInt8>.self)
        case .rgbx8:
            p.storeBytes(of: SIMD4(value[0], value[1], value[2], 255), as: SIMD4<UInt8>.self)
        case .gray8:
            let luma = (299 * Int(value[0]) + 587 * Int(value[1]) + 114 * Int(value[2]) + 500) / 1000
            p.storeBytes(of: UInt8(luma), as: UInt8.self)
        }
    }
}
