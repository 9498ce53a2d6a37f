import TIP

/// Entry point of the optional HEIF plug-in, the `TIPHEIF` library product on libheif: HEIC as TIP
/// reads it through ImageIO, and AVIF (`public.avif`), which this port adds.
///
/// ```swift
/// import TIP
/// import TIPHEIF
///
/// TIPHEIF.register()   // CodecCatalogue.shared now decodes public.heic and public.avif
/// ```
public enum TIPHEIF {
    /// Registers a ``HEIFCodec`` on `catalogue` (default: ``CodecCatalogue/shared``) for each format
    /// this libheif can decode (`ImageType.heic`, `ImageType.avif`), replacing any codec registered
    /// for those types, and returns the formats registered. Thread-safe; calling it again is harmless.
    @discardableResult
    public static func register(on catalogue: CodecCatalogue = .shared) -> [HEIFCodec.Format] {
        let formats = HEIFCodec.Format.allCases.filter(HEIFCodec.canDecode)
        for format in formats {
            catalogue.setCodec(HEIFCodec(format: format), for: format.imageType)
        }
        return formats
    }
}
