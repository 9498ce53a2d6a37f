import Foundation

// The door's encoded bytes, for data-only fetches: what the caches hold of one image, never decoded.
extension ImagePipelineCaches {
    /// The memory cache's complete bytes of `identifier` at `url`; nil on a miss or another URL's variant.
    func memoryData(identifier: String, url: URL, touch: Bool) -> MemoryCacheCompleteImage? {
        guard let complete = memory.entry(withIdentifier: identifier, touch: touch)?.complete, complete.url == url
        else {
            countLookup("memory", hit: false)
            return nil
        }
        countLookup("memory", hit: true)
        return complete
    }

    /// The disk cache's complete file of `identifier` at `url`, read (not decoded); then, unless `copiesToMemory` is
    /// false, offered to the memory cache with `timeToLive`. Nil on a miss or another URL's variant.
    func diskData(identifier: String, url: URL, copiesToMemory: Bool, timeToLive: TimeInterval)
        -> MemoryCacheCompleteImage?
    {
        guard let part = disk.entry(withIdentifier: identifier, includePartial: false)?.complete,
            part.metadata.url == url,
            let data = disk.completeData(of: part)
        else {
            countLookup("disk", hit: false)
            return nil
        }
        countLookup("disk", hit: true)
        let metadata = part.metadata
        let bytes = MemoryCacheCompleteImage(
            data: data, imageType: metadata.imageType.map(ImageType.init(rawValue:)), url: url,
            dimensions: CGSize(width: metadata.width, height: metadata.height), isAnimated: metadata.isAnimated,
            isPlaceholder: metadata.isPlaceholder, timeToLive: timeToLive,
            updateExpiryOnAccess: metadata.updatesExpiryOnAccess)
        if copiesToMemory { memory.updateEntry(MemoryCacheEntry(identifier: identifier, complete: bytes)) }
        return bytes
    }
}
