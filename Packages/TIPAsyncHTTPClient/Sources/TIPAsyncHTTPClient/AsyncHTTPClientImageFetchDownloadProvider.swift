import AsyncHTTPClient
import Foundation
import NIOCore
import TIP

/// A TIP download provider on AsyncHTTPClient (`HTTPClient`), for services already on SwiftNIO: TIP's downloads
/// then share the service's event loops and connection pools instead of running a libcurl thread of their own.
///
/// ```swift
/// import TIPAsyncHTTPClient
/// GlobalConfiguration.shared.imageFetchDownloadProvider = AsyncHTTPClientImageFetchDownloadProvider()
/// // or, on a client the service already has:
/// AsyncHTTPClientImageFetchDownloadProvider(httpClient: client, requestTimeout: 30)
/// ```
///
/// - **Requests**: the hydrated request's method, headers and body as set, `Authorization` from the context,
///   `Accept-Encoding: identity`, a `User-Agent` of `defaultUserAgent` unless the request sets one.
/// - **Redirects, connections, TLS, proxies, HTTP/2**: the `HTTPClient`'s configuration. The provider's own
///   client (`init(requestTimeout:connectTimeout:maxRedirectCount:)`) follows at most `maxRedirectCount`
///   redirects to http and https without cycles (AsyncHTTPClient drops `Authorization` when one leaves the
///   origin; a redirect anywhere else is delivered as the response, which TIP fails), never decodes a content
///   coding, verifies certificates against the system's store, negotiates HTTP/2 over https, and does not retry
///   a connection that was refused.
/// - **Timeouts**: `requestTimeout` without a byte (waiting for the response or during the body) fails the
///   download with `URLError.timedOut`, whatever the client's own read timeout; time spent waiting for TIP to
///   take the data (flow control) does not count.
/// - **Flow control**: a download runs at most `maxBufferedByteCount` bytes ahead of TIP; past that,
///   AsyncHTTPClient stops reading until TIP has taken the data.
/// - **Errors**: transport failures are the `URLError`s the shipped providers report for the same failure
///   (`AsyncHTTPClientDownloadError` maps them; the original error is the underlying error); cancellation ends
///   with `ImageFetchError.cancelled`.
/// - **Priority**: not applied (AsyncHTTPClient has no per-request priority); the downloader still starts
///   higher-priority downloads first.
/// - **Metrics**: `downloadMetrics` is an `AsyncHTTPClientImageFetchDownloadMetrics`.
///
/// Thread-safe; share one provider between pipelines. The provider's own client is shut down once the provider
/// and its last download are gone; a client passed in stays the caller's to shut down.
public final class AsyncHTTPClientImageFetchDownloadProvider: ImageFetchDownloadProvider {
    /// The default cap on redirects followed by the provider's own client: 20 (as the other providers).
    public static let defaultMaxRedirectCount = 20
    /// The default cap on bytes a download reads ahead of TIP: 256 KiB.
    public static let defaultMaxBufferedByteCount = 256 * 1024
    /// The `User-Agent` sent when the request has none: "<process> TIP AsyncHTTPClient".
    public static let defaultUserAgent = "\(ProcessInfo.processInfo.processName) TIP AsyncHTTPClient"

    /// The client the downloads run on.
    public let httpClient: HTTPClient
    /// Seconds without receiving a byte before a download fails with `URLError.timedOut`.
    public let requestTimeout: TimeInterval
    /// The most bytes a download receives ahead of TIP before it stops reading.
    public let maxBufferedByteCount: Int

    /// Shuts the provider's own client down when the provider and its downloads are gone; nil for a client
    /// passed in.
    private let owner: AsyncHTTPClientOwner?

    /// A provider on `httpClient`, which stays the caller's (shut it down after the provider's last download).
    /// `requestTimeout` (seconds, default 60) is the idle timeout.
    public init(
        httpClient: HTTPClient, requestTimeout: TimeInterval = 60,
        maxBufferedByteCount: Int = defaultMaxBufferedByteCount
    ) {
        self.httpClient = httpClient
        self.requestTimeout = requestTimeout
        self.maxBufferedByteCount = max(1, maxBufferedByteCount)
        owner = nil
    }

    /// A provider with a client of its own on SwiftNIO's shared event loop group, configured as described above.
    /// Times are in seconds: `requestTimeout` (default 60) is the idle timeout, `connectTimeout` (default 30)
    /// the time to connect, TLS included.
    public init(
        requestTimeout: TimeInterval = 60, connectTimeout: TimeInterval = 30,
        maxRedirectCount: Int = defaultMaxRedirectCount, maxBufferedByteCount: Int = defaultMaxBufferedByteCount
    ) {
        let client = HTTPClient(
            eventLoopGroup: HTTPClient.defaultEventLoopGroup,
            configuration: Self.configuration(connectTimeout: connectTimeout, maxRedirectCount: maxRedirectCount))
        httpClient = client
        self.requestTimeout = requestTimeout
        self.maxBufferedByteCount = max(1, maxBufferedByteCount)
        owner = AsyncHTTPClientOwner(client: client)
    }

    /// The configuration of the provider's own client.
    static func configuration(connectTimeout: TimeInterval, maxRedirectCount: Int) -> HTTPClient.Configuration {
        var configuration = HTTPClient.Configuration(
            redirectConfiguration: maxRedirectCount > 0
                ? .follow(max: maxRedirectCount, allowCycles: false) : .disallow,
            timeout: .init(connect: timeAmount(connectTimeout)),
            decompression: .disabled)
        configuration.connectionPool.retryConnectionEstablishment = false
        return configuration
    }

    /// `seconds` as a NIO time amount (at least a millisecond, at most about a year).
    static func timeAmount(_ seconds: TimeInterval) -> TimeAmount {
        let clamped = min(max(seconds, 0.001), 365 * 86_400)
        return .nanoseconds(Int64(clamped * 1_000_000_000))
    }

    /// A new download for `context`; it does nothing until `start()`. Called on the downloader's queue.
    public func imageFetchDownload(with context: any ImageFetchDownloadContext) -> any ImageFetchDownload {
        AsyncHTTPClientImageFetchDownload(
            context: context, client: httpClient, owner: owner,
            options: .init(
                idleTimeout: Self.timeAmount(requestTimeout), maxBufferedByteCount: maxBufferedByteCount,
                userAgent: Self.defaultUserAgent))
    }
}

/// Owns the provider's own client: shuts it down when the last reference (the provider's, or a running
/// download's) goes away.
final class AsyncHTTPClientOwner: Sendable {
    let client: HTTPClient

    init(client: HTTPClient) { self.client = client }

    deinit {
        // Not `syncShutdown`: this may run on one of the client's event loops.
        client.shutdown { _ in }
    }
}
