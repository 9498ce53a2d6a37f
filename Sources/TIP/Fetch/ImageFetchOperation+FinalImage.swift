import Foundation

// Making the final image once for concurrent fetches of the same image (``FinalImageCoalescer``), handing it over,
// and storing a processed image on disk when the request asks. Runs on `workQueue`.
extension ImageFetchOperation {
    /// The key under which concurrent fetches share their final image; nil when this fetch makes its own: a transformer
    /// without an identifier, a decoder configuration (not comparable), or no memory source (a reload shares nothing).
    var finalImageKey: FinalImageCoalescer.Key? {
        guard processing.isCacheable, request.decoderConfigMap == nil, request.loadingSources.allows(.memoryCache)
        else { return nil }
        return FinalImageCoalescer.Key(request: request, processing: processing, configuration: configuration)
    }

    /// Makes the final image with `work`, delivered as coming from `source`, unless a concurrent fetch with the same
    /// key is making it (this fetch then waits for that image) or the rendered cache holds it (delivered at once).
    /// `work` returns the image, or what to do instead; when the fetch this one waited for made none, this one runs
    /// its own `work`.
    func produceFinalImage(as source: ImageLoadSource, _ work: @escaping @Sendable () -> ImageFetchFinalImageAttempt) {
        guard let key = finalImageKey else { return run(work, as: source, sharingAs: nil) }
        let role = imagePipeline.finalImages.enter(key, lookup: { self.renderedFinalImage() }) { shared in
            self.workQueue.async {
                if let shared {
                    self.deliverFinal(shared, source: source, isShared: true)
                } else {
                    self.produceFinalImage(as: source, work)
                }
            }
        }
        switch role {
        case .producer: run(work, as: source, sharingAs: key)
        case .joined: break
        case .cached(let image): deliverFinal(image, source: source, isShared: true, isRenderedHit: true)
        }
    }

    private func run(
        _ work: @Sendable () -> ImageFetchFinalImageAttempt, as source: ImageLoadSource,
        sharingAs key: FinalImageCoalescer.Key?
    ) {
        switch work() {
        case .produced(let image):
            // The waiters are let go once the image is in the rendered cache, and before this fetch's delegate hears
            // of it: a fetch started after that callback (after a cache clearing, say) finds no job to join.
            deliverFinal(image, source: source, isShared: false) {
                if let key { self.imagePipeline.finalImages.finish(key, with: image) }
            }
        case .notProduced(let next):
            if let key { imagePipeline.finalImages.finish(key, with: nil) }
            next()
        }
    }

    /// The rendered cache's clean image for this fetch's exact target and processing, if any.
    func renderedFinalImage() -> ImageFetchFinalImage? {
        guard !storesMissingProcessedImage,
            TargetSizing.canScale(targetDimensions: request.targetDimensions, contentMode: request.targetContentMode),
            let hit = caches.renderedImage(
                identifier: identifier, targetDimensions: request.targetDimensions,
                targetContentMode: request.targetContentMode,
                transformerIdentifier: processing.lookupVariant),
            !hit.isDirty
        else { return nil }
        if !request.options.contains(.doNotResetExpiryOnAccess) {
            caches.renderedImageWasServed(identifier: identifier)
        }
        return ImageFetchFinalImage(
            image: hit.image, transformed: processing.transformer != nil,
            originalDimensions: hit.originalDimensions, isPlaceholder: false)
    }

    /// The final image made from a same-URL cache hit: processed, or a failure when a processor failed.
    func finalAttempt(_ found: ImagePipelineCaches.CachedImage) -> ImageFetchFinalImageAttempt {
        finalAttempt(
            found.image, originalDimensions: found.originalDimensions, isPlaceholder: found.isPlaceholder,
            bytes: found.bytes.map(timedForRequest), freshUntil: found.freshness?.freshUntil)
    }

    /// The final image made from `decoded`: processed, or a failure when a processor failed (nothing is cached then).
    /// `freshUntil`, `isStorable` and `revalidated` describe the HTTP caching of what it was decoded from.
    func finalAttempt(
        _ decoded: ImageContainer, originalDimensions: CGSize, isPlaceholder: Bool,
        bytes: MemoryCacheCompleteImage?, freshUntil: Date? = nil, isStorable: Bool = true,
        revalidated: Bool = false
    ) -> ImageFetchFinalImageAttempt {
        do {
            let (image, transformed) = try prepared(decoded, stage: .final)
            return .produced(
                ImageFetchFinalImage(
                    image: image, transformed: transformed, originalDimensions: originalDimensions,
                    isPlaceholder: isPlaceholder, bytes: bytes, freshUntil: freshUntil,
                    isStorable: isStorable, wasRevalidated: revalidated))
        } catch {
            let url = request.imageURL.absoluteString
            return .notProduced {
                self.fail(
                    ImageFetchError(
                        .couldNotProcessImage, "The image \(url) could not be processed: \(error.description)",
                        underlyingError: error))
            }
        }
    }

    /// Delivers `image` as the final image from `source`. `isShared`: another fetch made it (or the rendered cache
    /// had it, `isRenderedHit`), so it is already cached and only delivered. `whenStored` runs once the caches have
    /// it, before the delegate is called (not when the fetch fails instead).
    func deliverFinal(
        _ image: ImageFetchFinalImage, source: ImageLoadSource, isShared: Bool, isRenderedHit: Bool = false,
        whenStored: () -> Void = {}
    ) {
        if isShared, isCancelRequested { return fail(ImageFetchError.cancelled(cancelReason)) }
        let result = makeResult(
            image.image, source: source, url: request.imageURL, isPlaceholder: image.isPlaceholder,
            originalDimensions: image.originalDimensions, transformed: image.transformed,
            revalidated: !isShared && image.wasRevalidated)
        let bytes = request.options.contains(.skipStoringToMemoryCache) ? nil : image.bytes
        succeed(
            result, propagateBytes: isShared ? nil : bytes, storesRendered: !isShared, freshUntil: image.freshUntil,
            isStorable: image.isStorable, whenStored: whenStored)
        // A fetch that joined another's image stores it too when it asks and the maker did not (the maker's
        // request may lack the option: concurrent fetches share an image whatever their options). A rendered hit
        // knows nothing of the HTTP caching it was made under: it is taken only once the file is stored (see
        // `storesMissingProcessedImage`).
        if !isRenderedHit { storeProcessedImageIfAsked(image, unlessStored: isShared) }
    }

    /// A disk hit's bytes as the memory cache keeps them: with this request's time to live.
    func timedForRequest(_ bytes: MemoryCacheCompleteImage) -> MemoryCacheCompleteImage {
        var bytes = bytes
        bytes.timeToLive = request.resolvedTimeToLive
        return bytes
    }

    // MARK: Stored processed images

    /// Whether the request asks for its processed image on disk and the disk does not have it: the rendered cache
    /// is then not asked (a hit there would deliver the image without storing it, and says nothing of the HTTP
    /// caching it was made under), and the image is made again from the original's bytes and stored.
    var storesMissingProcessedImage: Bool {
        guard let processedIdentifier = storedProcessedIdentifier,
            !request.options.contains(.skipStoringToDiskCache),
            !imagePipeline.unstorableProcessedImages.contains(processedIdentifier)
        else { return false }
        return !caches.disk.hasCompleteFile(identifier: processedIdentifier)
    }

    /// The disk identifier of this fetch's stored processed image, when the request asks for one
    /// (``ImageFetchOptions/storeProcessedImageToDiskCache`` with processors or target dimensions).
    var storedProcessedIdentifier: String? {
        guard request.options.contains(.storeProcessedImageToDiskCache) else { return nil }
        return processing.processedIdentifier(of: identifier)
    }

    /// Stores a processed (or scaled) final image encoded on disk, in the background, when the request asks and may
    /// write there, and the response allowed storing (not `no-store`); it is used while the original is fresh.
    /// `unlessStored`: not when the disk has it already (another fetch made and stored it).
    func storeProcessedImageIfAsked(_ image: ImageFetchFinalImage, unlessStored: Bool = false) {
        guard let processedIdentifier = storedProcessedIdentifier, !image.isStoredProcessedImage,
            !request.options.contains(.skipStoringToDiskCache)
        else { return }
        guard !image.isPlaceholder, !image.image.isPartial, image.isStorable,
            processing.storesFinalImage(image.image, originalDimensions: image.originalDimensions)
        else { return imagePipeline.unstorableProcessedImages.insert(processedIdentifier) }
        // The store holds the fetch's hold on the pipeline, never the pipeline itself, until the file is written: an
        // `async` caller resumes after that, and can make a pipeline of the same identifier at once.
        let hold = pipelineHold
        let url = request.imageURL
        let timeToLive = request.resolvedTimeToLive
        let updatesExpiry = !request.options.contains(.doNotResetExpiryOnAccess)
        DispatchQueue.global(qos: .utility).async {
            let caches = hold.pipeline.caches
            if unlessStored, caches.disk.hasCompleteFile(identifier: processedIdentifier) { return }
            caches.storeProcessedImage(
                image.image, identifier: processedIdentifier, url: url, timeToLive: timeToLive,
                updatesExpiryOnAccess: updatesExpiry, originalDimensions: image.originalDimensions,
                freshUntil: image.freshUntil, writeQueue: caches.diskWriteQueue, holding: hold)
        }
    }
}
