import Foundation

// The door's download side: the partial a download resumes, the file it writes, and what it
// commits when it ends.
extension ImagePipelineCaches {
    /// What a download holds about its image, for the caches.
    struct DownloadedImage: Sendable {
        /// The bytes (for a partial, the prefix received).
        var data: Data
        /// The type detected from the bytes, if any.
        var imageType: ImageType?
        /// The dimensions from the image's header (zero before it).
        var dimensions: CGSize
        /// Whether the header says the image is animated.
        var isAnimated: Bool
        /// The response's `Last-Modified`, for resuming a partial.
        var lastModified: String?
        /// The response's entity tag (`ETag`), for resuming a partial.
        var entityTag: String?
        /// The image's full length in bytes, when the server said (partials).
        var expectedLength: Int?
        /// How long a complete image may be served without revalidation (nil with HTTP caching off).
        var freshness: CacheFreshness?
    }

    /// A download's file in the disk cache: bytes are appended as they arrive, then the file becomes the complete
    /// image, is kept as a partial, or is discarded (dropping it discards it too).
    struct DownloadFile: Sendable {
        fileprivate let file: DiskCacheTemporaryFile

        /// Appends `data`; false when writing failed (the cache reported it), after which the file is discarded.
        func append(_ data: Data) -> Bool {
            do {
                try file.append(data)
                return true
            } catch {
                file.discard()
                return false
            }
        }

        /// Deletes the file without installing it.
        func discard() { file.discard() }
    }

    /// A cached partial that a download continues: the resume it allows, its bytes and a file seeded with them.
    struct CachedPartial: Sendable {
        var resume: ImageDownloadResume
        var data: Data
        var file: DownloadFile?
    }

    /// A new file for downloading `identifier`'s image, or nil when the disk cache cannot take one (reported).
    func beginDownloadFile(identifier: String) -> DownloadFile? {
        DownloadFile(file: disk.reserveTemporaryFile(forIdentifier: identifier))
    }

    /// The partial of `request`'s URL that a download can resume: the memory cache's first, then the disk cache's;
    /// nil when there is none with a validator that can be sent as is (or it cannot be read). Placeholders never
    /// resume. The returned file is a copy: the cached partial stays for another download.
    func cachedPartial(for request: ImageDownloadRequest) -> CachedPartial? {
        guard !request.isPlaceholder else { return nil }
        if let partial = memory.entry(withIdentifier: request.identifier)?.partial, partial.url == request.url,
            !partial.data.isEmpty,
            let resume = ImageDownloadResume(
                byteCount: partial.data.count, expectedLength: partial.expectedLength,
                lastModified: partial.lastModified, entityTag: partial.entityTag)
        {
            var file = beginDownloadFile(identifier: request.identifier)
            if let opened = file, !opened.append(partial.data) {
                file = nil  // resume anyway; the completed image just will not reach the disk
            }
            return CachedPartial(resume: resume, data: partial.data, file: file)
        }
        guard
            let copy = disk.copyPartialToTemporaryFile(
                withIdentifier: request.identifier, accepting: { $0.url == request.url && $0.hasValidator }),
            let data = try? Data(contentsOf: copy.file.fileURL), data.count == Int(copy.file.byteCount), !data.isEmpty
        else { return nil }
        let metadata = copy.partial.metadata
        guard
            let resume = ImageDownloadResume(
                byteCount: data.count, expectedLength: Int(metadata.expectedLength),
                lastModified: metadata.lastModified, entityTag: metadata.entityTag)
        else {
            copy.file.discard()
            return nil
        }
        return CachedPartial(resume: resume, data: data, file: DownloadFile(file: copy.file))
    }

    /// The server will not continue the partial `resume` describes (a `416`, or a whole body for a `Range`
    /// request): the memory and disk caches drop their partials of `request`'s URL with its validators, so that
    /// neither is resumed again nor outlives the whole image downloaded instead.
    func discardRefusedPartial(for request: ImageDownloadRequest, resume: ImageDownloadResume) {
        let url = request.url
        func isRefused(_ partialURL: URL, _ entityTag: String?, _ lastModified: String?) -> Bool {
            partialURL == url && entityTag == resume.entityTag && lastModified == resume.lastModified
        }
        memory.removePartialImage(withIdentifier: request.identifier) {
            isRefused($0.url, $0.entityTag, $0.lastModified)
        }
        disk.clearPartialImage(withIdentifier: request.identifier) { isRefused($0.url, $0.entityTag, $0.lastModified) }
    }

    /// The complete image of `request`'s URL that the memory cache holds fresh, if any: a fetch that missed the
    /// caches just before a download of its URL committed its bytes takes them instead of downloading again.
    func committedImage(for request: ImageDownloadRequest) -> DownloadedImage? {
        guard let complete = memory.entry(withIdentifier: request.identifier, touch: false)?.complete,
            complete.url == request.url, !complete.isPlaceholder || request.isPlaceholder,
            !isStale(complete.freshness)
        else { return nil }
        return DownloadedImage(
            data: complete.data, imageType: complete.imageType, dimensions: complete.dimensions,
            isAnimated: complete.isAnimated, freshness: complete.freshness)
    }

    /// A complete download's bytes enter the memory cache (fast, under a lock): from now on a fetch of the URL
    /// finds them there.
    func commitDownloadedImage(_ image: DownloadedImage, for request: ImageDownloadRequest) {
        let complete = MemoryCacheCompleteImage(
            data: image.data, imageType: image.imageType, url: request.url, dimensions: image.dimensions,
            isAnimated: image.isAnimated, isPlaceholder: request.isPlaceholder, timeToLive: request.timeToLive,
            updateExpiryOnAccess: request.updatesExpiryOnAccess, freshness: image.freshness,
            lastModified: image.lastModified, entityTag: image.entityTag)
        memory.updateEntry(MemoryCacheEntry(identifier: request.identifier, complete: complete))
    }

    /// A download that broke off leaves its bytes in the memory cache as a partial for the next download to resume.
    func keepPartialDownload(_ image: DownloadedImage, for request: ImageDownloadRequest) {
        let partial = MemoryCachePartialImage(
            data: image.data, url: request.url, dimensions: image.dimensions, expectedLength: image.expectedLength ?? 0,
            lastModified: image.lastModified, entityTag: image.entityTag, imageType: image.imageType,
            isAnimated: image.isAnimated, isPlaceholder: request.isPlaceholder, timeToLive: request.timeToLive,
            updateExpiryOnAccess: request.updatesExpiryOnAccess)
        memory.updateEntry(MemoryCacheEntry(identifier: request.identifier, partial: partial))
    }

    /// Where downloads' files are installed (``commitDownloadFile(_:image:for:complete:)``) and stored processed
    /// images written: the disk cache's serial commit queue, or with durable writes, whose `fsync`s may overlap, a
    /// concurrent utility queue. One file at a time per directory avoids the kernel's contention on the directory:
    /// with four downloads in flight, 1,000 small fetches spent 5% of their CPU spinning on it
    /// (`rwsem_spin_on_owner` under `rename` and `openat`).
    var diskWriteQueue: DispatchQueue {
        configuration.diskCacheWritesAreDurable ? .global(qos: .utility) : disk.commits
    }

    /// Installs a download's file as `request`'s complete image (`complete`) or as its partial, with the disk
    /// cache's tie-breaks; `image` describes the bytes, and the file holds a prefix of its `data` (the rest is
    /// written first). Returns whether it was kept. Writes
    /// and renames a file: call it off latency-sensitive queues.
    @discardableResult
    func commitDownloadFile(
        _ file: DownloadFile, image: DownloadedImage, for request: ImageDownloadRequest, complete: Bool
    ) -> Bool {
        let metadata = DiskCacheMetadata(
            identifier: request.identifier, url: request.url, lastAccess: configuration.clock(),
            timeToLive: request.timeToLive, updatesExpiryOnAccess: request.updatesExpiryOnAccess,
            width: Int(image.dimensions.width), height: Int(image.dimensions.height),
            isAnimated: image.isAnimated, isPlaceholder: request.isPlaceholder,
            lastModified: image.lastModified, entityTag: image.entityTag,
            expectedLength: complete ? 0 : Int64(image.expectedLength ?? 0), imageType: image.imageType?.rawValue,
            freshness: complete ? image.freshness : nil)
        // The body hands its file over without writing its last bytes (at most one write batch): they are
        // written here, off the downloader's queue.
        let written = Int(file.file.byteCount)
        guard written <= image.data.count else {
            file.discard()
            return false
        }
        if written < image.data.count, !file.append(image.data.suffix(from: image.data.startIndex + written)) {
            return false
        }
        let kept = file.file.finalize(metadata: metadata, complete: complete)
        // A new complete image: the processed images made from the one it replaces no longer show it (those of this
        // download's fetches are made after it and stored after this).
        if kept, complete { disk.clearProcessedImages(of: request.identifier) }
        return kept
    }
}
