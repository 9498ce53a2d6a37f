import Foundation

/// Why an image-table operation failed. Domain `TIPImageTableErrorDomain`; the codes are stable.
///
/// ```swift
/// do { _ = try await store.retrieveImage(for: user, formatName: "avatar-64") }
/// catch .fetchFailed(let underlying) { print("could not load the source: \(underlying)") }
/// ```
public enum ImageTableError: Error, CustomNSError, CustomStringConvertible {
    /// A format definition is unusable (the reason says why). Code 1.
    case invalidFormat(String)
    /// No format of that name was registered with the store. Code 2.
    case unknownFormat(String)
    /// A file operation on the table failed (`errno` says why: `ENOSPC` for a full disk, say). Code 3.
    case storageFailed(path: String, operation: String, errno: Int32)
    /// Another process has the table open, or another store of this process does, or images retrieved from an
    /// earlier store of it are still alive (their entries must not be reused). Code 4.
    case tableInUse(path: String)
    /// Every entry of the table is still shown (a live view holds it) and the table is at its maximum count;
    /// nothing can be replaced until some views go away. Code 5.
    case tableFull(formatName: String)
    /// The store was made without an image pipeline, so it cannot fetch sources. Code 6.
    case noPipeline
    /// The image pipeline could not deliver the source image. Code 7.
    case fetchFailed(any Error)
    /// The entity's drawing threw. Code 8.
    case drawingFailed(any Error)
    /// The fill was cancelled (its task was cancelled, or the store went away). Code 9.
    case cancelled

    /// `TIPImageTableErrorDomain`.
    public static let errorDomain = "TIPImageTableErrorDomain"

    /// The stable code of each case (1-9).
    public var errorCode: Int {
        switch self {
        case .invalidFormat: return 1
        case .unknownFormat: return 2
        case .storageFailed: return 3
        case .tableInUse: return 4
        case .tableFull: return 5
        case .noPipeline: return 6
        case .fetchFailed: return 7
        case .drawingFailed: return 8
        case .cancelled: return 9
        }
    }

    /// The description, under `NSLocalizedDescriptionKey`.
    public var errorUserInfo: [String: Any] { [NSLocalizedDescriptionKey: description] }

    /// What happened and what to do.
    public var description: String {
        switch self {
        case .invalidFormat(let reason):
            return "invalid image table format: \(reason)"
        case .unknownFormat(let name):
            return "no image table format named '\(name)': register it when making the store"
        case .storageFailed(let path, let operation, let code):
            return "image table \(path): \(operation) failed: \(String(cString: strerror(code))) (errno \(code))"
        case .tableInUse(let path):
            return """
                image table \(path) is in use: open in another process, or in this one by another store or \
                by images still kept from an earlier one; use one store per table file
                """
        case .tableFull(let name):
            return
                """
                image table '\(name)' is full and every entry is still in use: release some images or raise \
                maximumCount
                """
        case .noPipeline:
            return "this image table store has no image pipeline: give one to fill entries from their source URLs"
        case .fetchFailed(let error):
            return "the source image could not be fetched: \(error)"
        case .drawingFailed(let error):
            return "drawing the entry failed: \(error)"
        case .cancelled:
            return "the fill was cancelled"
        }
    }
}
