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

    /// An error with `code` and `message`.
    public init(_ code: Code, _ message: String) {
        self.code = code
        self.message = message
    }

    /// `TIPErrorDomain`.
    public static var errorDomain: String { "TIPErrorDomain" }
    /// The raw TIP code.
    public var errorCode: Int { code.rawValue }
    /// The message under `NSLocalizedDescriptionKey`.
    public var errorUserInfo: [String: Any] { [NSLocalizedDescriptionKey: message] }
    /// The message.
    public var description: String { message }
}
