import Foundation

/// The Windows icon codec: decoding only (``ICODecoder``), as in TIP, whose ImageIO-based ICO codec
/// has no encoder.
///
/// ```swift
/// CodecCatalogue.shared.setCodec(ICOCodec(), for: .ico)
/// ```
///
/// Stateless and safe to use from any thread.
public struct ICOCodec: ImageCodec {
    /// Makes the codec.
    public init() {}
    /// The decoder: ``ICODecoder``.
    public var decoder: any ImageDecoder { ICODecoder() }
}
