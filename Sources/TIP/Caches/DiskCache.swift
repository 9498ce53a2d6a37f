import Foundation

/// SKELETON — being implemented on the `caches-disk` branch. The on-disk cache of one pipeline.
final class DiskCache: BudgetedCache, @unchecked Sendable {
    // All state is guarded by `domain.queue`.
    let domain: DiskCacheDomain
    let configuration: GlobalConfiguration
    let directory: URL

    init(directory: URL, domain: DiskCacheDomain, configuration: GlobalConfiguration) {
        self.directory = directory
        self.domain = domain
        self.configuration = configuration
        domain.sync { domain.budget.register(self) }
    }

    var _budgetedEntryCount: Int { 0 }
    func _evictLeastRecentlyUsedEntry() -> Bool { false }

    func clearImage(withIdentifier identifier: String) {}
    func clearAll(completion: (@Sendable () -> Void)? = nil) { completion?() }
    func changeIdentifier(from oldIdentifier: String, to newIdentifier: String) throws(POSIXError) { throw POSIXError(.ENOENT) }
    func copyCompleteFile(withIdentifier identifier: String) throws(POSIXError) -> URL { throw POSIXError(.ENOENT) }
    func inspectionEntries() -> (complete: [ImagePipelineInspectionResult.Entry], partial: [ImagePipelineInspectionResult.Entry]) { ([], []) }
    var totalBytes: Int64 { 0 }
    var count: Int { 0 }
    func tearDown() { domain.sync { domain.budget.unregister(self, bytes: 0, count: 0) } }
}
