import Foundation

/// What a download made by `AsyncHTTPClientImageFetchDownloadProvider` measured (its `downloadMetrics`).
public struct AsyncHTTPClientImageFetchDownloadMetrics: Sendable, Equatable {
    /// When the request was handed to AsyncHTTPClient.
    public var requestStart: Date?
    /// When the final response's head arrived.
    public var responseStart: Date?
    /// When the download ended.
    public var end: Date?
    /// The final response's status code; nil before it arrived.
    public var statusCode: Int?
    /// The final response's protocol, "HTTP/1.1" or "HTTP/2.0"; nil before it arrived.
    public var httpVersion: String?
    /// Body bytes delivered to TIP.
    public var byteCount = 0
    /// Redirects followed.
    public var redirectCount = 0
    /// Times reading paused because `maxBufferedByteCount` bytes were waiting for TIP.
    public var readPauseCount = 0

    /// No measurements yet.
    public init() {}
}
