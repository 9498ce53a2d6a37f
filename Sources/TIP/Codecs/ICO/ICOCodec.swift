import Foundation

/// The Windows icon codec: decoding only, as in TIP, whose ImageIO-based ICO codec has no encoder. It
/// decodes the entry that best fits the target size: PNG entries, or bitmap entries with their AND mask or
/// 32-bit alpha.
///
/// ```swift
/// CodecCatalogue.shared.setCodec(ICOCodec(), for: .ico)
/// ```
///
/// Stateless and safe to use from any thread.
public struct ICOCodec: ImageCodec {
    /// Makes the codec.
    public init() {}
    /// The decoder: the best-fitting entry for the options' target sizing.
    public var decoder: any ImageDecoder { ICODecoder() }
}
