import Foundation

/// A hit in the rendered cache.
struct RenderedCacheHit: Sendable {
    /// The rendered (scaled) image.
    let image: ImageContainer
    /// Dimensions of the image it was rendered from.
    let sourceDimensions: CGSize
    /// Whether the entry was marked dirty: usable as a preview, but a fetch must still run.
    let isDirty: Bool
}

/// SKELETON — being implemented on the `caches-memory` branch. The rendered (decoded image) cache
/// of one pipeline.
final class RenderedCache: BudgetedCache, @unchecked Sendable {
    // All state is guarded by `domain`'s lock.
    let domain: LockedCacheDomain
    let configuration: GlobalConfiguration

    init(domain: LockedCacheDomain, configuration: GlobalConfiguration) {
        self.domain = domain
        self.configuration = configuration
        domain.withLock { $0.register(self) }
    }

    var _budgetedEntryCount: Int { 0 }
    func _evictLeastRecentlyUsedEntry() -> Bool { false }

    func image(withIdentifier identifier: String, targetDimensions: CGSize, targetContentMode: ContentMode, transformerIdentifier: String?) -> RenderedCacheHit? { nil }
    func store(_ image: ImageContainer, identifier: String, transformerIdentifier: String?, sourceDimensions: CGSize, isPlaceholder: Bool) {}
    func dirtyImages(withIdentifier identifier: String) {}
    func clearImages(withIdentifier identifier: String) {}
    func clearAll() {}
    func enterWeakMode() {}
    func exitWeakMode() {}
    func inspectionEntries() -> [ImagePipelineInspectionResult.Entry] { [] }
    var totalBytes: Int64 { 0 }
    var count: Int { 0 }
    func tearDown() { domain.withLock { $0.unregister(self, bytes: 0, count: 0) } }
}
