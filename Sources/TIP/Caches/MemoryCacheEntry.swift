import Foundation

/// What the memory cache holds for one identifier: at most one complete variant and at most one
/// partial download (TIP's memory cache entry). Also what the fetch path hands to the memory cache,
/// and what disk-cache hits percolate up as.
struct MemoryCacheEntry: Sendable {
    /// The image identifier (the cache key).
    var identifier: String
    /// The complete variant, if any.
    var complete: MemoryCacheCompleteImage?
    /// The partial download, if any.
    var partial: MemoryCachePartialImage?

    /// An entry for `identifier`.
    init(identifier: String, complete: MemoryCacheCompleteImage? = nil, partial: MemoryCachePartialImage? = nil) {
        self.identifier = identifier
        self.complete = complete
        self.partial = partial
    }

    /// Bytes the entry costs: complete bytes + partial bytes.
    var byteCount: Int64 { (complete?.byteCount ?? 0) + (partial?.byteCount ?? 0) }

    /// Whether reading the entry refreshes its recency: when any part updates its expiry on access.
    var accessRefreshesRecency: Bool {
        (complete?.updateExpiryOnAccess ?? false) || (partial?.updateExpiryOnAccess ?? false)
    }
}
