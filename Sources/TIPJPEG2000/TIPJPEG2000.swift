import TIP

/// Entry point of the optional JPEG 2000 plug-in, the `TIPJPEG2000` library product on OpenJPEG
/// (TIP decodes JPEG 2000 through ImageIO; on Linux it is an extension, like WebP).
///
/// ```swift
/// import TIP
/// import TIPJPEG2000
///
/// TIPJPEG2000.register()   // CodecCatalogue.shared now decodes and encodes public.jpeg-2000
/// ```
public enum TIPJPEG2000 {
    /// Registers ``JPEG2000Codec`` on `catalogue` (default: ``CodecCatalogue/shared``) for
    /// `ImageType.jpeg2000`, replacing any codec registered for that type. Thread-safe; calling it
    /// again is harmless.
    public static func register(on catalogue: CodecCatalogue = .shared) {
        catalogue.setCodec(JPEG2000Codec(), for: .jpeg2000)
    }
}
