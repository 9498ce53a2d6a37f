import Foundation

/// The rendered-image cache of one pipeline: decoded images at the sizes they were shown, looked up
/// synchronously by identifier and target sizing (TIP's `TIPImageRenderedCache`).
///
/// ```swift
/// cache.store(image, identifier: "avatar-1", transformerIdentifier: nil,
///             originalDimensions: CGSize(width: 1024, height: 1024), isPlaceholder: false)
/// let hit = cache.image(withIdentifier: "avatar-1", targetDimensions: CGSize(width: 64, height: 64),
///                       targetContentMode: .scaleAspectFill, transformerIdentifier: nil)
/// ```
///
/// An LRU of per-identifier ``RenderedCacheCollection``s (at most 3 images each). The cost of an
/// identifier is the bytes of its images; the count is one per identifier. Both are shared with every
/// other rendered cache of the configuration through the domain's ``CacheBudget``; each store prunes
/// all of them with this cache last (TIP's order). No TTL; an image rendered from a response whose HTTP
/// freshness ran out turns dirty at its next lookup (a preview until the fetch revalidates it).
///
/// Thread-safe and synchronous: every method takes the domain's lock (never call one from inside
/// `domain.withLock`). Released images are freed outside the lock where large amounts go at once
/// (``clearAll()``, ``tearDown()``).
///
/// Weak mode (TIP's background behaviour, ``enterWeakMode()``): the identifiers leave the LRU and the
/// budget, and the items keep only a weak reference to their image. ``exitWeakMode()`` and any lookup
/// bring back the items whose images are still alive elsewhere (budget re-checked); stores while weak
/// add weak items.
final class RenderedCache: BudgetedCache, @unchecked Sendable {
    // Every `var` below, and the contents of both LRU lists, are guarded by `domain`'s lock.
    /// The lock, the shared budget and every rendered cache of the configuration.
    let domain: LockedCacheDomain
    /// The configuration the cache belongs to.
    let configuration: GlobalConfiguration

    /// The budget inside `domain` (the same object the lock hands out), kept for eviction callbacks,
    /// which run with the lock already held. Used only under the lock.
    private let budget: CacheBudget
    private var collections = LRUList<String, RenderedCacheCollection>()
    /// Collections set aside by weak mode, most recently used first; their items are weak.
    private var weakCollections = LRUList<String, RenderedCacheCollection>()
    private var isWeak = false
    private var ownBytes: Int64 = 0
    private var isTornDown = false

    /// An empty cache registered with `domain`'s budget.
    init(domain: LockedCacheDomain, configuration: GlobalConfiguration) {
        self.domain = domain
        self.configuration = configuration
        self.budget = domain.withLock { $0 }
        domain.withLock { $0.register(self) }
    }

    // MARK: BudgetedCache (called under the domain's lock)

    /// Identifiers in the LRU (none while weak).
    var _budgetedEntryCount: Int { collections.count }

    /// Evicts the least recently used identifier with all its images.
    func _evictLeastRecentlyUsedEntry() -> Bool {
        guard let (_, collection) = collections.removeTail() else { return false }
        let cost = collection.cost
        ownBytes -= cost
        budget.subtract(bytes: cost, count: 1)
        return true
    }

    // MARK: Lookup and store

    /// The first image of `identifier` whose dimensions are what scaling to `targetDimensions` with
    /// `targetContentMode` produces (TIP's `sizeMatchesTargetSizing` at scale 1) and whose
    /// transformer identifier equals `transformerIdentifier` (nil matches only untransformed images).
    /// Nil without a positive target and a scaling mode. Looking up an identifier moves it to the
    /// head of the LRU (as TIP, even when no image matches), and a hit moves the image first within
    /// its identifier. A lookup while weak ends weak mode first. An image whose freshness ran out (on the
    /// configuration's clock, with ``GlobalConfiguration/followsHTTPCachingHeaders`` on) is marked dirty.
    func image(
        withIdentifier identifier: String, targetDimensions: CGSize, targetContentMode: ContentMode,
        transformerIdentifier: String?
    ) -> RenderedCacheHit? {
        let now = configuration.clock()
        return domain.withLock { budget in
            guard !isTornDown else { return nil }
            if isWeak { restoreWeakCollections(budget) }
            guard let collection = collections.touch(identifier),
                let (item, image) = collection.match(
                    targetDimensions: targetDimensions, contentMode: targetContentMode,
                    transformerIdentifier: transformerIdentifier)
            else { return nil }
            let isDirty =
                item.isDirty
                || (item.freshUntil != nil && configuration.followsHTTPCachingHeaders && item.isStale(at: now))
            if isDirty && !item.isDirty { collection.markFirstItemDirty() }
            return RenderedCacheHit(image: image, originalDimensions: item.originalDimensions, isDirty: isDirty)
        }
    }

    /// Stores the rendered `image` of `identifier` (see ``RenderedCacheCollection/add(_:)`` for which
    /// image of equal size wins) and moves the identifier to the head of the LRU, then prunes every
    /// rendered cache, this one last. Refused: placeholders, images under 1 pixel on a side, and images
    /// over the per-entry cap (`maxBytes / maxRatioSizeOfCacheEntry`; everything when the budget is 0
    /// bytes). `originalDimensions` are those of the decoded image `image` was rendered from; `url` is
    /// kept for inspection only; `freshUntil` is when the image it was rendered from stops being fresh.
    /// `matchesTargetExactly`: later lookups match the image by `transformerIdentifier` alone (processed images,
    /// whose identity names their target sizing).
    func store(
        _ image: ImageContainer, identifier: String, transformerIdentifier: String?, originalDimensions: CGSize,
        isPlaceholder: Bool, url: URL? = nil, freshUntil: Date? = nil, matchesTargetExactly: Bool = false
    ) {
        guard !isPlaceholder else { return }
        let item = RenderedCacheItem(
            image: image, transformerIdentifier: transformerIdentifier,
            originalDimensions: originalDimensions, url: url, freshUntil: freshUntil,
            matchesTargetExactly: matchesTargetExactly)
        guard item.dimensions.width >= 1, item.dimensions.height >= 1 else { return }
        domain.withLock { budget in
            guard !isTornDown, budget.accepts(bytes: item.byteCount) else { return }
            if isWeak {
                storeWeakly(item, identifier: identifier)
                return
            }
            let existing = collections.peek(identifier)
            let collection = existing ?? RenderedCacheCollection(identifier: identifier)
            let oldCost = existing?.cost ?? 0
            collection.add(item)
            if existing != nil {
                collections.touch(identifier)
            } else {
                collections.insertAtHead(identifier, collection)
                budget.add(bytes: 0, count: 1)
            }
            adjustBytes(by: collection.cost - oldCost, budget)
            budget.prune(priorityCache: self)
        }
    }

    /// Marks every image of `identifier` dirty: lookups still find them (for a preview) but report
    /// `isDirty`, and the next store of the same size replaces them. Like every access, it moves the
    /// identifier to the head of the LRU (as TIP).
    func dirtyImages(withIdentifier identifier: String) {
        domain.withLock { _ in
            if isWeak {
                weakCollections.peek(identifier)?.markAllDirty()
            } else {
                collections.touch(identifier)?.markAllDirty()
            }
        }
    }

    /// Removes every image of `identifier`.
    func clearImages(withIdentifier identifier: String) {
        let removed = domain.withLock { budget -> RenderedCacheCollection? in
            weakCollections.remove(identifier)
            guard let collection = collections.remove(identifier) else { return nil }
            let cost = collection.cost
            ownBytes -= cost
            budget.subtract(bytes: cost, count: 1)
            return collection
        }
        _ = removed  // released here, outside the lock
    }

    /// Removes every image (weak mode, if on, stays on).
    func clearAll() {
        let released = domain.withLock { budget in
            let old = (collections, weakCollections)
            budget.subtract(bytes: ownBytes, count: collections.count)
            ownBytes = 0
            collections = LRUList()
            weakCollections = LRUList()
            return old
        }
        _ = released  // released here, outside the lock
    }

    // MARK: Weak mode

    /// Turns the cache weak (TIP's background behaviour): every identifier leaves the LRU and the
    /// budget, and its items keep only weak references to their images.
    func enterWeakMode() {
        domain.withLock { budget in
            guard !isTornDown else { return }
            isWeak = true
            // Oldest first, each to the head: the weak list keeps the LRU order.
            while let (identifier, collection) = collections.removeTail() {
                budget.subtract(bytes: collection.cost, count: 1)
                collection.weakify()
                weakCollections.insertAtHead(identifier, collection)
            }
            ownBytes = 0
        }
    }

    /// Ends weak mode: items whose images are still alive elsewhere come back strongly, in their LRU
    /// order, and the budget is re-checked (this cache pruned last).
    func exitWeakMode() {
        domain.withLock { budget in
            guard isWeak, !isTornDown else { return }
            restoreWeakCollections(budget)
        }
    }

    /// Whether the cache is weak.
    var isInWeakMode: Bool { domain.withLock { _ in isWeak } }

    private func restoreWeakCollections(_ budget: CacheBudget) {
        isWeak = false
        while let (identifier, collection) = weakCollections.removeTail() {
            guard collection.strongify() else { continue }
            collections.insertAtHead(identifier, collection)
            let cost = collection.cost
            ownBytes += cost
            budget.add(bytes: cost, count: 1)
        }
        budget.prune(priorityCache: self)
    }

    private func storeWeakly(_ item: RenderedCacheItem, identifier: String) {
        let collection = weakCollections.peek(identifier) ?? RenderedCacheCollection(identifier: identifier)
        collection.removeReleasedItems()
        collection.add(item)
        collection.weakify()
        weakCollections.insertAtHead(identifier, collection)
    }

    // MARK: Accounting and inspection

    /// One entry per image, identifiers most recently used first; empty while weak.
    func inspectionEntries() -> [ImagePipelineInspectionResult.Entry] {
        domain.withLock { _ in
            guard !isWeak else { return [] }
            var entries: [ImagePipelineInspectionResult.Entry] = []
            for (identifier, collection) in collections.entriesNewestFirst {
                for item in collection.items {
                    entries.append(
                        ImagePipelineInspectionResult.Entry(
                            identifier: identifier, url: item.url, dimensions: item.dimensions,
                            bytesUsed: item.byteCount, progress: 1, image: item.image))
                }
            }
            return entries
        }
    }

    /// Bytes this cache counts against the budget now (0 while weak).
    var totalBytes: Int64 { domain.withLock { _ in ownBytes } }
    /// Identifiers this cache counts against the budget now (0 while weak).
    var count: Int { domain.withLock { _ in collections.count } }

    /// Leaves the budget, subtracting exactly what this cache still counts, and drops everything;
    /// later calls do nothing (pipelines tear down).
    func tearDown() {
        let released = domain.withLock { budget in
            let old = (collections, weakCollections)
            if !isTornDown {
                budget.unregister(self, bytes: ownBytes, count: collections.count)
                isTornDown = true
            }
            ownBytes = 0
            collections = LRUList()
            weakCollections = LRUList()
            return old
        }
        _ = released  // released here, outside the lock
    }

    private func adjustBytes(by delta: Int64, _ budget: CacheBudget) {
        ownBytes += delta
        if delta > 0 {
            budget.add(bytes: delta, count: 0)
        } else if delta < 0 {
            budget.subtract(bytes: -delta, count: 0)
        }
    }
}
