import Foundation

/// A format whose decoder needs the whole file before it decodes pixels (TIFF, BMP, TGA, ICO): its
/// incremental context (``WholeFileDecoderContext``) keeps the bytes, reads the header as soon as it
/// arrives, and decodes once the file is complete or no more bytes will come.
protocol WholeFileImageFormat: Sendable {
    /// The header in `bytes` (the file's first bytes, maybe all of them), or nil while more bytes are
    /// needed. Throws ``ImageDecodingError`` as soon as the bytes cannot be this format.
    func readHeader(_ bytes: UnsafeRawBufferPointer) throws(ImageDecodingError) -> WholeFileImageHeader?

    /// Decodes `data` (complete, or all there will be) at the options' target sizing; truncated data
    /// that still shows something comes back with `isPartial`.
    func decode(_ data: Data, options: ImageDecodingOptions) throws(ImageDecodingError) -> ImageContainer

    /// Whether the pixels decoded depend on the target sizing (an icon picks the entry that fits the
    /// target best). When false the context decodes once at the image's own size and resamples that
    /// for each render.
    var decodesForTargetSizing: Bool { get }
}

extension WholeFileImageFormat {
    /// Default: false.
    var decodesForTargetSizing: Bool { false }
}

/// What a ``WholeFileImageFormat`` learns from its header.
struct WholeFileImageHeader: Equatable, Sendable {
    /// Width in pixels as stored (before any orientation).
    var width: Int
    /// Height in pixels as stored (before any orientation).
    var height: Int
    /// Whether displaying the image swaps width and height (an orientation tag of 5 to 8).
    var swapsDimensions = false
    /// Whether the image may be transparent.
    var hasAlpha: Bool
    /// The file's full length when the header tells it (the end of its last pixel data), else nil:
    /// the context then knows the file is complete only from the expected length or at `finalize()`.
    var fileLength: Int?
}
