import CCurl
import Foundation

/// How a libcurl failure reaches the client: as the `URLError` the URLSession provider would report for the
/// same failure (so callers handle one error type whichever shipped provider runs), with libcurl's own message
/// as the description and its `CURLcode` under `curlCodeKey`.
enum CurlTransferError {
    /// User-info key of the libcurl result code (an `Int`).
    static let curlCodeKey = "curlCode"

    /// The `URLError` for `code` on `url`; `detail` is libcurl's message for this transfer (empty: none).
    static func urlError(_ code: CURLcode, detail: String, url: URL) -> URLError {
        let generic = curl_easy_strerror(code).map { String(cString: $0) } ?? "libcurl error"
        let message = detail.isEmpty ? generic : detail
        return urlError(
            urlErrorCode(code), message: "\(message) (libcurl \(code.rawValue))", url: url,
            curlCode: Int(code.rawValue))
    }

    /// A `URLError` with `message` as its description.
    static func urlError(_ code: URLError.Code, message: String, url: URL, curlCode: Int? = nil) -> URLError {
        var info: [String: Any] = [
            NSLocalizedDescriptionKey: message,
            NSURLErrorFailingURLErrorKey: url,
        ]
        if let curlCode { info[curlCodeKey] = curlCode }
        return URLError(code, userInfo: info)
    }

    /// The closest `URLError` code to a libcurl result.
    static func urlErrorCode(_ code: CURLcode) -> URLError.Code {
        switch code {
        case CURLE_OPERATION_TIMEDOUT: return .timedOut
        case CURLE_COULDNT_RESOLVE_HOST: return .cannotFindHost
        case CURLE_COULDNT_RESOLVE_PROXY, CURLE_COULDNT_CONNECT: return .cannotConnectToHost
        case CURLE_SEND_ERROR, CURLE_RECV_ERROR, CURLE_PARTIAL_FILE, CURLE_GOT_NOTHING, CURLE_HTTP2_STREAM:
            return .networkConnectionLost
        case CURLE_TOO_MANY_REDIRECTS: return .httpTooManyRedirects
        case CURLE_UNSUPPORTED_PROTOCOL: return .unsupportedURL
        case CURLE_URL_MALFORMAT: return .badURL
        case CURLE_PEER_FAILED_VERIFICATION: return .serverCertificateUntrusted
        case CURLE_SSL_CONNECT_ERROR, CURLE_SSL_CERTPROBLEM, CURLE_SSL_CIPHER, CURLE_SSL_CACERT_BADFILE,
            CURLE_SSL_ISSUER_ERROR, CURLE_SSL_CRL_BADFILE, CURLE_SSL_PINNEDPUBKEYNOTMATCH:
            return .secureConnectionFailed
        case CURLE_WEIRD_SERVER_REPLY, CURLE_HTTP2, CURLE_BAD_CONTENT_ENCODING, CURLE_HTTP_RETURNED_ERROR:
            return .badServerResponse
        case CURLE_FILESIZE_EXCEEDED: return .dataLengthExceedsMaximum
        default: return .unknown
        }
    }
}
