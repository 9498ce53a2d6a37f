import Foundation

/// SKELETON — being implemented on the `caches-memory` branch. The encoded-data memory cache of
/// one pipeline.
final class MemoryCache: BudgetedCache, @unchecked Sendable {
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

    func clearImage(withIdentifier identifier: String) {}
    func clearAll() {}
    func inspectionEntries() -> (complete: [ImagePipelineInspectionResult.Entry], partial: [ImagePipelineInspectionResult.Entry]) { ([], []) }
    var totalBytes: Int64 { 0 }
    var count: Int { 0 }
    func tearDown() { domain.withLock { $0.unregister(self, bytes: 0, count: 0) } }
}
