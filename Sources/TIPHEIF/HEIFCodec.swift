import CHeif
import TIP

/// The HEIF codec on libheif, for one of its two formats: HEIC (HEVC, `public.heic`) or AVIF (AV1,
/// `public.avif`). Decodes still images (the primary image, with alpha and the `irot`/`imir`/`clap`
/// transformations applied) straight to the target size, from an embedded thumbnail when one is
/// large enough; encodes when this libheif has an encoder for the format.
///
/// ```swift
/// CodecCatalogue.shared.setCodec(HEIFCodec(format: .avif), for: .avif)   // or TIPHEIF.register()
/// let canWriteAVIF = HEIFCodec(format: .avif).encoder != nil
/// ```
///
/// Stateless and thread-safe.
public struct HEIFCodec: ImageCodec {
    /// The two image formats on HEIF that this codec reads.
    public enum Format: Sendable, CaseIterable {
        /// HEIC: HEVC-coded images (libde265 decodes, x265 encodes on Debian).
        case heic
        /// AVIF: AV1-coded images (dav1d or aom decodes, aom encodes on Debian).
        case avif

        /// `ImageType.heic` or `ImageType.avif`.
        public var imageType: ImageType { self == .heic ? .heic : .avif }

        var compression: heif_compression_format { self == .heic ? heif_compression_HEVC : heif_compression_AV1 }
        var coding: HEIFContainer.Coding { self == .heic ? .hevc : .av1 }
    }

    /// HEIC or AVIF.
    public let format: Format

    /// A codec for `format`.
    public init(format: Format) {
        self.format = format
    }

    /// Whether this libheif can decode `format` (it has a decoder for its coding). Checked at run time.
    public static func canDecode(_ format: Format) -> Bool { HEIFLibrary.canDecode(format.compression) }
    /// Whether this libheif can encode `format` (it has an encoder for its coding). Checked at run time.
    public static func canEncode(_ format: Format) -> Bool { HEIFLibrary.canEncode(format.compression) }

    /// Decodes into `rgba8Premultiplied` (with alpha) or `rgbx8` bitmaps. Not progressive: an image
    /// renders once all its bytes are in.
    public var decoder: any ImageDecoder { HEIFDecoder(format: format) }
    /// ``HEIFEncoder`` when libheif has an encoder for the format, else nil (read-only).
    public var encoder: (any ImageEncoder)? { Self.canEncode(format) ? HEIFEncoder(format: format) : nil }
    /// False: image sequences are not decoded (the primary image is).
    public var isAnimated: Bool { false }
}
