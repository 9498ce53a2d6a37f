import Foundation

/// The encoded-data memory cache of one pipeline: per identifier, the encoded bytes of one complete
/// variant and at most one partial download (TIP's `TIPImageMemoryCache`).
///
/// ```swift
/// let complete = MemoryCacheCompleteImage(
///     data: bytes, imageType: .jpeg, url: url, dimensions: CGSize(width: 800, height: 600))
/// cache.updateEntry(MemoryCacheEntry(identifier: "photo-1", complete: complete))
/// if let entry = cache.entry(withIdentifier: "photo-1") {
///     let image = try cache.decodeCompleteImage(of: entry, targetDimensions: CGSize(width: 200, height: 200),
///                                              targetContentMode: .scaleAspectFit)
/// }
/// ```
///
/// An LRU by identifier; an entry costs its complete plus partial bytes and counts once. Both are
/// shared with every other memory cache of the configuration through the domain's ``CacheBudget``;
/// each update prunes all of them with this cache last (TIP's order). Time to live is lazy: parts
/// expire when read after more than their `timeToLive` since their last access.
///
/// Thread-safe and synchronous: every method takes the domain's lock (never call one from inside
/// `domain.withLock`), except
/// ``decodeCompleteImage(of:targetDimensions:targetContentMode:decoderConfigMap:catalogue:)``, which works on a copy
/// outside it.
final class MemoryCache: BudgetedCache, @unchecked Sendable {
    // Every `var` below, and the contents of the LRU list, are guarded by `domain`'s lock.
    /// The lock, the shared budget and every memory cache of the configuration.
    let domain: LockedCacheDomain
    /// The configuration the cache belongs to (its clock dates accesses).
    let configuration: GlobalConfiguration

    /// The budget inside `domain` (the same object the lock hands out), kept for eviction callbacks,
    /// which run with the lock already held. Used only under the lock.
    private let budget: CacheBudget
    private var entries = LRUList<String, MemoryCacheEntry>()
    private var ownBytes: Int64 = 0
    private var isTornDown = false
    /// Identifiers read by rendered-cache hits, touched later in one batch (guarded by its own lock, never taken
    /// while holding the domain's).
    private let pendingTouches = DeferredTouches()

    /// An empty cache registered with `domain`'s budget.
    init(domain: LockedCacheDomain, configuration: GlobalConfiguration) {
        self.domain = domain
        self.configuration = configuration
        self.budget = domain.withLock { $0 }
        domain.withLock { $0.register(self) }
    }

    // MARK: BudgetedCache (called under the domain's lock)

    /// Identifiers held.
    var _budgetedEntryCount: Int { entries.count }

    /// Evicts the least recently used identifier (complete and partial).
    func _evictLeastRecentlyUsedEntry() -> Bool {
        guard let (_, entry) = entries.removeTail() else { return false }
        ownBytes -= entry.byteCount
        budget.subtract(bytes: entry.byteCount, count: 1)
        return true
    }

    // MARK: Updates

    /// Offers `entry`'s complete variant and/or partial to the cache, then prunes every memory cache,
    /// this one last. Returns whether the cache changed.
    ///
    /// Parts without bytes are ignored (nothing without bytes is cached), as are placeholder partials
    /// and partials not strictly larger in area than the complete variant beside them. For an
    /// identifier already held, the complete variant follows
    /// ``MemoryCacheEntry/adoptComplete(_:now:fits:)`` and the partial
    /// ``MemoryCacheEntry/adoptPartial(_:now:fits:)``, expired parts no longer count, and the
    /// identifier's recency is refreshed as by a read. With `forciblyReplaceExisting`, or for a new
    /// identifier, the entry replaces whatever was there (the old entry is removed even when the new
    /// one has no bytes); if over the per-entry cap (`maxBytes / maxRatioSizeOfCacheEntry`), it sheds
    /// its partial, then its complete variant. Every stored part's `lastAccess` becomes now.
    @discardableResult
    func updateEntry(_ entry: MemoryCacheEntry, forciblyReplaceExisting force: Bool = false) -> Bool {
        guard !entry.identifier.isEmpty else { return false }
        let incoming = entry.normalizedForStoring()
        let identifier = incoming.identifier
        let now = configuration.clock()
        let released = domain.withLock { budget -> (changed: Bool, old: MemoryCacheEntry?) in
            guard !isTornDown else { return (false, nil) }
            var changed = false
            var removed: MemoryCacheEntry?
            if force, let old = entries.remove(identifier) {
                account(removing: old, budget)
                removed = old
                changed = true
            }
            let fits = { (bytes: Int64) in budget.accepts(bytes: bytes) }
            if var current = entries.peek(identifier) {
                if current.accessRefreshesRecency { entries.touch(identifier) }
                let oldCost = current.byteCount
                var updated = current.removeExpiredParts(at: now)
                if let complete = incoming.complete, current.adoptComplete(complete, now: now, fits: fits) {
                    updated = true
                }
                if let partial = incoming.partial, current.adoptPartial(partial, now: now, fits: fits) {
                    updated = true
                }
                if updated {
                    if current.byteCount == 0 {
                        entries.remove(identifier)
                        ownBytes -= oldCost
                        budget.subtract(bytes: oldCost, count: 1)
                    } else {
                        entries.updateValue(current, for: identifier)
                        adjustBytes(by: current.byteCount - oldCost, budget)
                    }
                    changed = true
                }
            } else {
                var fresh = incoming
                fresh.complete?.lastAccess = now
                fresh.partial?.lastAccess = now
                fresh.shed(toFit: fits)
                if fresh.byteCount > 0 {
                    entries.insertAtHead(identifier, fresh)
                    ownBytes += fresh.byteCount
                    budget.add(bytes: fresh.byteCount, count: 1)
                    changed = true
                }
            }
            if changed { budget.prune(priorityCache: self) }
            return (changed, removed)
        }
        return released.changed  // a forcibly replaced entry is released here, outside the lock
    }

    // MARK: Reads

    /// A copy of `identifier`'s entry, nil when absent. Expired parts are dropped first (an entry
    /// left without parts is removed). With `touch`, each part that updates its expiry on access gets
    /// `lastAccess = now`, and the identifier moves to the head of the LRU when any part does (a
    /// `doNotResetExpiryOnAccess` entry keeps both).
    func entry(withIdentifier identifier: String, touch: Bool = true) -> MemoryCacheEntry? {
        let now = configuration.clock()
        return domain.withLock { budget in read(identifier, touch: touch, at: now, budget) }
    }

    /// ``entry(withIdentifier:touch:)`` inside the domain's lock.
    private func read(_ identifier: String, touch: Bool, at now: Date, _ budget: CacheBudget) -> MemoryCacheEntry? {
        guard var entry = entries.peek(identifier) else { return nil }
        let oldCost = entry.byteCount
        let expired = entry.removeExpiredParts(at: now)
        if entry.byteCount == 0 {
            entries.remove(identifier)
            ownBytes -= oldCost
            budget.subtract(bytes: oldCost, count: 1)
            return nil
        }
        if touch {
            if entry.accessRefreshesRecency { entries.touch(identifier) }
            if entry.complete?.updateExpiryOnAccess == true { entry.complete?.lastAccess = now }
            if entry.partial?.updateExpiryOnAccess == true { entry.partial?.lastAccess = now }
        }
        if touch || expired {
            entries.updateValue(entry, for: identifier)
            adjustBytes(by: entry.byteCount - oldCost, budget)
        }
        return entry
    }

    /// Changes the metadata of `identifier`'s complete variant in place when `accepts` takes it (a revalidation
    /// renews its freshness), refreshing it as a read would; returns the variant as changed, nil when there is
    /// none or `accepts` refused it. `change` must leave the bytes as they are.
    func updateCompleteImage(
        withIdentifier identifier: String, accepts: (MemoryCacheCompleteImage) -> Bool,
        _ change: (inout MemoryCacheCompleteImage) -> Void
    ) -> MemoryCacheCompleteImage? {
        let now = configuration.clock()
        return domain.withLock { _ in
            guard var entry = entries.peek(identifier), var complete = entry.complete, !complete.isExpired(at: now),
                accepts(complete)
            else { return nil }
            let byteCount = complete.data.count
            change(&complete)
            guard complete.data.count == byteCount else { return nil }
            if complete.updateExpiryOnAccess {
                complete.lastAccess = now
                entries.touch(identifier)
            }
            entry.complete = complete
            entries.updateValue(entry, for: identifier)
            return complete
        }
    }

    /// Removes `identifier`'s complete variant when `accepts` takes it (a partial beside it stays). Returns
    /// whether it was removed.
    @discardableResult
    func removeCompleteImage(withIdentifier identifier: String, accepts: (MemoryCacheCompleteImage) -> Bool) -> Bool {
        removeVariant(\.complete, withIdentifier: identifier, accepts: accepts)
    }

    /// Removes `identifier`'s partial when `accepts` takes it (the complete variant beside it stays). Returns
    /// whether it was removed.
    @discardableResult
    func removePartialImage(withIdentifier identifier: String, accepts: (MemoryCachePartialImage) -> Bool) -> Bool {
        removeVariant(\.partial, withIdentifier: identifier, accepts: accepts)
    }

    /// Takes the variant at `variant` out of `identifier`'s entry when `accepts` takes it. The entry goes when
    /// nothing is left of it; the accounts follow. Returns whether it was taken.
    private func removeVariant<Variant>(
        _ variant: WritableKeyPath<MemoryCacheEntry, Variant?>, withIdentifier identifier: String,
        accepts: (Variant) -> Bool
    ) -> Bool {
        let removed = domain.withLock { budget -> MemoryCacheEntry? in
            guard var entry = entries.peek(identifier), let value = entry[keyPath: variant], accepts(value) else {
                return nil
            }
            var taken = MemoryCacheEntry(identifier: identifier)
            taken[keyPath: variant] = value
            entry[keyPath: variant] = nil
            if entry.byteCount == 0 {
                entries.remove(identifier)
                account(removing: taken, budget)
            } else {
                entries.updateValue(entry, for: identifier)
                adjustBytes(by: -taken.byteCount, budget)
            }
            return taken
        }
        return removed != nil  // released here, outside the lock
    }

    /// Refreshes `identifier` as a read would (recency and sliding expiry), without copying it out.
    func touchImage(withIdentifier identifier: String) {
        _ = entry(withIdentifier: identifier, touch: true)
    }

    /// Refreshes `identifier` soon, off the caller's thread (TIP touches asynchronously too), in a batch with the
    /// touches of the next few milliseconds (``DeferredTouches``).
    func touchImageLater(withIdentifier identifier: String) {
        pendingTouches.add(identifier) { [weak self] batch in self?.touchImages(withIdentifiers: batch) }
    }

    /// Refreshes each of `identifiers` as a read would, in one hold of the domain's lock. One listed more than
    /// once is refreshed once, in the place of its last mention.
    func touchImages(withIdentifiers identifiers: [String]) {
        guard !identifiers.isEmpty else { return }
        let now = configuration.clock()
        domain.withLock { budget in
            for identifier in DeferredTouches.lastMentionOrder(identifiers) {
                _ = read(identifier, touch: true, at: now, budget)
            }
        }
    }

    /// Decodes `entry`'s complete bytes straight to the target sizing through `catalogue` (default
    /// ``CodecCatalogue/shared``), using the stored image type as a hint and the configuration's
    /// default interpolation quality. Runs on the caller's thread, outside the cache's lock. Throws
    /// ``ImageDecodingError/emptyData`` when the entry has no complete bytes, else the codec's error.
    func decodeCompleteImage(
        of entry: MemoryCacheEntry, targetDimensions: CGSize, targetContentMode: ContentMode,
        decoderConfigMap: [ImageType: any Sendable]? = nil,
        catalogue: CodecCatalogue = .shared
    ) throws(ImageDecodingError) -> ImageContainer {
        guard let complete = entry.complete, !complete.data.isEmpty else { throw .emptyData }
        let options = ImageDecodingOptions(
            targetDimensions: targetDimensions, targetContentMode: targetContentMode,
            interpolationQuality: configuration.defaultInterpolationQuality)
        return try catalogue.decodeImage(
            complete.data, options: options, decoderConfigMap: decoderConfigMap,
            imageType: complete.imageType
        ).container
    }

    // MARK: Clearing

    /// Removes `identifier`'s entry.
    func clearImage(withIdentifier identifier: String) {
        let removed = domain.withLock { budget -> MemoryCacheEntry? in
            guard let old = entries.remove(identifier) else { return nil }
            account(removing: old, budget)
            return old
        }
        _ = removed  // released here, outside the lock
    }

    /// Removes every entry.
    func clearAll() {
        let released = domain.withLock { budget in
            let old = entries
            budget.subtract(bytes: ownBytes, count: entries.count)
            ownBytes = 0
            entries = LRUList()
            return old
        }
        _ = released  // released here, outside the lock
    }

    /// Leaves the budget, subtracting exactly what this cache holds, and drops everything; later
    /// calls do nothing (pipelines tear down).
    func tearDown() {
        let released = domain.withLock { budget in
            let old = entries
            if !isTornDown {
                budget.unregister(self, bytes: ownBytes, count: entries.count)
                isTornDown = true
            }
            ownBytes = 0
            entries = LRUList()
            return old
        }
        _ = released  // released here, outside the lock
    }

    // MARK: Accounting and inspection

    /// Complete and partial entries, most recently used first. A partial's progress is bytes held /
    /// expected bytes, at most 0.999 (0 when the length is unknown).
    func inspectionEntries() -> (
        complete: [ImagePipelineInspectionResult.Entry], partial: [ImagePipelineInspectionResult.Entry]
    ) {
        domain.withLock { _ in
            var complete: [ImagePipelineInspectionResult.Entry] = []
            var partial: [ImagePipelineInspectionResult.Entry] = []
            for (identifier, entry) in entries.entriesNewestFirst {
                if let image = entry.complete {
                    complete.append(
                        ImagePipelineInspectionResult.Entry(
                            identifier: identifier, url: image.url, dimensions: image.dimensions,
                            bytesUsed: image.byteCount,
                            progress: 1, timeToLive: image.timeToLive, lastAccess: image.lastAccess,
                            imageType: image.imageType,
                            isAnimated: image.isAnimated, isPlaceholder: image.isPlaceholder,
                            updatesExpiryOnAccess: image.updateExpiryOnAccess))
                }
                if let image = entry.partial {
                    partial.append(
                        ImagePipelineInspectionResult.Entry(
                            identifier: identifier, url: image.url, dimensions: image.dimensions,
                            bytesUsed: image.byteCount,
                            progress: image.progress, timeToLive: image.timeToLive, lastAccess: image.lastAccess,
                            imageType: image.imageType, isAnimated: image.isAnimated,
                            isPlaceholder: image.isPlaceholder,
                            updatesExpiryOnAccess: image.updateExpiryOnAccess,
                            expectedLength: image.expectedLength > 0 ? Int64(image.expectedLength) : nil,
                            lastModified: image.lastModified, entityTag: image.entityTag))
                }
            }
            return (complete, partial)
        }
    }

    /// Bytes this cache holds now.
    var totalBytes: Int64 { domain.withLock { _ in ownBytes } }
    /// Identifiers this cache holds now.
    var count: Int { domain.withLock { _ in entries.count } }

    private func account(removing entry: MemoryCacheEntry, _ budget: CacheBudget) {
        ownBytes -= entry.byteCount
        budget.subtract(bytes: entry.byteCount, count: 1)
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
