import Foundation

/// The default GIF codec on giflib 5: decodes static and animated GIFs (rendering the first frame
/// while bytes arrive) and encodes them with its own colour quantiser.
///
/// ```swift
/// CodecCatalogue.shared.setCodec(GIFCodec(), for: .gif)
/// let gif = try GIFCodec().encoder?.encode(container, options: [], quality: 1)
/// ```
///
/// Stateless and thread-safe. ``decoder`` and ``encoder`` say what each direction supports.
public struct GIFCodec: ImageCodec {
    /// Makes the codec.
    public init() {}
    /// Decodes GIF87a / GIF89a into `rgba8Premultiplied` frames; supports progressive decoding.
    public var decoder: any ImageDecoder { GIFDecoder() }
    /// Encodes one frame or an animation (at most 256 colours per frame).
    public var encoder: (any ImageEncoder)? { GIFEncoder() }
    /// True: animations are decoded and encoded.
    public var isAnimated: Bool { true }
}
