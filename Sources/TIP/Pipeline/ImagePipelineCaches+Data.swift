import Foundation

// The door's encoded bytes, for data-only fetches: what the caches hold of one image, never decoded.
extension ImagePipelineCaches {
    /// The memory cache's complete bytes of `identifier` at `url`; nil on a miss, another URL's variant, or bytes that
    /// must be revalidated first (HTTP caching: the download revalidates them; stale bytes without a validator are
    /// dropped, as an image fetch drops them).
    func memoryData(identifier: String, url: URL, touch: Bool) -> MemoryCacheCompleteImage? {
        guard let complete = memory.entry(withIdentifier: identifier, touch: touch)?.complete, complete.url == url
        else {
            countLookup("memory", hit: false)
            return nil
        }
        if isStale(complete.freshness) {
            countLookup("memory", "stale")
            if !complete.hasValidator {
                memory.removeCompleteImage(withIdentifier: identifier) { $0.url == url && !$0.hasValidator }
            }
            return nil
        }
        countLookup("memory", hit: true)
        return complete
    }

    /// The disk cache's complete file of `identifier` at `url`, read (not decoded); then, unless `copiesToMemory` is
    /// false, offered to the memory cache with `timeToLive` and the file's freshness and validators. Nil on a miss,
    /// another URL's variant, or a file that must be revalidated first (one without a validator is deleted when
    /// `dropsUnrevalidatable`: this pipeline's own, not another's it only looks into).
    func diskData(
        identifier: String, url: URL, copiesToMemory: Bool, timeToLive: TimeInterval, dropsUnrevalidatable: Bool = true
    ) -> MemoryCacheCompleteImage? {
        guard let part = disk.entry(withIdentifier: identifier, includePartial: false)?.complete,
            part.metadata.url == url
        else {
            countLookup("disk", hit: false)
            return nil
        }
        let metadata = part.metadata
        if isStale(metadata.freshness) {
            countLookup("disk", "stale")
            if !metadata.hasValidator, dropsUnrevalidatable {
                disk.clearCompleteImage(withIdentifier: identifier, url: url)
            }
            return nil
        }
        guard let data = disk.completeData(of: part) else {
            countLookup("disk", hit: false)
            return nil
        }
        countLookup("disk", hit: true)
        let bytes = MemoryCacheCompleteImage(
            data: data, imageType: metadata.imageType.map(ImageType.init(rawValue:)), url: url,
            dimensions: CGSize(width: metadata.width, height: metadata.height), isAnimated: metadata.isAnimated,
            isPlaceholder: metadata.isPlaceholder, timeToLive: timeToLive,
            updateExpiryOnAccess: metadata.updatesExpiryOnAccess, freshness: metadata.freshness,
            lastModified: metadata.lastModified, entityTag: metadata.entityTag)
        if copiesToMemory { memory.updateEntry(MemoryCacheEntry(identifier: identifier, complete: bytes)) }
        return bytes
    }
}
