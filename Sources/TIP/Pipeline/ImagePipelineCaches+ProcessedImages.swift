import Foundation

// Stored processed images (``ImageFetchOptions/storeProcessedImageToDiskCache``): a fetch's processed or scaled final
// image, encoded, in the disk cache under an identifier of its own (``ImageFetchProcessing/processedIdentifier(of:)``),
// next to the original's entry.
extension ImagePipelineCaches {
    /// The processed image stored under `identifier` for `url`, decoded at its own size and marked as made by
    /// `processorIdentifiers`; nil on a miss, for another URL, once the original it was made from is stale (the fetch
    /// then goes to the original, which is revalidated, and stores a new one), or when it does not decode (removed and
    /// reported).
    func processedImage(identifier: String, url: URL, processorIdentifiers: [String], maximumPixelCount: Int)
        -> CachedImage?
    {
        guard let part = disk.entry(withIdentifier: identifier, includePartial: false)?.complete,
            part.metadata.url == url, !part.metadata.isStale(at: configuration.clock())
        else {
            countLookup("disk", hit: false)
            return nil
        }
        let own = Decoding(
            targetDimensions: .zero, targetContentMode: .center, decoderConfigMap: nil,
            maximumPixelCount: maximumPixelCount)
        guard var found = decodeDiskPart(part, of: disk, decoding: own) else {
            countLookup("disk", hit: false)
            return nil
        }
        countLookup("disk", hit: true)
        found.image = found.image.replacingFrames(found.image.frames, processorIdentifiers: processorIdentifiers)
        found.bytes = nil
        return found
    }

    /// Encodes `image` (PNG with transparency, JPEG at TIP's store quality otherwise, GIF when animated) and stores it
    /// on disk under `identifier` for `url`, replacing what was there; `originalDimensions` (of the image it was made
    /// from) is what fetches served from it report, and it is used until `freshUntil` (the original's HTTP freshness;
    /// nil: while its TTL keeps it). Encodes on the calling thread, then writes the file there, or on `writeQueue`
    /// when given (the disk cache's commit queue: one writer per directory). Call it off latency-sensitive queues. A
    /// failure is logged; nothing else depends on it. `holding` is kept until the file is written (a fetch's hold on
    /// its pipeline: its `async` caller resumes only once the processed image is on disk).
    func storeProcessedImage(
        _ image: ImageContainer, identifier: String, url: URL, timeToLive: TimeInterval,
        updatesExpiryOnAccess: Bool, originalDimensions: CGSize? = nil, freshUntil: Date? = nil,
        writeQueue: DispatchQueue? = nil, holding: (any Sendable & AnyObject)? = nil
    ) {
        // Already stale (a `no-cache` original): it would never be used.
        if let freshUntil, freshUntil <= configuration.clock() { return }
        let type = CodecCatalogue.recommendedImageType(for: image)
        let data: Data
        do {
            data = try CodecCatalogue.shared.encodeImage(
                image, type: type, quality: type == .jpeg ? ImageStoreWriter.jpegQuality : 1)
        } catch {
            configuration.log(.warning, "the processed image \(identifier) was not stored on disk: \(error)")
            return
        }
        var metadata = DiskCacheMetadata(
            identifier: identifier, url: url, lastAccess: configuration.clock(), timeToLive: timeToLive,
            updatesExpiryOnAccess: updatesExpiryOnAccess, width: Int(image.dimensions.width),
            height: Int(image.dimensions.height),
            isAnimated: image.isAnimated, isPlaceholder: false, imageType: type.rawValue,
            freshness: freshUntil.map { CacheFreshness(freshUntil: $0, serverLifetime: nil) })
        if let pixels = originalDimensions.flatMap(ImageProcessors.pixels) {
            metadata.originalDimensions = CGSize(width: pixels.width, height: pixels.height)
        }
        let disk = self.disk, entry = metadata
        let write: @Sendable () -> Void = {
            withExtendedLifetime(holding) {
                _ = disk.updateImageEntry(metadata: entry, source: .data(data), forced: true)
            }
        }
        if let writeQueue { writeQueue.async(execute: write) } else { write() }
    }
}
