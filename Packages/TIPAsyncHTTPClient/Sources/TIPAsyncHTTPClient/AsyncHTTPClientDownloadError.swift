import AsyncHTTPClient
import Foundation
import NIOCore
import NIOHTTP1
import NIOPosix
import NIOSSL

/// How an AsyncHTTPClient failure reaches TIP: as the `URLError` the shipped providers report for the same
/// failure, so callers handle one error type whichever provider runs. The AsyncHTTPClient (or SwiftNIO) error
/// is the `NSUnderlyingErrorKey` value and its description is part of the message.
public enum AsyncHTTPClientDownloadError {
    /// The `URLError` for `error` on `url`.
    public static func urlError(_ error: any Error, url: URL) -> URLError {
        let code = urlErrorCode(error)
        return URLError(
            code,
            userInfo: [
                NSLocalizedDescriptionKey: "\(String(describing: error)) (AsyncHTTPClient)",
                NSURLErrorFailingURLErrorKey: url,
                NSUnderlyingErrorKey: error as NSError,
            ])
    }

    /// The closest `URLError` code to an AsyncHTTPClient or SwiftNIO error.
    public static func urlErrorCode(_ error: any Error) -> URLError.Code {
        if let error = error as? URLError { return error.code }
        if error is AsyncHTTPClientIdleTimeout { return .timedOut }
        if let error = error as? HTTPClientError {
            switch error {
            case .connectTimeout, .readTimeout, .writeTimeout, .deadlineExceeded, .getConnectionFromPoolTimeout,
                .tlsHandshakeTimeout, .socksHandshakeTimeout, .httpProxyHandshakeTimeout:
                return .timedOut
            case .remoteConnectionClosed, .bodyLengthMismatch, .alreadyShutdown:
                return .networkConnectionLost
            case .cancelled:
                // Not the provider's own cancel (that reports nothing): the client was shut down under the request.
                return .networkConnectionLost
            case .redirectLimitReached, .redirectCycleDetected: return .httpTooManyRedirects
            case .invalidURL, .emptyHost, .emptyScheme, .missingSocketPath: return .badURL
            case .invalidProxyResponse, .proxyAuthenticationRequired: return .cannotConnectToHost
            case .identityCodingIncorrectlyPresent, .uncleanShutdown: return .badServerResponse
            default:
                // `unsupportedScheme` carries the scheme, so it is not one value to match.
                if String(describing: error).contains("unsupportedScheme") { return .unsupportedURL }
            }
        }
        if let error = error as? HTTPParserError {
            // The connection closed before the body's declared end: a truncated body, not a malformed one.
            return error == .invalidEOFState ? .networkConnectionLost : .badServerResponse
        }
        if error is NIOSSLError || error is BoringSSLError { return .secureConnectionFailed }
        if let error = error as? NIOConnectionError {
            return error.dnsAError != nil && error.dnsAAAAError != nil && error.connectionErrors.isEmpty
                ? .cannotFindHost : .cannotConnectToHost
        }
        if let error = error as? IOError {
            switch error.errnoCode {
            case ECONNREFUSED, EHOSTUNREACH, ENETUNREACH: return .cannotConnectToHost
            case ECONNRESET, EPIPE: return .networkConnectionLost
            case ETIMEDOUT: return .timedOut
            default: return .unknown
            }
        }
        if let error = error as? ChannelError {
            switch error {
            case .connectTimeout: return .timedOut
            case .eof, .ioOnClosedChannel, .alreadyClosed, .outputClosed: return .networkConnectionLost
            default: return .unknown
            }
        }
        return .unknown
    }
}

/// The provider's own idle timeout fired: no byte arrived in the download's `requestTimeout`.
struct AsyncHTTPClientIdleTimeout: Error, CustomStringConvertible {
    /// The timeout in seconds.
    var seconds: Double

    var description: String { "No data received for \(seconds) seconds" }
}
