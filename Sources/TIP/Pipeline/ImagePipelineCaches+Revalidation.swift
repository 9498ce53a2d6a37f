import Foundation

// The door's HTTP revalidation side: which cached image a download asks the server to confirm, renewing it when
// the server answers `304 Not Modified`, and dropping it when the server sends another version.
extension ImagePipelineCaches {
    /// A cached image the server confirmed, renewed, and the cache it is served from.
    struct RevalidatedImage: Sendable {
        /// The bytes and what the caches know of them (freshness renewed).
        var image: DownloadedImage
        /// `diskCache` when the disk cache holds the image (and the request may read it), else `memoryCache`.
        var source: ImageLoadSource
    }

    /// The validators of the complete image of `request`'s URL that the memory cache, else the disk cache, holds;
    /// nil when neither holds one that can be revalidated. A cache the request may not read is not asked.
    func revalidation(for request: ImageDownloadRequest) -> ImageDownloadRevalidation? {
        if request.revalidatesMemoryCopy,
            let complete = memory.entry(withIdentifier: request.identifier, touch: false)?.complete,
            complete.url == request.url,
            let revalidation = ImageDownloadRevalidation(
                entityTag: complete.entityTag, lastModified: complete.lastModified)
        {
            return revalidation
        }
        guard request.revalidatesDiskCopy,
            let metadata = disk.entry(withIdentifier: request.identifier, includePartial: false)?.complete?.metadata,
            metadata.url == request.url
        else { return nil }
        return ImageDownloadRevalidation(entityTag: metadata.entityTag, lastModified: metadata.lastModified)
    }

    /// The server confirmed the image `revalidation` asked about: the memory and disk caches' copies (those with the
    /// same URL and validators) get `renew`'s freshness (given their stored one) and the response's validators, and
    /// the image is returned. A disk copy's bytes also enter the memory cache. Nil when no cache the request may
    /// read still holds it. Rewrites file metadata: runs on the downloader's queue, like the other reads a download
    /// starts with.
    func renewRevalidatedImage(
        for request: ImageDownloadRequest, revalidation: ImageDownloadRevalidation,
        entityTag: String?, lastModified: String?,
        freshness renew: (CacheFreshness?) -> CacheFreshness
    ) -> RevalidatedImage? {
        let url = request.url
        let inMemory = memory.updateCompleteImage(
            withIdentifier: request.identifier, accepts: { revalidation.isAbout($0, url: url) }
        ) {
            revalidation.renew(&$0, entityTag: entityTag, lastModified: lastModified, freshness: renew)
        }
        let onDisk = disk.updateCompleteMetadata(
            withIdentifier: request.identifier, accepts: { revalidation.isAbout($0, url: url) }
        ) {
            revalidation.renew(&$0, entityTag: entityTag, lastModified: lastModified, freshness: renew)
        }
        // Both copies are renewed; the one served is from a cache the request may read.
        if let inMemory, request.revalidatesMemoryCopy {
            let image = DownloadedImage(
                data: inMemory.data, imageType: inMemory.imageType, dimensions: inMemory.dimensions,
                isAnimated: inMemory.isAnimated, lastModified: inMemory.lastModified,
                entityTag: inMemory.entityTag, freshness: inMemory.freshness)
            let source: ImageLoadSource = onDisk != nil && request.revalidatesDiskCopy ? .diskCache : .memoryCache
            return RevalidatedImage(image: image, source: source)
        }
        guard request.revalidatesDiskCopy, let onDisk, let data = disk.completeData(of: onDisk) else { return nil }
        let metadata = onDisk.metadata
        let type = metadata.imageType.map(ImageType.init(rawValue:))
        let dimensions = CGSize(width: metadata.width, height: metadata.height)
        // The fetches that follow find the renewed bytes in memory, as after a download.
        memory.updateEntry(
            MemoryCacheEntry(
                identifier: request.identifier,
                complete: MemoryCacheCompleteImage(
                    data: data, imageType: type, url: url, dimensions: dimensions, isAnimated: metadata.isAnimated,
                    isPlaceholder: metadata.isPlaceholder, timeToLive: metadata.timeToLive,
                    updateExpiryOnAccess: metadata.updatesExpiryOnAccess, freshness: metadata.freshness,
                    lastModified: metadata.lastModified, entityTag: metadata.entityTag)))
        let image = DownloadedImage(
            data: data, imageType: type, dimensions: dimensions, isAnimated: metadata.isAnimated,
            lastModified: metadata.lastModified, entityTag: metadata.entityTag, freshness: metadata.freshness)
        return RevalidatedImage(image: image, source: .diskCache)
    }

    /// The server no longer has the image `revalidation` asked about (it sent another version, or a `304` saying
    /// not to keep it): the memory and disk caches drop their complete copies of `request`'s URL (partials stay),
    /// and the rendered images of the identifier turn dirty (previews until fetched again).
    func discardOutdatedImage(for request: ImageDownloadRequest, revalidation: ImageDownloadRevalidation) {
        let url = request.url
        memory.removeCompleteImage(withIdentifier: request.identifier) { revalidation.isAbout($0, url: url) }
        disk.clearCompleteImage(withIdentifier: request.identifier, url: url)
        rendered.dirtyImages(withIdentifier: request.identifier)
    }
}
