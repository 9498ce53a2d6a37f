import Foundation

extension ImageType {
    /// What adds a codec for this type, for error messages: the plug-in product for WebP, JPEG 2000, HEIC and AVIF,
    /// a registration for any other type.
    var missingCodecAdvice: String {
        let plugIn: String? =
            switch self {
            case .webp: "TIPWebP"
            case .jpeg2000: "TIPJPEG2000"
            case .heic, .avif: "TIPHEIF"
            default: nil
            }
        if let plugIn {
            return
                "add the \(plugIn) product and call \(plugIn).register() at start-up (the \(plugIn) product goes next "
                + "to "
                + "TIP in your target's dependencies)"
        }
        return
            """
            register an ImageCodec for it with CodecCatalogue.shared.setCodec(_:for: ImageType(rawValue: \
            \"\(rawValue)\"))
            """
    }
}

extension ImageDecodingError {
    /// Why no codec in `codecs` reads `data`: ``missingCodec(_:)`` when its signature names a type that has no
    /// codec there, else ``unrecognizedFormat``.
    static func unreadable(_ data: Data, codecs: [ImageType: any ImageCodec]) -> ImageDecodingError {
        if case .match(let type) = ImageType.detect(fromMagicNumbers: data), codecs[type] == nil {
            return .missingCodec(type)
        }
        return .unrecognizedFormat
    }
}
