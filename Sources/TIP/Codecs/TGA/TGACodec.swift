import Foundation

/// The TARGA codec: the project's own reader, and an encoder writing uncompressed files by default (as
/// ImageIO writes when TIP asks nothing) or run-length encoded ones on request.
///
/// ```swift
/// CodecCatalogue.shared.setCodec(TGACodec(compression: .runLength), for: .targa)
/// ```
///
/// The encoder writes opaque images as 24-bit BGR, images with a transparent pixel as 32-bit BGRA, and gray
/// images (or `.grayscale`) as 8-bit gray; rows bottom-up with the TGA 2.0 footer. `quality` is ignored
/// (lossless); only the first frame of an animation is written; images over 65535 pixels on a side throw
/// ``PipelineError``. Stateless and safe to use from any thread.
public struct TGACodec: ImageCodec {
    /// How the encoder stores pixel data.
    public enum Compression: Sendable {
        /// Raw pixels (TIP's default: ImageIO writes TGA uncompressed unless told otherwise).
        case none
        /// Run-length packets (image types 10 and 11), never crossing a row, as TGA 2.0 asks.
        case runLength
    }

    /// The compression the encoder writes.
    public let compression: Compression

    /// The codec writing `compression` (default ``Compression-swift.enum/none``).
    public init(compression: Compression = .none) {
        self.compression = compression
    }

    /// The decoder: colour-mapped, true colour and gray images, raw or run-length encoded, all four origins.
    public var decoder: any ImageDecoder { TGADecoder() }
    /// The encoder, writing ``compression``.
    public var encoder: (any ImageEncoder)? { TGAEncoder(compression: compression) }
}
