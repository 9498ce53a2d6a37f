import Foundation

/// The TIFF codec on libtiff: ``TIFFDecoder`` (the first page; strips and tiles; 8 and 16 bits; RGB,
/// RGBA, gray, palette, CMYK; orientation) and ``TIFFEncoder`` (LZW, as TIP writes TIFF).
///
/// ```swift
/// let tiff = try CodecCatalogue.shared.encodeImage(image, type: .tiff, quality: 1)
/// ```
///
/// Stateless and safe to use from any thread.
public struct TIFFCodec: ImageCodec {
    /// Makes the codec.
    public init() {}
    /// The decoder: ``TIFFDecoder``.
    public var decoder: any ImageDecoder { TIFFDecoder() }
    /// The encoder: ``TIFFEncoder``.
    public var encoder: (any ImageEncoder)? { TIFFEncoder() }
}
