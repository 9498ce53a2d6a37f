import Foundation

#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// The one door through which fetches and downloads read and write a pipeline's three caches
/// (README, Architecture): the rendered images, the encoded bytes in memory and the files on disk. Every operation is
/// named after what the fetch or download needs (a cached image at a target, the partial a download resumes, a
/// download's file, the result of a fetch), so the rules of which cache gets what live here, not in the callers.
///
/// ```swift
/// let caches = pipeline.caches
/// if case .hit(let found) = caches.memoryImage(identifier: id, url: url, acceptsOtherURL: false, touch: true,
///                                             decoding: decoding) { ... }
/// ```
///
/// A value over its pipeline: cheap to make, thread-safe (each cache guards itself).
struct ImagePipelineCaches: Sendable {
    let pipeline: ImagePipeline

    var configuration: GlobalConfiguration { pipeline.configuration }
    var rendered: RenderedCache { pipeline.renderedCache }
    var memory: MemoryCache { pipeline.memoryCache }
    var disk: DiskCache { pipeline.diskCache }

    /// How a cache hit is decoded: the fetch's target sizing and decoder configuration.
    struct Decoding: Sendable {
        var targetDimensions: CGSize
        var targetContentMode: ContentMode
        var decoderConfigMap: [ImageType: any Sendable]?
        var maximumPixelCount = ImageDecodingOptions.defaultMaximumPixelCount
        /// Where the decode waits its turn (``DecodeGate/shared`` but in tests).
        var gate = DecodeGate.shared

        /// Decodes complete `data` straight to the target sizing (timed in `metrics`, once `gate` lets it run); data
        /// the decoder reads only in part throws ``ImageDecodingError/corruptData(_:)``. An image within the pixel
        /// limit whose output at the target would not be (a large target filled by upscaling) is decoded at its own
        /// size: the fetch's final scaling step then reports that it could not scale it (TIP's `ImageFailedToScale`)
        /// and delivers it as is.
        func decode(_ data: Data, type: ImageType?, quality: InterpolationQuality, metrics: PipelineMetrics) throws
            -> ImageContainer
        {
            var options = ImageDecodingOptions(
                targetDimensions: targetDimensions, targetContentMode: targetContentMode,
                maximumPixelCount: maximumPixelCount, interpolationQuality: quality)
            let image = try gate.run {
                try metrics.measure("tip_decode_duration_seconds", [("type", type?.rawValue ?? "unknown")]) {
                    let result = Result { () throws(ImageDecodingError) in
                        try CodecCatalogue.shared.decodeImage(
                            data, options: options, decoderConfigMap: decoderConfigMap, imageType: type)
                    }
                    guard case .failure(let error) = result, targetDimensions != .zero,
                        Self.isOnlyTheOutputTooLarge(error)
                    else {
                        return try result.get().container
                    }
                    options.targetDimensions = .zero
                    options.targetContentMode = .center
                    return try CodecCatalogue.shared.decodeImage(
                        data, options: options, decoderConfigMap: decoderConfigMap,
                        imageType: type
                    ).container
                }
            }
            // Complete bytes whose decoder could not read every pixel (cut short and closed with an end marker, a
            // bad checksum) are damaged: never a complete image, whatever the transport said.
            if image.isPartial {
                throw ImageDecodingError.corruptData(
                    "the decoder could not read every pixel: the image is cut short or damaged")
            }
            return image
        }

        /// Whether `error` refuses the output at the target sizing while the image itself is within the limit.
        private static func isOnlyTheOutputTooLarge(_ error: ImageDecodingError) -> Bool {
            guard case let .dimensionsTooLarge(width, height, limit) = error else { return false }
            return ImageDecodingOptions.isWithinPixelLimit(width: width, height: height, limit: limit)
        }
    }

    /// An image found in a cache, decoded at the fetch's target.
    struct CachedImage: Sendable {
        /// The decoded image.
        var image: ImageContainer
        /// The URL of the variant held (another URL makes it a preview).
        var url: URL
        /// Whether the variant is a placeholder.
        var isPlaceholder: Bool
        /// The variant's own dimensions (before decoding to the target).
        var originalDimensions: CGSize
        /// The variant's encoded bytes, for the memory cache (disk hits).
        var bytes: MemoryCacheCompleteImage?
        /// How long the variant may be served without revalidation (nil: while it is cached).
        var freshness: CacheFreshness?
    }

    /// What a fetch's lookup in the memory or disk cache found.
    enum Lookup: Sendable {
        /// An image to deliver (the fetch's own URL, fresh, or another URL's variant).
        case hit(CachedImage)
        /// The image of the fetch's URL, but stale: the download revalidates it (it has a validator).
        case stale
        /// Nothing usable (a stale image without a validator was dropped).
        case miss
    }

    // MARK: Rendered images

    /// The rendered image for this exact sizing, if any (a synchronous lookup under a lock).
    func renderedImage(
        identifier: String, targetDimensions: CGSize, targetContentMode: ContentMode,
        transformerIdentifier: String?, countsLookup: Bool = true
    ) -> RenderedCacheHit? {
        let hit = rendered.image(
            withIdentifier: identifier, targetDimensions: targetDimensions, targetContentMode: targetContentMode,
            transformerIdentifier: transformerIdentifier)
        if countsLookup { countLookup("rendered", hit != nil ? "hit" : "miss") }
        return hit
    }

    /// The `tip_cache_lookups_total` counter of one lookup (`result`: `hit`, `miss` or `stale`).
    static func lookupCounter(_ cache: String, _ result: String) -> (label: String, dimensions: [(String, String)]) {
        ("tip_cache_lookups_total", [("cache", cache), ("result", result)])
    }

    func countLookup(_ cache: String, _ result: String) {
        let (label, dimensions) = Self.lookupCounter(cache, result)
        configuration.metrics.increment(label, dimensions)
    }

    func countLookup(_ cache: String, hit: Bool) {
        countLookup(cache, hit ? "hit" : "miss")
    }

    /// A rendered hit was served: refresh the memory and disk caches' entries soon, off the caller's thread (TIP's
    /// rendered hit touches both), so that an image on screen does not age out of them.
    func renderedImageWasServed(identifier: String) {
        memory.touchImageLater(withIdentifier: identifier)
        disk.touchImageLater(withIdentifier: identifier)
    }

    // MARK: Reading for a fetch

    /// Whether an image with `freshness` must be revalidated now: never with HTTP caching off
    /// (``GlobalConfiguration/followsHTTPCachingHeaders``), whatever freshness it was stored with.
    func isStale(_ freshness: CacheFreshness?) -> Bool {
        freshness != nil && configuration.followsHTTPCachingHeaders && freshness.isStale(at: configuration.clock())
    }

    /// The memory cache's complete variant of `identifier`, decoded. A miss when there is none, when the variant has
    /// another URL and `acceptsOtherURL` is false, or when it does not decode (the entry is then dropped and
    /// reported); `stale` when the variant of `url` must be revalidated (one without a validator is dropped: a miss).
    func memoryImage(identifier: String, url: URL, acceptsOtherURL: Bool, touch: Bool, decoding: Decoding) -> Lookup {
        guard let entry = memory.entry(withIdentifier: identifier, touch: touch), let complete = entry.complete,
            complete.url == url || acceptsOtherURL
        else {
            countLookup("memory", "miss")
            return .miss
        }
        if complete.url == url, isStale(complete.freshness) {
            countLookup("memory", "stale")
            guard complete.hasValidator else {
                memory.removeCompleteImage(withIdentifier: identifier) { $0.url == url && !$0.hasValidator }
                return .miss
            }
            return .stale
        }
        countLookup("memory", "hit")
        do {
            let image = try decoding.decode(
                complete.data, type: complete.imageType, quality: configuration.defaultInterpolationQuality,
                metrics: configuration.metrics)
            let original = complete.dimensions == .zero ? image.dimensions : complete.dimensions
            return .hit(
                CachedImage(
                    image: image, url: complete.url, isPlaceholder: complete.isPlaceholder,
                    originalDimensions: original, bytes: nil, freshness: complete.freshness))
        } catch {
            memory.clearImage(withIdentifier: identifier)
            configuration.log(
                .warning, "memory cache entry \(identifier) could not be decoded and was dropped: \(error)")
            return .miss
        }
    }

    /// The disk cache's complete file of `identifier`, decoded, when `accepts` takes its metadata. A file that does
    /// not decode is removed and reported, and counts as a miss; `stale` when the file of the fetch's `url` must be
    /// revalidated (one without a validator is deleted: a miss). `touch` false: the file's expiry and recency are
    /// left as they are (``ImageFetchOptions/doNotResetExpiryOnAccess``).
    func diskImage(
        identifier: String, url: URL, decoding: Decoding, touch: Bool = true,
        accepts: (_ url: URL, _ area: Int64) -> Bool
    ) -> Lookup {
        guard let part = disk.entry(withIdentifier: identifier, includePartial: false, refreshes: touch)?.complete,
            accepts(part.metadata.url, part.metadata.area)
        else {
            countLookup("disk", "miss")
            return .miss
        }
        if part.metadata.url == url, isStale(part.metadata.freshness) {
            countLookup("disk", "stale")
            guard part.metadata.hasValidator else {
                disk.clearCompleteImage(withIdentifier: identifier, url: url)
                return .miss
            }
            return .stale
        }
        let found = decodeDiskPart(part, of: disk, decoding: decoding)
        countLookup("disk", found != nil ? "hit" : "miss")
        return found.map(Lookup.hit) ?? .miss
    }

    /// The first other live pipeline whose disk holds `identifier` at `url`, fresh: its file is copied into this
    /// pipeline's disk (forced unless a placeholder; not when `copies` is false) and returned decoded.
    func otherPipelinesImage(identifier: String, url: URL, decoding: Decoding, copies: Bool = true) -> CachedImage? {
        let others = configuration.registry.all.filter { $0 !== pipeline }
        guard !others.isEmpty, !identifier.isEmpty else { return nil }
        let safeName = SafeIdentifier.fileName(for: identifier)
        var next = 0
        while next < others.count {
            // Every disk cache of the configuration lives on one domain queue: the lookups take one trip to it, not
            // one per pipeline (a cold fetch beside nine other pipelines made nine, which contended). Decoding a
            // candidate happens off the queue; when it fails the search goes on after it.
            let candidate = disk.domain.sync { () -> (index: Int, part: DiskCacheEntry.Part)? in
                for index in next..<others.count {
                    guard
                        let part = others[index].diskCache.entry(
                            withIdentifier: identifier, safeName: safeName, includePartial: false)?.complete,
                        part.metadata.url == url, !isStale(part.metadata.freshness)
                    else { continue }
                    return (index, part)
                }
                return nil
            }
            guard let (index, part) = candidate else { return nil }
            next = index + 1
            let other = others[index]
            guard let found = decodeDiskPart(part, of: other.diskCache, decoding: decoding), let bytes = found.bytes
            else { continue }
            if copies {
                disk.updateImageEntry(
                    metadata: part.metadata, source: .data(bytes.data), forced: !part.metadata.isPlaceholder)
            }
            return found
        }
        return nil
    }

    /// `part`'s file decoded; nil when it cannot be read, or does not decode (reported, and removed when its bytes
    /// are damaged; a file refused for this request or process alone, by a pixel limit, a missing codec or an
    /// unsupported feature, stays for the fetches that can use it).
    func decodeDiskPart(_ part: DiskCacheEntry.Part, of cache: DiskCache, decoding: Decoding) -> CachedImage? {
        let metadata = part.metadata
        guard let data = cache.completeData(of: part) else { return nil }
        let type = metadata.imageType.map(ImageType.init(rawValue:))
        do {
            let image = try decoding.decode(
                data, type: type, quality: configuration.defaultInterpolationQuality,
                metrics: configuration.metrics)
            let original =
                metadata.originalDimensions
                ?? (metadata.width > 0 && metadata.height > 0
                    ? CGSize(width: metadata.width, height: metadata.height) : image.dimensions)
            let bytes = MemoryCacheCompleteImage(
                data: data, imageType: type, url: metadata.url,
                dimensions: CGSize(width: metadata.width, height: metadata.height),
                isAnimated: metadata.isAnimated, isPlaceholder: metadata.isPlaceholder, timeToLive: metadata.timeToLive,
                updateExpiryOnAccess: metadata.updatesExpiryOnAccess, freshness: metadata.freshness,
                lastModified: metadata.lastModified, entityTag: metadata.entityTag)
            return CachedImage(
                image: image, url: metadata.url, isPlaceholder: metadata.isPlaceholder,
                originalDimensions: original, bytes: bytes, freshness: metadata.freshness)
        } catch {
            if Self.isDamage(error) {
                cache.clearImage(
                    withIdentifier: metadata.identifier.isEmpty ? part.fileName : metadata.identifier)
            }
            report(
                .diskCacheEntryCouldNotBeDecoded, identifier: metadata.identifier, url: metadata.url,
                path: part.filePath, error: error)
            return nil
        }
    }

    /// Whether `error` says a cached file's bytes are damaged (rather than refused by this request or process).
    static func isDamage(_ error: any Error) -> Bool {
        switch error as? ImageDecodingError {
        case .emptyData, .unrecognizedFormat, .truncatedData, .corruptData: return true
        case .dimensionsTooLarge, .unsupported, .missingCodec, nil: return false
        }
    }

    /// Whether the memory or disk cache holds a partial of `url` that a download would resume.
    func hasResumablePartial(identifier: String, url: URL) -> Bool {
        if let partial = memory.entry(withIdentifier: identifier, touch: false)?.partial, partial.url == url {
            return true
        }
        disk.waitForManifestIfPartialExists(identifier: identifier)
        if let partial = disk.entry(withIdentifier: identifier, includeComplete: false)?.partial,
            partial.metadata.url == url
        {
            return true
        }
        return false
    }

    // MARK: Writing a fetch's result

    /// Stores a fetch's final image: its encoded `bytes` (disk hits) in the memory cache, the image in the rendered
    /// cache when `storesRendered` (under `variant`: the transformer's identifier when transformed, a processed
    /// image's identity, matched by it alone when `matchesTargetExactly`; stale from `freshUntil`), and tells the
    /// observers when the image came from the network (the download already stored its bytes).
    func storeFetchedImage(
        _ result: ImageFetchResult, identifier: String, bytes: MemoryCacheCompleteImage?,
        storesRendered: Bool, variant: String?, matchesTargetExactly: Bool = false, freshUntil: Date? = nil
    ) {
        if let bytes {
            memory.updateEntry(MemoryCacheEntry(identifier: identifier, complete: bytes))
        }
        if storesRendered {
            rendered.store(
                result.imageContainer, identifier: identifier, transformerIdentifier: variant,
                originalDimensions: result.imageOriginalDimensions, isPlaceholder: false, url: result.imageURL,
                freshUntil: freshUntil, matchesTargetExactly: matchesTargetExactly && variant != nil)
        }
        if result.imageSource == .network || result.imageSource == .networkResumed {
            for observer in pipeline.allObservers {
                observer.imagePipeline(
                    pipeline, didStoreImageWithIdentifier: identifier, url: result.imageURL,
                    dimensions: result.imageOriginalDimensions, isPlaceholder: result.imageIsTreatedAsPlaceholder,
                    wasManuallyStored: false)
            }
        }
    }

    /// A downloaded image that the download committed failed to decode: its bytes leave the memory and disk caches
    /// (only the variant of `url`), and the problem is reported.
    func discardUndecodableImage(identifier: String, url: URL, error: any Error) {
        if memory.entry(withIdentifier: identifier, touch: false)?.complete?.url == url {
            memory.clearImage(withIdentifier: identifier)
        }
        disk.clearCompleteImage(withIdentifier: identifier, url: url)
        report(.imageDownloadedCouldNotBeDecoded, identifier: identifier, url: url, path: nil, error: error)
    }

    private func report(_ problem: Problem, identifier: String, url: URL, path: String?, error: any Error) {
        var info: [String: any Sendable] = [
            ProblemInfoKey.imageIdentifier: identifier, ProblemInfoKey.imageURL: url.absoluteString,
            ProblemInfoKey.error: String(describing: error),
        ]
        if let path { info[ProblemInfoKey.path] = path }
        configuration.post(problem, userInfo: info)
        configuration.log(.warning, "\(problem): \(identifier) (\(url.absoluteString)): \(error)")
    }
}
