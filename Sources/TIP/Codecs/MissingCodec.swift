import Foundation

extension ImageType {
    /// What adds a codec for this type, for error messages: the `TIPWebP` product for WebP, a registration for
    /// any other type.
    var missingCodecAdvice: String {
        if self == .webp {
            return "add the TIPWebP product and call TIPWebP.register() at start-up (the TIPWebP product goes next to "
                + "TIP in your target's dependencies)"
        }
        return "register an ImageCodec for it with CodecCatalogue.shared.setCodec(_:for: ImageType(rawValue: \"\(rawValue)\"))"
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
