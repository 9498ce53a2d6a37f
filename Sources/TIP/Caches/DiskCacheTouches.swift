/// Refreshing the entries of images served from the rendered cache, as TIP's rendered hit touches its disk cache: the
/// image on disk is the one on screen, so it keeps its place at the head of the LRU and, unless it was stored with
/// ``ImageStoreOptions/doNotResetExpiryOnAccess``, slides its expiry, instead of ageing out while it is in use.
extension DiskCache {
    /// Refreshes `identifier`'s entry soon, off the caller's thread, in a batch with the touches of the next few
    /// milliseconds (``DeferredTouches``).
    func touchImageLater(withIdentifier identifier: String) {
        pendingTouches.add(identifier) { [weak self] batch in self?.touchImages(withIdentifiers: batch) }
    }

    /// Refreshes each of `identifiers`' complete and partial files as a read does (an expired one is deleted, as
    /// on a read), once each, in the order of their last mention. Nothing once the cache is torn down.
    func touchImages(withIdentifiers identifiers: [String]) {
        for identifier in DeferredTouches.lastMentionOrder(identifiers) {
            guard !domain.sync({ isTornDown }) else { return }
            _ = entry(withIdentifier: identifier)
        }
    }
}
