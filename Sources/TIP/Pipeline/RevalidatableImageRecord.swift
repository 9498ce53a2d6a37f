import Foundation

/// What the memory and the disk cache record about a complete image that a revalidation checks and renews: the
/// URL it came from, its validators and its freshness.
protocol RevalidatableImageRecord {
    /// The URL of the variant.
    var url: URL { get }
    /// The strong entity tag.
    var entityTag: String? { get set }
    /// The `Last-Modified` date.
    var lastModified: String? { get set }
    /// How long the image may be served without revalidation.
    var freshness: CacheFreshness? { get set }
}

extension MemoryCacheCompleteImage: RevalidatableImageRecord {}
extension DiskCacheMetadata: RevalidatableImageRecord {}

extension ImageDownloadRevalidation {
    /// Whether `record` is the image of `url` this revalidation asked about.
    func isAbout(_ record: some RevalidatableImageRecord, url: URL) -> Bool {
        record.url == url && matches(entityTag: record.entityTag, lastModified: record.lastModified)
    }

    /// Renews `record` after a `304`: `renew` gives the freshness (from the stored one), the response's validators
    /// (when it sent them) replace the stored ones.
    func renew(
        _ record: inout some RevalidatableImageRecord, entityTag: String?, lastModified: String?,
        freshness renew: (CacheFreshness?) -> CacheFreshness
    ) {
        record.freshness = renew(record.freshness)
        record.entityTag = entityTag ?? record.entityTag
        record.lastModified = lastModified ?? record.lastModified
    }
}
