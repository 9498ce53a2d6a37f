import Foundation

/// Why an image could not be decoded. Bridges to TIP's `TIPImageFetchErrorDomain`, code 3
/// (`CouldNotDecodeImage`), with the reason in the user info.
public enum ImageDecodingError: Error, Equatable, Sendable, CustomNSError, CustomStringConvertible {
    /// There were no bytes.
    case emptyData
    /// The bytes are not in a format any available decoder reads.
    case unrecognizedFormat
    /// The data ends before anything could be shown.
    case truncatedData
    /// The data is damaged or invalid; the text says what the codec reported.
    case corruptData(String)
    /// The header claims more pixels than allowed (a decompression bomb), or the output at the target
    /// sizing would be that large; nothing large was allocated.
    case dimensionsTooLarge(width: Int, height: Int, maximumPixelCount: Int)
    /// The image uses a feature this codec does not support.
    case unsupported(String)
    /// The data is of a known type (its signature says so) for which no codec is registered; the text says
    /// which product or registration adds one (for WebP: the `TIPWebP` product and `TIPWebP.register()`).
    case missingCodec(ImageType)

    /// `TIPImageFetchErrorDomain`.
    public static var errorDomain: String { "TIPImageFetchErrorDomain" }
    /// 3, TIP's `TIPImageFetchErrorCodeCouldNotDecodeImage`.
    public var errorCode: Int { 3 }
    /// The reason, under `NSLocalizedDescriptionKey`.
    public var errorUserInfo: [String: Any] { [NSLocalizedDescriptionKey: description] }

    /// What went wrong and what to do about it.
    public var description: String {
        switch self {
        case .emptyData: return "Could not decode image: the data is empty."
        case .unrecognizedFormat:
            return "Could not decode image: the data is not in a format any registered codec reads."
        case .truncatedData: return "Could not decode image: the data ends before the image header or first pixels."
        case .corruptData(let detail): return "Could not decode image: the data is corrupt (\(detail))."
        case let .dimensionsTooLarge(width, height, limit):
            // Within the limit itself, the image was refused for its output at the target size.
            let what =
                ImageDecodingOptions.isWithinPixelLimit(width: width, height: height, limit: limit)
                ? "the output of this \(width)x\(height) image at the target size exceeds the limit of \(limit) pixels "
                    + "(use a smaller target, or raise "
                : ImageDecodingOptions.exceedsOnlyAsStored(width: width, height: height, limit: limit)
                    ? "\(width)x\(height) exceeds the limit of \(limit) pixels as a bitmap holds it (its rows padded "
                        + "to 16 pixels would hold more than twice the limit; raise "
                    : "\(width)x\(height) exceeds the limit of \(limit) pixels (raise "
            return "Could not decode image: " + what
                + "GlobalConfiguration.maximumPixelCount, or the fetch request's maximumPixelCount, for fetches; "
                + "ImageDecodingOptions.maximumPixelCount when decoding with CodecCatalogue)."
        case .unsupported(let detail): return "Could not decode image: unsupported feature (\(detail))."
        case .missingCodec(let type):
            return
                """
                Could not decode image: the data is \(type.rawValue), and no codec for it is registered; \
                \(type.missingCodecAdvice).
                """
        }
    }
}
