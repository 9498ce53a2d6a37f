import TIP

/// The JPEG 2000 codec on OpenJPEG: decodes JP2 files and raw codestreams (J2K) straight to the
/// target size, discarding the wavelet resolution levels the target does not need; renders partial
/// codestreams while bytes arrive (with OpenJPEG 2.5.3 or later); encodes JP2.
///
/// ```swift
/// CodecCatalogue.shared.setCodec(JPEG2000Codec(), for: .jpeg2000)   // or TIPJPEG2000.register()
/// let jp2 = try JPEG2000Codec().encoder?.encode(container, options: [], quality: 0.8)
/// ```
///
/// Stateless and thread-safe.
public struct JPEG2000Codec: ImageCodec {
    /// Makes the codec.
    public init() {}
    /// Decodes into `rgba8Premultiplied` (with an alpha component), `rgbx8` or `gray8` bitmaps;
    /// progressive (a truncated codestream renders what its bytes hold) with OpenJPEG 2.5.3 or later.
    public var decoder: any ImageDecoder { JPEG2000Decoder() }
    /// Encodes the first frame as JP2: lossless (reversible 5/3 wavelet) when `quality` ≥ 0.999,
    /// else lossy (9/7 wavelet) at a PSNR that grows with `quality`.
    public var encoder: (any ImageEncoder)? { JPEG2000Encoder() }
    /// False: JPEG 2000 (Part 1) has no animation.
    public var isAnimated: Bool { false }
}
