import Foundation

/// The TIFF codec on libtiff: decodes the first page (strips and tiles; 1 to 16 bits; RGB, RGBA, gray,
/// palette, CMYK, YCbCr; every compression libtiff reads; orientation) and encodes with LZW, as TIP writes
/// TIFF.
///
/// ```swift
/// let tiff = try CodecCatalogue.shared.encodeImage(image, type: .tiff, quality: 1)
/// ```
///
/// Stateless and safe to use from any thread.
public struct TIFFCodec: ImageCodec {
    /// Makes the codec.
    public init() {}
    /// The decoder: the first page; a file cut short shows the rows above the cut (`isPartial`).
    public var decoder: any ImageDecoder { TIFFDecoder() }
    /// The encoder: LZW with horizontal differencing, 8 bits per sample; `quality` is ignored (lossless).
    public var encoder: (any ImageEncoder)? { TIFFEncoder() }
}
