import TIP

/// Entry point of the optional WebP plug-in: TIP ships WebP as an extension codec, and so does this
/// package, as the `TIPWebP` library product on libwebp.
///
/// ```swift
/// import TIP
/// import TIPWebP
///
/// TIPWebP.register()   // CodecCatalogue.shared now decodes and encodes WebP
/// ```
public enum TIPWebP {
    /// Registers ``WebPCodec`` on `catalogue` (default: ``CodecCatalogue/shared``) for
    /// `ImageType.webp`, replacing any codec registered for that type. Thread-safe; calling it again
    /// is harmless.
    public static func register(on catalogue: CodecCatalogue = .shared) {
        catalogue.setCodec(WebPCodec(), for: .webp)
    }
}
