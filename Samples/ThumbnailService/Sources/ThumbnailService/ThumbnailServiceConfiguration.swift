import Foundation

/// The service's settings: what it fetches from, its limits and its caches. Every size is in pixels or bytes,
/// every time in seconds.
public struct ThumbnailServiceConfiguration: Sendable {
    /// Hosts and addresses the service fetches from (`--allow-host`, `--allow-private-host`).
    public var hostPolicy: HostPolicy
    /// Where the source pipeline keeps its disk cache (`--root`); nil: TIP's default (`~/.cache`).
    public var cachesRoot: URL?
    /// The pipeline's identifier (its disk cache folder under the root). Default "thumbnail-sources".
    public var pipelineIdentifier = "thumbnail-sources"
    /// The largest `w` and `h` accepted. Default 4096.
    public var maxDimension = 4096
    /// The most bytes a source may have (413 past it; also `GlobalConfiguration.maxImageDownloadByteCount`).
    /// Default 32 MiB.
    public var maxSourceByteCount = 32 * 1024 * 1024
    /// The most pixels a source may have (413 past it, checked from the header before decoding). Default
    /// 50 million.
    public var maxSourcePixelCount = 50_000_000
    /// Seconds a request may take, fetch, decode and encode included (504 past it). Default 15.
    public var timeLimit: TimeInterval = 15
    /// The `max-age` of `Cache-Control: public, max-age=…` on thumbnails, seconds. Default 86,400 (a day).
    public var maxAge = 86_400
    /// Quality of JPEG and WebP thumbnails, 0...1. Default 0.85.
    public var quality: Float = 0.85
    /// Bytes of encoded thumbnails kept in memory (LRU). Default 64 MiB.
    public var responseCacheByteCount = 64 * 1024 * 1024

    /// Settings with `hostPolicy` and the defaults above.
    public init(hostPolicy: HostPolicy, cachesRoot: URL? = nil) {
        self.hostPolicy = hostPolicy
        self.cachesRoot = cachesRoot
    }
}
