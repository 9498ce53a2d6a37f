import Foundation

/// The default PNG codec: libpng decoding (every colour type and bit depth, palette, tRNS, 16-bit,
/// Adam7, and APNG animations composited by the project) and encoding (8-bit gray, RGB or RGBA,
/// optionally interlaced; an animation as APNG).
///
/// ```swift
/// CodecCatalogue.shared.setCodec(PNGCodec(), for: .png)
/// ```
///
/// Stateless and safe to use from any thread.
public struct PNGCodec: ImageCodec {
    /// Makes the codec.
    public init() {}
    /// The decoder: supports progressive decoding (rows as they arrive; an animation's first frame).
    public var decoder: any ImageDecoder { PNGDecoder() }
    /// The encoder: zlib level 6, `.progressive` for Adam7; `quality` is ignored (lossless).
    public var encoder: (any ImageEncoder)? { PNGEncoder() }
    /// True: animated PNG (APNG) is decoded and encoded, as in TIP.
    public var isAnimated: Bool { true }
}
