import Foundation

/// The `downloadMetrics` of a download made by `CurlImageFetchDownloadProvider`: wall-clock dates measured by
/// the download, and libcurl's own timings of the transfer. nil when the step did not happen (or, for the
/// libcurl values, before the transfer ended).
public struct CurlImageFetchDownloadMetrics: Sendable, Equatable {
    /// When the transfer was handed to libcurl.
    public var requestStart: Date?
    /// When the response was reported to the client.
    public var responseStart: Date?
    /// When the download completed.
    public var end: Date?
    /// Body bytes delivered to the client.
    public var byteCount: Int = 0
    /// The HTTP status of the reported response.
    public var statusCode: Int?
    /// The protocol of the last response: "HTTP/1.0", "HTTP/1.1", "HTTP/2" or "HTTP/3".
    public var httpVersion: String?
    /// Redirects followed.
    public var redirectCount = 0
    /// Whether the transfer ran on a connection opened before it (keep-alive or HTTP/2 multiplexing).
    public var reusedConnection: Bool?
    /// Seconds from the start of the transfer until the name was resolved.
    public var nameLookupTime: TimeInterval?
    /// Seconds from the start until the TCP connection was made (0 on a reused connection).
    public var connectTime: TimeInterval?
    /// Seconds from the start until the TLS handshake ended (0 for http).
    public var tlsHandshakeTime: TimeInterval?
    /// Seconds from the start until the first response byte arrived.
    public var firstByteTime: TimeInterval?
    /// Seconds the whole transfer took, redirects included.
    public var totalTime: TimeInterval?

    public init() {}
}
