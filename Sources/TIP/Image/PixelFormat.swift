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
}
