import Foundation

/// The default download provider on Linux: libcurl's multi interface, used directly (the system's libcurl, no
/// Swift package), with one multi handle driven by one thread of its own.
///
/// ```swift
/// GlobalConfiguration.shared.imageFetchDownloadProvider = CurlImageFetchDownloadProvider(requestTimeout: 30)
/// ```
///
/// - **Connections**: keep-alive connections are reused per host (up to 32 idle ones kept); over https, HTTP/2
///   is negotiated with ALPN and concurrent downloads from one host share one connection (multiplexed
///   streams), so cancelling a download resets its stream and keeps the connection. Plain http uses HTTP/1.1.
/// - **Requests**: the hydrated request's headers as set, `Authorization` from the context,
///   `Accept-Encoding: identity` (bodies are never decoded: what arrives is what the client counts), a
///   `User-Agent` of `defaultUserAgent` unless the request sets one, no cookies, no cache.
/// - **Redirects**: followed only to http and https, at most `maxRedirectCount`; a redirect elsewhere
///   (`file://`) ends the download with `ImageFetchError.httpTransactionError` carrying the redirect's status.
///   `Authorization` is not sent to another host after a redirect. Interim 1xx responses (100, 102, 103) are
///   skipped.
/// - **Limits**: response headers (all responses of a download together, trailers included) are capped at
///   `maxResponseHeaderByteCount` bytes and `maxResponseHeaderCount` lines; past either the download fails at
///   once with `URLError.badServerResponse`. A download runs at most about two receive buffers (64 KiB each)
///   ahead of its client, and once cancelled delivers nothing more: a client that stops at a byte limit stops
///   the transfer within a buffer.
/// - **Timeouts**: `connectTimeout` to connect; `requestTimeout` without a byte, while waiting for the
///   response or during the body, fails with `URLError.timedOut`. Overall deadlines are the downloader's.
/// - **Errors**: transport failures are `URLError`s with the closest code and libcurl's message (its `CURLcode`
///   under the user-info key "curlCode"); cancellation ends with `ImageFetchError.cancelled`.
/// - **Priority**: a download's priority sets its HTTP/2 stream weight (see `CurlImageFetchDownload`); over
///   HTTP/1.1 it has no effect here (the downloader already starts higher-priority downloads first).
/// - **Proxies**: as the curl command does, from the environment: `http_proxy` (lowercase only),
///   `HTTPS_PROXY`/`https_proxy`, `ALL_PROXY`, `NO_PROXY`.
/// - **TLS**: certificates are verified against the system's CA store (Debian: /etc/ssl/certs), or against
///   `certificateAuthoritiesFile` when set.
/// - **Metrics**: `downloadMetrics` is a `CurlImageFetchDownloadMetrics`.
///
/// Thread-safe; share one provider between pipelines. Its thread starts with its first download; releasing the
/// provider lets its running downloads finish, and its thread ends after the last one.
public final class CurlImageFetchDownloadProvider: ImageFetchDownloadProvider {
    /// The default cap on response header bytes per download: 256 KiB.
    public static let defaultMaxResponseHeaderByteCount = 256 * 1024
    /// The default cap on response header lines per download: 1,000.
    public static let defaultMaxResponseHeaderCount = 1_000
    /// The default cap on redirects followed per download: 20 (as URLSession).
    public static let defaultMaxRedirectCount = 20
    /// The `User-Agent` sent when the request has none: "<process> TIP libcurl/<version>".
    public static let defaultUserAgent = "\(ProcessInfo.processInfo.processName) TIP libcurl/\(CurlGlobal.version)"
    /// Bytes per receive buffer.
    static let bufferSize = 64 * 1024

    /// Seconds without receiving a byte before a download fails with `URLError.timedOut`.
    public let requestTimeout: TimeInterval
    /// Seconds to establish a connection (TLS included) before a download fails with `URLError.timedOut`.
    public let connectTimeout: TimeInterval
    /// The most response header bytes a download accepts.
    public let maxResponseHeaderByteCount: Int
    /// The most response header lines a download accepts.
    public let maxResponseHeaderCount: Int
    /// The most redirects a download follows.
    public let maxRedirectCount: Int
    /// A PEM file of the certificate authorities servers are verified against; nil (the default): the system's.
    public let certificateAuthoritiesFile: String?
    /// For a request's URL, the IP address (v4 or v6) its connection goes to instead of the addresses its host
    /// resolves to (libcurl's `CURLOPT_CONNECT_TO`, for the URL's host and port only, the port kept); nil, or
    /// nil for a URL (the default): the host is resolved as usual. For a service that checked a host's
    /// addresses before fetching from it (DNS rebinding): the request keeps its URL, so its `Host` header and,
    /// over https, the name the certificate is verified against stay the host's. Called as each download
    /// starts, on the downloader's queue.
    public let connectAddress: (@Sendable (URL) -> String?)?

    /// Made by the first download (a provider that never downloads starts no thread).
    private let session = Locked<CurlSession?>(nil)

    /// A provider with its own multi handle and thread (started by the first download). Times are in seconds;
    /// `requestTimeout` (default 60) is the idle timeout, applied in whole seconds; `connectTimeout` defaults to 30.
    public init(
        requestTimeout: TimeInterval = 60, connectTimeout: TimeInterval = 30,
        maxResponseHeaderByteCount: Int = defaultMaxResponseHeaderByteCount,
        maxResponseHeaderCount: Int = defaultMaxResponseHeaderCount,
        maxRedirectCount: Int = defaultMaxRedirectCount, certificateAuthoritiesFile: String? = nil,
        connectAddress: (@Sendable (URL) -> String?)? = nil
    ) {
        self.requestTimeout = requestTimeout
        self.connectTimeout = connectTimeout
        self.maxResponseHeaderByteCount = maxResponseHeaderByteCount
        self.maxResponseHeaderCount = maxResponseHeaderCount
        self.maxRedirectCount = maxRedirectCount
        self.certificateAuthoritiesFile = certificateAuthoritiesFile
        self.connectAddress = connectAddress
    }

    /// The session its downloads run on, once the first download made it.
    var currentSession: CurlSession? { session.withLock { $0 } }

    /// A new download for `context`; it does nothing until `start()`. Called on the downloader's queue.
    public func imageFetchDownload(with context: any ImageFetchDownloadContext) -> any ImageFetchDownload {
        let options = CurlTransferOptions(
            connectTimeout: connectTimeout, idleTimeout: requestTimeout,
            maxResponseHeaderByteCount: maxResponseHeaderByteCount, maxResponseHeaderCount: maxResponseHeaderCount,
            maxRedirects: maxRedirectCount, bufferSize: Self.bufferSize,
            certificateAuthoritiesFile: certificateAuthoritiesFile,
            connectAddress: context.originalRequest.url.flatMap { connectAddress?($0) })
        let session = session.withLock { session -> CurlSession in
            if let session { return session }
            let made = CurlSession()
            session = made
            return made
        }
        return CurlImageFetchDownload(context: context, session: session, options: options)
    }
}
