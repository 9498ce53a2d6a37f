import Foundation

/// The bytes of an image download that stopped part-way, kept so a later fetch of the same URL can
/// resume it, with the validator the resume request needs (TIP's partial image entry context plus
/// its data). Passed between the fetch path, the memory cache and the disk cache.
struct MemoryCachePartialImage: Sendable {
    /// The bytes received so far (a prefix of the image file).
    var data: Data
    /// The URL being downloaded.
    var url: URL
    /// Pixel dimensions of the image (from its header).
    var dimensions: CGSize
    /// The full length of the image in bytes; 0 when unknown.
    var expectedLength: Int
    /// The `Last-Modified` response header, for `If-Range`.
    var lastModified: String?
    /// The `ETag` response header, for `If-Range`.
    var entityTag: String?
    /// The image type, when known.
    var imageType: ImageType?
    /// Whether the image is an animation, when known.
    var isAnimated: Bool
    /// Whether the download was for a placeholder (such partials are never cached).
    var isPlaceholder: Bool
    /// Seconds the partial lives after its last access (always positive).
    var timeToLive: TimeInterval
    /// Whether reads slide ``lastAccess`` and refresh recency.
    var updateExpiryOnAccess: Bool
    /// When the partial was last stored or read; the cache sets it on insert.
    var lastAccess: Date

    /// A partial image. A `timeToLive` that is not positive becomes the 30-day default.
    init(
        data: Data, url: URL, dimensions: CGSize, expectedLength: Int, lastModified: String? = nil,
        entityTag: String? = nil, imageType: ImageType? = nil, isAnimated: Bool = false, isPlaceholder: Bool = false,
        timeToLive: TimeInterval = MemoryCacheCompleteImage.defaultTimeToLive, updateExpiryOnAccess: Bool = true,
        lastAccess: Date = .distantPast
    ) {
        self.data = data
        self.url = url
        self.dimensions = dimensions
        self.expectedLength = max(0, expectedLength)
        self.lastModified = lastModified
        self.entityTag = entityTag
        self.imageType = imageType
        self.isAnimated = isAnimated
        self.isPlaceholder = isPlaceholder
        self.timeToLive = timeToLive > 0 ? timeToLive : MemoryCacheCompleteImage.defaultTimeToLive
        self.updateExpiryOnAccess = updateExpiryOnAccess
        self.lastAccess = lastAccess
    }

    /// Width x height in pixels.
    var area: CGFloat { dimensions.width * dimensions.height }
    /// Bytes held.
    var byteCount: Int64 { Int64(data.count) }
    /// Whether a resume request can be validated (a `Last-Modified` or an `ETag` is known).
    var hasValidator: Bool { lastModified != nil || entityTag != nil }

    /// Bytes held / expected bytes, at most 0.999; 0 when the expected length is unknown.
    var progress: Float {
        guard expectedLength > 0 else { return 0 }
        return min(0.999, Float(data.count) / Float(expectedLength))
    }

    /// Whether more than ``timeToLive`` seconds passed since ``lastAccess`` at `now`.
    func isExpired(at now: Date) -> Bool { now.timeIntervalSince(lastAccess) > timeToLive }
}
