import Foundation

/// The Windows bitmap codec: ``BMPDecoder`` (the project's own reader) and ``BMPEncoder``
/// (uncompressed 24-bit, 32-bit with alpha, or 8-bit gray).
///
/// ```swift
/// let bmp = try CodecCatalogue.shared.encodeImage(image, type: .bmp, quality: 1)
/// ```
///
/// Stateless and safe to use from any thread.
public struct BMPCodec: ImageCodec {
    /// Makes the codec.
    public init() {}
    /// The decoder: ``BMPDecoder``.
    public var decoder: any ImageDecoder { BMPDecoder() }
    /// The encoder: ``BMPEncoder``.
    public var encoder: (any ImageEncoder)? { BMPEncoder() }
}
