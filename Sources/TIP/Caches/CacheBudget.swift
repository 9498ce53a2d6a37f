/// A cache that takes part in a shared budget: it can report its entry count and give up its least
/// recently used entry. Called only under the guard of its kind (see ``CacheBudget``).
protocol BudgetedCache: AnyObject {
    /// Entries the cache holds now.
    var _budgetedEntryCount: Int { get }
    /// Evicts the least recently used entry, reporting the freed bytes and count to the budget.
    /// Returns false when the cache is empty.
    func _evictLeastRecentlyUsedEntry() -> Bool
}

/// The byte and count budget shared by every live cache of one ``ImageCacheType``, with the live
/// totals and TIP's pruning order.
///
/// Not thread-safe by itself: each cache kind guards its budget with the same lock or queue that
/// guards all caches of that kind (rendered and memory caches: a lock; disk caches: the disk queue),
/// and every method here runs under it.
package final class CacheBudget: @unchecked Sendable {
    // Every member is used only under the lock or queue of its cache kind (see the type comment).
    /// Largest total bytes allowed (resolved: never negative). 0 disables the kind.
    private(set) var maxBytes: Int64
    /// Largest total entry count (resolved: never negative). 0 means unlimited.
    private(set) var maxCount: Int
    /// Entry size cap divisor: entries over `maxBytes / ratio` are refused; 0 or 1 means no cap.
    private(set) var maxRatioSizeOfCacheEntry: Int

    /// Bytes all live caches of this kind hold.
    private(set) var totalBytes: Int64 = 0
    /// Entries all live caches of this kind hold.
    private(set) var totalCount: Int = 0

    /// Told when the accounting goes wrong (a subtraction below zero); the totals are clamped to zero
    /// either way. ``GlobalConfiguration`` routes this to its logger and, with `assertsEnabled`, to an
    /// assertion in debug builds.
    var inconsistencyHandler: (@Sendable (String) -> Void)?
    /// Told how many entries a prune evicted (for metrics).
    var evictionHandler: (@Sendable (Int) -> Void)?

    private var members: [ObjectIdentifier: WeakCache] = [:]
    private var memberOrder: [ObjectIdentifier] = []

    private struct WeakCache {
        weak var cache: (any BudgetedCache)?
    }

    package init(maxBytes: Int64, maxCount: Int, maxRatioSizeOfCacheEntry: Int) {
        self.maxBytes = max(0, maxBytes)
        self.maxCount = max(0, maxCount)
        self.maxRatioSizeOfCacheEntry = maxRatioSizeOfCacheEntry
    }

    /// The largest entry this kind accepts: `maxBytes / ratio`, or `Int64.max` with no ratio cap.
    var maxBytesPerEntry: Int64 {
        let ratio =
            maxRatioSizeOfCacheEntry < 0
            ? GlobalConfiguration.defaultMaxRatioSizeOfCacheEntry : maxRatioSizeOfCacheEntry
        if ratio <= 1 { return Int64.max }
        return maxBytes / Int64(ratio)
    }

    /// Whether an entry of `bytes` may be stored at all.
    func accepts(bytes: Int64) -> Bool {
        maxBytes > 0 && bytes <= maxBytesPerEntry
    }

    /// Adds a cache to the budget (pipelines stand up).
    func register(_ cache: any BudgetedCache) {
        let id = ObjectIdentifier(cache)
        if members[id] == nil { memberOrder.append(id) }
        members[id] = WeakCache(cache: cache)
    }

    /// Removes a cache and subtracts exactly what it still holds (pipelines tear down; files stay).
    func unregister(_ cache: any BudgetedCache, bytes: Int64, count: Int) {
        let id = ObjectIdentifier(cache)
        members[id] = nil
        memberOrder.removeAll { $0 == id }
        subtract(bytes: bytes, count: count)
    }

    /// Records bytes and entries added.
    func add(bytes: Int64, count: Int) {
        totalBytes += bytes
        totalCount += count
    }

    /// Records bytes and entries removed; totals never go below zero.
    func subtract(bytes: Int64, count: Int) {
        if bytes > totalBytes || count > totalCount {
            inconsistencyHandler?(
                "cache totals would go negative: \(totalBytes) - \(bytes) bytes, \(totalCount) - \(count) entries")
        }
        totalBytes = max(0, totalBytes - bytes)
        totalCount = max(0, totalCount - count)
    }

    /// Applies new limits and prunes every cache of the kind (no priority cache).
    func setLimits(maxBytes: Int64? = nil, maxCount: Int? = nil, maxRatioSizeOfCacheEntry: Int? = nil) {
        if let maxBytes { self.maxBytes = max(0, maxBytes) }
        if let maxCount { self.maxCount = max(0, maxCount) }
        if let maxRatioSizeOfCacheEntry { self.maxRatioSizeOfCacheEntry = maxRatioSizeOfCacheEntry }
        prune(priorityCache: nil)
    }

    /// Whether the totals are over the limits.
    var isOverBudget: Bool {
        totalBytes > maxBytes || (maxCount > 0 && totalCount > maxCount)
    }

    /// TIP's pruning: while over budget, every cache other than `priorityCache` gives up its least
    /// recently used entry, one per cache per round; only when nothing but the priority cache's
    /// entries is left does the priority cache give up its own, oldest first. So the cache being
    /// written is protected, and filling one pipeline can empty another.
    func prune(priorityCache: (any BudgetedCache)?) {
        guard isOverBudget else { return }
        let caches = memberOrder.compactMap { members[$0]?.cache }
        let priorityID = priorityCache.map(ObjectIdentifier.init)
        var others = caches.filter { ObjectIdentifier($0) != priorityID }
        var evicted = 0
        while isOverBudget && !others.isEmpty {
            // As TIP: each round takes one entry from every other cache, even if the budget is met
            // part-way through the round; caches that run empty drop out.
            others = others.filter { $0._evictLeastRecentlyUsedEntry() }
            evicted += others.count
        }
        if let priorityCache {
            while isOverBudget && priorityCache._evictLeastRecentlyUsedEntry() { evicted += 1 }
        }
        if evicted > 0 { evictionHandler?(evicted) }
    }
}
