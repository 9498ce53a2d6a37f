import Foundation

/// The TARGA codec: ``TGADecoder`` (the project's own reader) and ``TGAEncoder`` (uncompressed by
/// default, as ImageIO writes when TIP asks nothing; run-length encoding on request).
///
/// ```swift
/// CodecCatalogue.shared.setCodec(TGACodec(encoder: TGAEncoder(compression: .runLength)), for: .targa)
/// ```
///
/// Stateless and safe to use from any thread.
public struct TGACodec: ImageCodec {
    private let tgaEncoder: TGAEncoder

    /// The codec with `encoder` (default: uncompressed).
    public init(encoder: TGAEncoder = TGAEncoder()) {
        tgaEncoder = encoder
    }

    /// The decoder: ``TGADecoder``.
    public var decoder: any ImageDecoder { TGADecoder() }
    /// The encoder given at init.
    public var encoder: (any ImageEncoder)? { tgaEncoder }
}
