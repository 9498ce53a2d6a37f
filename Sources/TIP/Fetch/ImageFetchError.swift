import Foundation

/// An image fetch error in TIP's `TIPImageFetchErrorDomain` (`TIPImageFetchErrorCode`), with a message that says
/// what happened and what to do about it.
///
/// HTTP failures carry the status under the user-info key `httpStatusCode`; hydration-block violations carry
/// `originalURL`/`modifiedURL` or `originalHTTPMethod`/`modifiedHTTPMethod`.
public struct ImageFetchError: Error, Sendable, CustomNSError, CustomStringConvertible, Equatable {
    /// TIP's fetch error codes.
    public enum Code: Int, Sendable, CaseIterable {
        /// Unknown failure.
        case unknown = 0
        /// The request cannot be loaded as it is: its URL is not http or https. (An empty identifier is allowed,
        /// as in TIP: the image is then kept in the memory caches only.)
        case invalidRequest = 1
        /// The server answered with a failing HTTP status (see `httpStatusCode`).
        case httpTransactionError = 2
        /// The downloaded bytes could not be decoded into an image.
        case couldNotDecodeImage = 3
        /// The hydration block changed the request's URL or HTTP method.
        case illegalModificationByHydrationBlock = 4
        /// The download failed in transport (connection refused or lost, timeout, DNS, TLS...); the provider's
        /// error is ``ImageFetchError/underlyingError``. Also: no download provider was available.
        case couldNotDownloadImage = 5
        /// Every allowed source was tried (or a full load was forbidden) and none produced the image.
        case couldNotLoadImage = 6
        /// Beyond TIP: the response was larger than `GlobalConfiguration.maxImageDownloadByteCount`.
        case downloadTooLarge = 7
        /// Beyond TIP: the download ran past `GlobalConfiguration.maxImageDownloadDuration`, or went slower than
        /// `minimumImageDownloadBytesPerSecond`; what arrived is kept as a resumable partial.
        case downloadTimedOut = 8
        /// Beyond TIP: one of the request's processors failed on the final image; the
        /// ``ImageProcessingError`` is ``ImageFetchError/underlyingError``. Nothing processed was cached.
        case couldNotProcessImage = 9
        /// Contract: the download reported `didStart` more than once.
        case downloadEncounteredToStartMoreThanOnce = 1001
        /// Contract: the download asked to hydrate its request more than once.
        case downloadAttemptedToHydrateRequestMoreThanOnce = 1002
        /// Contract: the download reported a response more than once.
        case downloadReceivedResponseMoreThanOnce = 1003
        /// Contract: the download sent events without reporting `didStart` first.
        case downloadNeverStarted = 1004
        /// Contract: the download went on without asking to hydrate its request.
        case downloadNeverAttemptedToHydrateRequest = 1005
        /// Contract: the download delivered data or succeeded without reporting a response.
        case downloadNeverReceivedResponse = 1006
        /// Contract: the download asked to authorize its request more than once.
        case downloadAttemptedToAuthorizeRequestMoreThanOnce = 1007
        /// Contract: the download went on without asking to authorize its request.
        case downloadNeverAttemptedToAuthorizeRequest = 1008
        /// Contract: the download wanted to retry after it had already delivered data.
        case downloadWantedToRetryAfterAlreadyLoadingData = 1009
        /// The fetch was cancelled.
        case cancelled = -1
        /// The fetch was cancelled after a preview had been loaded.
        case cancelledAfterLoadingPreview = -2

        /// Whether the code is one of the download contract violations (1001-1009).
        public var isDownloadContractViolation: Bool { (1001...1009).contains(rawValue) }
    }

    /// User-info key of the HTTP status of an `httpTransactionError` (an `Int`).
    public static let httpStatusCodeKey = "httpStatusCode"
    /// User-info key of the URL before hydration (`illegalModificationByHydrationBlock`).
    public static let originalURLKey = "originalURL"
    /// User-info key of the URL after hydration (`illegalModificationByHydrationBlock`).
    public static let modifiedURLKey = "modifiedURL"
    /// User-info key of the HTTP method before hydration (`illegalModificationByHydrationBlock`).
    public static let originalHTTPMethodKey = "originalHTTPMethod"
    /// User-info key of the HTTP method after hydration (`illegalModificationByHydrationBlock`).
    public static let modifiedHTTPMethodKey = "modifiedHTTPMethod"

    /// The TIP error code.
    public let code: Code
    /// What happened and what to do, for people.
    public let message: String
    /// The HTTP status, for `httpTransactionError`; nil otherwise.
    public let httpStatusCode: Int?
    /// Extra string values for the user info (URLs and methods of a hydration violation).
    public let details: [String: String]
    /// The error underneath, for `couldNotDownloadImage` (the provider's `URLError`, `POSIXError`, ...); also
    /// under `NSUnderlyingErrorKey` in the user info. Nil otherwise.
    public let underlyingError: (any Error)?

    /// An error with `code` and `message`, optionally an HTTP status, extra string details for the user info and
    /// the error underneath.
    public init(
        _ code: Code, _ message: String, httpStatusCode: Int? = nil, details: [String: String] = [:],
        underlyingError: (any Error)? = nil
    ) {
        self.code = code
        self.message = message
        self.httpStatusCode = httpStatusCode
        self.details = details
        self.underlyingError = underlyingError
    }

    /// Equal code, message, status and details, and underlying errors of the same domain and code.
    public static func == (lhs: ImageFetchError, rhs: ImageFetchError) -> Bool {
        guard lhs.code == rhs.code, lhs.message == rhs.message, lhs.httpStatusCode == rhs.httpStatusCode,
            lhs.details == rhs.details
        else { return false }
        switch (lhs.underlyingError, rhs.underlyingError) {
        case (nil, nil): return true
        case let (left?, right?):
            let (a, b) = (left as NSError, right as NSError)
            return a.domain == b.domain && a.code == b.code
        default: return false
        }
    }

    /// `TIPImageFetchErrorDomain`.
    public static var errorDomain: String { "TIPImageFetchErrorDomain" }
    /// The raw TIP code.
    public var errorCode: Int { code.rawValue }
    /// The message under `NSLocalizedDescriptionKey`, the status under `httpStatusCode`, the underlying error
    /// under `NSUnderlyingErrorKey`, plus `details`.
    public var errorUserInfo: [String: Any] {
        var info: [String: Any] = [NSLocalizedDescriptionKey: message]
        if let httpStatusCode { info[Self.httpStatusCodeKey] = httpStatusCode }
        if let underlyingError { info[NSUnderlyingErrorKey] = underlyingError as NSError }
        for (key, value) in details { info[key] = value }
        return info
    }
    /// The message.
    public var description: String { message }
}

extension ImageFetchError {
    /// `httpTransactionError` for a failing HTTP `status`.
    public static func httpTransaction(status: Int, url: URL? = nil) -> ImageFetchError {
        let target = url.map { " for \($0.absoluteString)" } ?? ""
        let advice =
            switch status {
            case 304: "a Not Modified to a request that was not conditional; the origin misbehaves"
            case 300..<400:
                """
                a redirect that cannot be followed (no or an unusable Location header); fix the origin's redirect \
                or the image URL
                """
            default: "check the URL and the server, or the request's authorization"
            }
        return ImageFetchError(
            .httpTransactionError, "The server answered HTTP \(status)\(target): \(advice).",
            httpStatusCode: status)
    }

    /// `illegalModificationByHydrationBlock`: the hydration block changed the URL.
    public static func illegalModification(originalURL: URL, modifiedURL: URL?) -> ImageFetchError {
        let modified = modifiedURL?.absoluteString ?? "(none)"
        return ImageFetchError(
            .illegalModificationByHydrationBlock,
            "The hydration block changed the URL from \(originalURL.absoluteString) to \(modified); "
                + "hydration may add headers but must keep the URL.",
            details: [originalURLKey: originalURL.absoluteString, modifiedURLKey: modified])
    }

    /// `illegalModificationByHydrationBlock`: the hydration block changed the HTTP method.
    public static func illegalModification(originalHTTPMethod: String, modifiedHTTPMethod: String?) -> ImageFetchError {
        let modified = modifiedHTTPMethod ?? "(none)"
        return ImageFetchError(
            .illegalModificationByHydrationBlock,
            "The hydration block changed the HTTP method from \(originalHTTPMethod) to \(modified); "
                + "hydration may add headers but must keep the method.",
            details: [originalHTTPMethodKey: originalHTTPMethod, modifiedHTTPMethodKey: modified])
    }

    /// `downloadTooLarge`: the body (or its announced length) passed `limit` bytes.
    public static func downloadTooLarge(byteCount: Int64, limit: Int64, url: URL) -> ImageFetchError {
        ImageFetchError(
            .downloadTooLarge,
            "The response for \(url.absoluteString) is larger than the limit (\(byteCount) bytes, limit \(limit)); "
                + "raise GlobalConfiguration.maxImageDownloadByteCount to load it.")
    }

    /// `downloadTimedOut`: the download of `url` ran past `limit` seconds in all; `receivedInAll`, when given, is
    /// the body's bytes so far (0: the message does not promise a resume), and `isResumable` false says that
    /// what arrived cannot be resumed (the message then does not promise it either).
    public static func downloadTimedOut(
        url: URL, duration limit: TimeInterval, receivedInAll: Int? = nil, isResumable: Bool = true
    ) -> ImageFetchError {
        ImageFetchError(
            .downloadTimedOut,
            "The download of \(url.absoluteString) took longer than \(seconds(limit)) s and was stopped; "
                + "\(whatIsKept(receivedInAll, isResumable)). "
                + "Raise GlobalConfiguration.maxImageDownloadDuration for slow origins.")
    }

    /// `downloadTimedOut`: the download of `url` received `received` bytes in `interval` seconds, below the minimum;
    /// `receivedInAll` and `isResumable` as for the other form.
    public static func downloadTimedOut(
        url: URL, received: Int, interval: TimeInterval, minimumBytesPerSecond: Int, receivedInAll: Int? = nil,
        isResumable: Bool = true
    ) -> ImageFetchError {
        ImageFetchError(
            .downloadTimedOut,
            "The download of \(url.absoluteString) received \(received) bytes in \(seconds(interval)) s, slower than "
                + "the minimum of \(minimumBytesPerSecond) bytes per second, and was stopped; "
                + "\(whatIsKept(receivedInAll, isResumable)). "
                + "Lower GlobalConfiguration.minimumImageDownloadBytesPerSecond for slow origins.")
    }

    /// What a stopped download leaves, for its message.
    private static func whatIsKept(_ receivedInAll: Int?, _ isResumable: Bool) -> String {
        if receivedInAll == 0 { return "no byte of the image had arrived" }
        guard isResumable else {
            return "what arrived cannot be resumed (the response had no ETag or Last-Modified, no byte ranges, or "
                + "may not be stored), so a later fetch downloads it whole"
        }
        return "what arrived is kept, and a later fetch resumes it where the server allows ranges"
    }

    /// `interval` for a message: at most three decimals (`30`, `2.5`, `0.125`).
    static func seconds(_ interval: TimeInterval) -> String {
        guard interval.isFinite, abs(interval) < 1e12 else { return String(interval) }
        let rounded = (interval * 1000).rounded() / 1000
        return rounded == rounded.rounded() ? String(Int(rounded)) : String(rounded)
    }

    /// TIP's error for a successful response without a body (code 1006, as TIP reports it).
    static func emptyResponse(status: Int, url: URL) -> ImageFetchError {
        ImageFetchError(
            .downloadNeverReceivedResponse,
            "The server answered \(status == 0 ? "" : "HTTP \(status) ")without any image bytes for "
                + "\(url.absoluteString); "
                + "check the URL and the server.")
    }

    /// `cancelled`, with the reason given to `cancel` (a reason that only says the fetch was cancelled is not
    /// repeated).
    public static func cancelled(_ reason: String) -> ImageFetchError {
        let reason = reason.trimmingCharacters(in: .whitespacesAndNewlines)
        let redundant = reason.isEmpty || reason.lowercased().hasPrefix("the fetch was cancelled")
        return ImageFetchError(
            .cancelled,
            "The fetch was cancelled\(redundant ? "" : " (\(reason))"); "
                + "fetch again if the image is still needed.")
    }

    /// A download contract violation (1001-1009) with a message naming the provider's mistake.
    /// Any other code gives an `unknown` error.
    static func downloadContractViolation(_ code: Code) -> ImageFetchError {
        let what: String
        switch code {
        case .downloadEncounteredToStartMoreThanOnce: what = "reported didStart more than once"
        case .downloadAttemptedToHydrateRequestMoreThanOnce: what = "asked to hydrate its request more than once"
        case .downloadReceivedResponseMoreThanOnce: what = "reported a response more than once (call willRetry first)"
        case .downloadNeverStarted: what = "sent an event before didStart"
        case .downloadNeverAttemptedToHydrateRequest: what = "went on without asking to hydrate its request"
        case .downloadNeverReceivedResponse: what = "delivered data or succeeded without reporting a response"
        case .downloadAttemptedToAuthorizeRequestMoreThanOnce: what = "asked to authorize its request more than once"
        case .downloadNeverAttemptedToAuthorizeRequest: what = "went on without asking to authorize its request"
        case .downloadWantedToRetryAfterAlreadyLoadingData: what = "wanted to retry after it had delivered data"
        default:
            return ImageFetchError(.unknown, "The download failed for an unknown reason; try again.")
        }
        return ImageFetchError(
            code,
            "The download provider broke the download contract: it \(what). The download was cancelled; "
                + "fix the provider to call didStart, hydrate, authorize, response, data, complete in that order.")
    }
}
