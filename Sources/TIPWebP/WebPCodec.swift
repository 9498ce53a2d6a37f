import TIP

/// The WebP codec on libwebp: decodes static lossy and lossless WebP (with alpha) straight to the
/// target size, animated WebP (composited frames, durations, loop count) and renders progressively
/// while bytes arrive; encodes static WebP.
///
/// ```swift
/// CodecCatalogue.shared.setCodec(WebPCodec(), for: .webp)   // or TIPWebP.register()
/// let webp = try WebPCodec().encoder?.encode(container, options: [], quality: 0.8)
/// ```
///
/// Stateless and thread-safe.
public struct WebPCodec: ImageCodec {
    /// Makes the codec.
    public init() {}
    /// Decodes WebP into `rgba8Premultiplied` (with alpha) or `rgbx8` (opaque) bitmaps; supports
    /// progressive decoding (rows of a static image, the first frame of an animation).
    public var decoder: any ImageDecoder { WebPDecoder() }
    /// Encodes the first frame as a static WebP: lossless when `quality` ≥ 0.999, else lossy at
    /// `quality` x 100. Animated encoding is not supported (only the first frame is written).
    public var encoder: (any ImageEncoder)? { WebPEncoder() }
    /// True: animations are decoded (encoding writes the first frame only).
    public var isAnimated: Bool { true }
}
