import Foundation

/// A generic pipeline error in TIP's `TIPErrorDomain` (`TIPErrorCode`), with a message.
public struct PipelineError: Error, Sendable, CustomNSError, CustomStringConvertible {
    /// TIP's generic error codes.
    public enum Code: Int, Sendable {
        /// Unknown.
        case unknown = 0
        /// Deprecated in TIP; never produced.
        case cannotUseGPUInBackground = 1
        /// Kept for TIP compatibility; never produced on Linux.
        case missingCIImage = 2
        /// Kept for TIP compatibility; never produced on Linux.
        case missingCGImage = 3
        /// The encoder could not start (bad parameters or image).
        case failedToInitializeImageDestination = 4
        /// The encoder failed while writing.
        case failedToFinalizeImageDestination = 5
        /// No encoder exists for the requested type.
        case encodingUnsupported = 6
    }

    /// The TIP error code.
    public let code: Code
    /// What happened, for people.
    public let message: String
    /// The image type concerned (`encodingUnsupported`: the type no codec encodes); also under
    /// ``imageTypeKey`` in the user info, as TIP's. Nil otherwise.
    public let imageType: ImageType?

    /// User-info key of the image type string (TIP's `@"imageType"`).
    public static let imageTypeKey = "imageType"

    /// An error with `code`, `message` and, optionally, the image type concerned.
    public init(_ code: Code, _ message: String, imageType: ImageType? = nil) {
        self.code = code
        self.message = message
        self.imageType = imageType
    }

    /// `TIPErrorDomain`.
    public static var errorDomain: String { "TIPErrorDomain" }
    /// The raw TIP code.
    public var errorCode: Int { code.rawValue }
    /// The message under `NSLocalizedDescriptionKey`, the image type string under ``imageTypeKey``.
    public var errorUserInfo: [String: Any] {
        var info: [String: Any] = [NSLocalizedDescriptionKey: message]
        if let imageType { info[Self.imageTypeKey] = imageType.rawValue }
        return info
    }
    /// The message.
    public var description: String { message }
}
