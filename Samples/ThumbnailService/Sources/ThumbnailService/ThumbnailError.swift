import Foundation
import TIP

#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// A request the service answers with an error status, and the JSON body it sends:
/// `{"error":"bad_parameter","parameter":"w","message":"…"}`.
public enum ThumbnailError: Error, Sendable, Equatable, CustomStringConvertible {
    /// 400: a query parameter is missing or invalid (its name, then why).
    case badParameter(String, String)
    /// 403: the URL's host is not allowed, or resolves to an address the service does not fetch from.
    case hostNotAllowed(String)
    /// 413: the source has more bytes or pixels than the service's limits.
    case tooLarge(String)
    /// 502: the origin failed (HTTP error, refused or lost connection, a body that is not an image).
    case originFailed(String)
    /// 504: the origin did not deliver within the service's time limit.
    case timedOut(String)
    /// 500: processing or encoding failed for a reason that is the service's own.
    case internalFailure(String)

    /// The HTTP status of the response.
    public var status: Int {
        switch self {
        case .badParameter: 400
        case .hostNotAllowed: 403
        case .tooLarge: 413
        case .originFailed: 502
        case .timedOut: 504
        case .internalFailure: 500
        }
    }

    /// The `error` member of the JSON body.
    public var kind: String {
        switch self {
        case .badParameter: "bad_parameter"
        case .hostNotAllowed: "host_not_allowed"
        case .tooLarge: "too_large"
        case .originFailed: "origin_failed"
        case .timedOut: "timed_out"
        case .internalFailure: "internal_error"
        }
    }

    /// What went wrong, for people.
    public var message: String {
        switch self {
        case .badParameter(let name, let reason): "parameter \(name): \(reason)"
        case .hostNotAllowed(let text), .tooLarge(let text), .originFailed(let text), .timedOut(let text),
            .internalFailure(let text):
            text
        }
    }

    public var description: String { "\(status) \(kind): \(message)" }

    /// The JSON body: `error`, `message`, and `parameter` for a bad parameter.
    public var jsonBody: Data {
        var object = ["error": kind, "message": message]
        if case .badParameter(let name, _) = self { object["parameter"] = name }
        return (try? JSONSerialization.data(withJSONObject: object, options: [.sortedKeys])) ?? Data()
    }

    /// The service's reading of an error from a fetch, a decode, processing or encoding.
    public static func from(_ error: any Error) -> ThumbnailError {
        switch error {
        case let error as ThumbnailError:
            return error
        case let error as ImageFetchError:
            return from(fetchError: error)
        case let error as ImageDecodingError:
            // The library's own words name settings to raise: advice for the operator, not for the client.
            if case .dimensionsTooLarge(let width, let height, let limit) = error {
                return .tooLarge("the source is \(width)x\(height), over the service's limit of \(limit) pixels")
            }
            return .originFailed("the origin's image could not be decoded: \(error.localizedDescription)")
        case let error as ImageProcessingError:
            return .internalFailure("processing failed: \(error.localizedDescription)")
        case is CancellationError:
            return .timedOut("the request was cancelled before the thumbnail was made")
        default:
            return .internalFailure("\(error)")
        }
    }

    private static func from(fetchError error: ImageFetchError) -> ThumbnailError {
        switch error.code {
        case .httpTransactionError:
            let status = error.httpStatusCode.map { "HTTP \($0)" } ?? "an HTTP error"
            return .originFailed("the origin answered \(status)")
        case .downloadTooLarge:
            return .tooLarge("the source has more bytes than the service accepts")
        case .downloadTimedOut:
            return .timedOut(error.message)
        case .couldNotDownloadImage:
            if let urlError = error.underlyingError as? URLError, urlError.code == .timedOut {
                return .timedOut(error.message)
            }
            return .originFailed(error.message)
        case .couldNotProcessImage:
            return .internalFailure(error.message)
        case .cancelled, .cancelledAfterLoadingPreview:
            return .timedOut("the fetch was cancelled: \(error.message)")
        default:
            return .originFailed(error.message)
        }
    }
}
