import Foundation

/// The Windows bitmap codec: the project's own reader (every DIB header version, 1/2/4/8-bit indexed,
/// 16- and 32-bit bit fields, 24-bit, RLE8 and RLE4, either row order) and an encoder writing uncompressed
/// 24-bit, 32-bit with alpha, or 8-bit gray files.
///
/// ```swift
/// let bmp = try CodecCatalogue.shared.encodeImage(image, type: .bmp, quality: 1)
/// ```
///
/// Stateless and safe to use from any thread.
public struct BMPCodec: ImageCodec {
    /// Makes the codec.
    public init() {}
    /// The decoder: whole files; a file cut short shows the rows it holds (`isPartial`).
    public var decoder: any ImageDecoder { BMPDecoder() }
    /// The encoder: lossless (`quality` is ignored); the first frame of an animation.
    public var encoder: (any ImageEncoder)? { BMPEncoder() }
}
