import Foundation

/// Why an image could not be processed. Bridges to `TIPImageProcessingErrorDomain` (a domain of this
/// port: TIP has no processors), the code in the user info's `NSLocalizedDescriptionKey` text.
///
/// ```swift
/// do { _ = try container.processed(by: [.roundedCorners(radius: -1)], context: context) }
/// catch let error as ImageProcessingError { print(error.errorCode, error) }   // 1 Invalid parameter...
/// ```
public enum ImageProcessingError: Error, Equatable, Sendable, CustomNSError, CustomStringConvertible {
    /// A parameter cannot be used (a negative or non-finite radius, sigma or border width, a size that is
    /// not positive, an empty identifier). Code 1.
    case invalidParameter(processor: String, reason: String)
    /// The processor needs a size, was given none, and the context has no target dimensions. Code 2.
    case missingTargetDimensions(processor: String)
    /// The result would have more pixels than ``ImageProcessingContext/maximumPixelCount``. Code 3.
    case outputTooLarge(processor: String, width: Int, height: Int)
    /// The processor failed with another error (a closure processor's own error, described). Code 4.
    case processingFailed(processor: String, reason: String)

    /// `TIPImageProcessingErrorDomain`.
    public static var errorDomain: String { "TIPImageProcessingErrorDomain" }

    /// 1 invalid parameter, 2 missing target dimensions, 3 output too large, 4 processing failed.
    public var errorCode: Int {
        switch self {
        case .invalidParameter: return 1
        case .missingTargetDimensions: return 2
        case .outputTooLarge: return 3
        case .processingFailed: return 4
        }
    }

    /// The description under `NSLocalizedDescriptionKey`.
    public var errorUserInfo: [String: Any] { [NSLocalizedDescriptionKey: description] }

    /// The identifier of the processor that failed.
    public var processor: String {
        switch self {
        case .invalidParameter(let processor, _), .missingTargetDimensions(let processor),
            .outputTooLarge(let processor, _, _), .processingFailed(let processor, _):
            return processor
        }
    }

    /// What went wrong and what to do about it.
    public var description: String {
        switch self {
        case let .invalidParameter(processor, reason):
            return "Could not process image: invalid parameter for \(processor) (\(reason))."
        case .missingTargetDimensions(let processor):
            return "Could not process image: \(processor) needs a size; give it one or fetch with target dimensions."
        case let .outputTooLarge(processor, width, height):
            return "Could not process image: \(processor) would make \(width)x\(height) pixels, over the limit "
                + "(raise ImageProcessingContext.maximumPixelCount to allow it)."
        case let .processingFailed(processor, reason):
            return "Could not process image: \(processor) failed (\(reason))."
        }
    }
}
