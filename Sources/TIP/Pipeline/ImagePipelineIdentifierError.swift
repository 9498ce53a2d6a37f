import Foundation

/// Why ``ImagePipeline/init(checkedIdentifier:)`` could not make a pipeline (beyond TIP, whose initializer
/// returns nil).
public enum ImagePipelineIdentifierError: Error, Equatable, Sendable, CustomNSError, CustomStringConvertible {
    /// The identifier is empty, longer than 255 bytes, `.` or `..`, or has characters other than `A-Z a-z 0-9 . _ -`.
    case invalid(String)
    /// A live pipeline already has the identifier (one live pipeline per identifier; the identifier is free
    /// again once that pipeline is released).
    case alreadyInUse(String)

    /// `TIPImagePipelineIdentifierErrorDomain`.
    public static var errorDomain: String { "TIPImagePipelineIdentifierErrorDomain" }
    /// 1 invalid, 2 already in use.
    public var errorCode: Int {
        switch self {
        case .invalid: return 1
        case .alreadyInUse: return 2
        }
    }
    /// The description under `NSLocalizedDescriptionKey`.
    public var errorUserInfo: [String: Any] { [NSLocalizedDescriptionKey: description] }

    /// What is wrong and what to do.
    public var description: String {
        switch self {
        case .invalid(let identifier):
            return "'\(identifier)' is not a valid image pipeline identifier: use only A-Z a-z 0-9 . _ - "
                + "(not empty, not . or .., at most 255 characters), since it names the pipeline's cache directory."
        case .alreadyInUse(let identifier):
            return "An image pipeline with identifier '\(identifier)' is already live: keep using that one (or "
                + "ImagePipeline.shared), or release it before making another with the same identifier."
        }
    }
}
