import Foundation

#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

extension ImageFetchError {
    /// `couldNotDownloadImage` for a download that failed in transport, keeping `error` (the provider's `URLError`,
    /// `POSIXError`, ...) as ``underlyingError``. An `ImageFetchError` is returned as it is.
    public static func couldNotDownload(_ url: URL, underlyingError error: any Error) -> ImageFetchError {
        if let error = error as? ImageFetchError { return error }
        return ImageFetchError(
            .couldNotDownloadImage,
            "Could not download \(url.absoluteString): \(transportDescription(of: error)); check the network and the "
                + "server, then fetch again (the provider's error is underlyingError).",
            underlyingError: error)
    }

    /// A short description of a transport error for people (FoundationNetworking's own texts on Linux only give
    /// the domain and code).
    static func transportDescription(of error: any Error) -> String {
        if let error = error as? URLError {
            let what: String
            switch error.code {
            case .timedOut: what = "the request timed out"
            case .cannotConnectToHost: what = "could not connect to the host"
            case .networkConnectionLost: what = "the connection was lost"
            case .cannotFindHost, .dnsLookupFailed: what = "the host name was not found"
            case .notConnectedToInternet: what = "there is no network connection"
            case .secureConnectionFailed, .serverCertificateUntrusted, .serverCertificateHasBadDate,
                .serverCertificateNotYetValid, .serverCertificateHasUnknownRoot:
                what = "the TLS connection failed"
            case .badServerResponse: what = "the server's response was not valid HTTP"
            case .cancelled: what = "the request was cancelled"
            default: what = "the transfer failed"
            }
            // The libcurl provider's errors carry libcurl's own message, worth more than the code alone.
            let detail = error.userInfo[CurlTransferError.curlCodeKey] == nil ? "" : ": \(error.localizedDescription)"
            return "\(what) (URLError \(error.code.rawValue)\(detail))"
        }
        if let error = error as? POSIXError {
            return "\(error.code) (errno \(error.code.rawValue))"
        }
        let ns = error as NSError
        return "\(ns.localizedDescription) (\(ns.domain) \(ns.code))"
    }
}
