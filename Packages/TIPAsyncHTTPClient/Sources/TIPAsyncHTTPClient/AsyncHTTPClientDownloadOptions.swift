import NIOCore

/// What a download takes from its provider.
struct AsyncHTTPClientDownloadOptions: Sendable {
    /// Time without a byte before the download fails.
    var idleTimeout: TimeAmount
    /// Bytes received ahead of TIP before reading stops.
    var maxBufferedByteCount: Int
    /// The `User-Agent` for requests that set none.
    var userAgent: String
}
