import Foundation

/// The encoded bytes of one complete image variant, with the metadata the caches keep for it (TIP's
/// complete image entry context plus its data). Passed between the fetch path, the memory cache and
/// the disk cache.
struct MemoryCacheCompleteImage: Sendable {
    /// Seconds an entry lives after its last access unless told otherwise: 30 days (TIP's default TTL).
    static let defaultTimeToLive: TimeInterval = 30 * 24 * 60 * 60

    /// The encoded image.
    var data: Data
    /// The image type, when known (a decode hint).
    var imageType: ImageType?
    /// The URL the bytes came from; final-vs-preview is decided by URL equality.
    var url: URL
    /// Pixel dimensions of the image.
    var dimensions: CGSize
    /// Whether the image is an animation.
    var isAnimated: Bool
    /// Whether the image is a placeholder: displaced by any real variant, never displacing one.
    var isPlaceholder: Bool
    /// Seconds the variant lives after its last access (always positive).
    var timeToLive: TimeInterval
    /// Whether reads slide ``lastAccess`` and refresh recency (false for `doNotResetExpiryOnAccess`).
    var updateExpiryOnAccess: Bool
    /// When the variant was last stored or read; the cache sets it on insert.
    var lastAccess: Date
    /// How long the variant may be served without revalidation; nil: while its TTL keeps it.
    var freshness: CacheFreshness?
    /// The response's `Last-Modified`, to revalidate the variant (`If-Modified-Since`).
    var lastModified: String?
    /// The response's strong entity tag, to revalidate the variant (`If-None-Match`).
    var entityTag: String?

    /// A complete variant. A `timeToLive` that is not positive becomes ``defaultTimeToLive``.
    init(
        data: Data, imageType: ImageType? = nil, url: URL, dimensions: CGSize, isAnimated: Bool = false,
        isPlaceholder: Bool = false, timeToLive: TimeInterval = MemoryCacheCompleteImage.defaultTimeToLive,
        updateExpiryOnAccess: Bool = true, lastAccess: Date = .distantPast, freshness: CacheFreshness? = nil,
        lastModified: String? = nil, entityTag: String? = nil
    ) {
        self.data = data
        self.imageType = imageType
        self.url = url
        self.dimensions = dimensions
        self.isAnimated = isAnimated
        self.isPlaceholder = isPlaceholder
        self.timeToLive = timeToLive > 0 ? timeToLive : MemoryCacheCompleteImage.defaultTimeToLive
        self.updateExpiryOnAccess = updateExpiryOnAccess
        self.lastAccess = lastAccess
        self.freshness = freshness
        self.lastModified = lastModified
        self.entityTag = entityTag
    }

    /// Width x height in pixels.
    var area: CGFloat { dimensions.width * dimensions.height }
    /// Encoded bytes held.
    var byteCount: Int64 { Int64(data.count) }

    /// Whether more than ``timeToLive`` seconds passed since ``lastAccess`` at `now`.
    func isExpired(at now: Date) -> Bool { now.timeIntervalSince(lastAccess) > timeToLive }

    /// Whether the variant must be revalidated before it is served at `now` (its ``freshness`` ran out).
    func isStale(at now: Date) -> Bool { freshness.isStale(at: now) }

    /// Whether the variant can be revalidated (a `Last-Modified` or an entity tag is known).
    var hasValidator: Bool { lastModified != nil || entityTag != nil }
}
