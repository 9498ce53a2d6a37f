import Foundation

/// The default JPEG codec (`public.jpeg`): one-shot decoding on TurboJPEG with DCT scaling to the
/// target size and EXIF orientation, incremental (progressive scan by scan, or row by row) decoding
/// on libjpeg, and encoding on TurboJPEG.
///
/// ```swift
/// CodecCatalogue.shared.setCodec(JPEGCodec(), for: .jpeg)
/// ```
///
/// Stateless and safe to use from any thread.
public struct JPEGCodec: ImageCodec {
    /// Makes the codec.
    public init() {}
    /// The decoder (supports progressive decoding).
    public var decoder: any ImageDecoder { JPEGDecoder() }
    /// Encodes the first frame with TurboJPEG: baseline, or progressive with `.progressive`; quality on TIP's 0...1
    /// scale.
    public var encoder: (any ImageEncoder)? { JPEGEncoder() }
    /// Always false: JPEG has no animation.
    public var isAnimated: Bool { false }
}
