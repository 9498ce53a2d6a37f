import Foundation

// TIP's source order (the synchronous rendered-cache path is in +RenderedHit): memory, disk,
// other live pipelines' disks, additional caches, network. Everything here runs on `workQueue`; every cache is
// reached through the pipeline's one door (`ImagePipelineCaches`).
extension ImageFetchOperation {
    /// The fetch's entry point on its queue.
    func run() {
        if isCancelRequested { return fail(ImageFetchError.cancelled(cancelReason), notifyStart: false) }
        advance(to: .starting)
        deliver { operation, delegate in delegate.imageFetchOperationDidStart(operation) }
        loadFromMemory()
    }

    var isCancelRequested: Bool {
        cancelIfDelegateIsGone()
        return guarded.withLock { $0.phase.cancelReason != nil }
    }
    var cancelReason: String { guarded.withLock { $0.phase.cancelReason } ?? "the fetch was cancelled" }

    /// Moves the state forward (never back) while the fetch runs.
    func advance(to state: ImageFetchOperationState) {
        guarded.withLock { guarded in
            if case .running(let current, let reason, let downloading) = guarded.phase,
                state.rawValue > current.rawValue
            {
                guarded.phase = .running(state, cancelReason: reason, isDownloading: downloading)
            }
        }
    }

    /// Marks the fetch as a member of a shared download, or not.
    func setDownloading(_ downloading: Bool) {
        guarded.withLock { guarded in
            if case .running(let state, let reason, _) = guarded.phase {
                guarded.phase = .running(state, cancelReason: reason, isDownloading: downloading)
            }
        }
    }

    /// Starts `source` in the metrics and tells a delegate that asked.
    func attempt(_ source: ImageLoadSource) {
        let now = clock.now
        guarded.withLock { _ = $0.recorder.begin(source, at: now) }
        deliver(if: \.wantsSourceAttemptCallbacks) { operation, delegate in
            delegate.imageFetchOperation(operation, willAttemptToLoadFrom: source)
        }
    }

    var caches: ImagePipelineCaches { imagePipeline.caches }

    /// How cache hits are decoded: straight to the request's target sizing.
    var decoding: ImagePipelineCaches.Decoding {
        ImagePipelineCaches.Decoding(
            targetDimensions: request.targetDimensions, targetContentMode: request.targetContentMode,
            decoderConfigMap: request.decoderConfigMap,
            maximumPixelCount: request.resolvedMaximumPixelCount(configuration))
    }

    // MARK: Memory

    /// The memory phase: the rendered cache's image for this exact target and processing, or the one being made by a
    /// concurrent fetch, else the memory cache's bytes decoded (another URL's variant is a preview).
    func loadFromMemory() {
        if isCancelRequested { return fail(ImageFetchError.cancelled(cancelReason)) }
        advance(to: .loadingFromMemory)
        attempt(.memoryCache)
        guard request.loadingSources.allows(.memoryCache) else { return loadFromDisk() }
        produceFinalImage(as: .memoryCache) { [self] in
            let touch = !request.options.contains(.doNotResetExpiryOnAccess)
            let lookup = caches.memoryImage(
                identifier: identifier, url: request.imageURL, acceptsOtherURL: previewResult == nil,
                touch: touch, decoding: decoding)
            guard case .hit(let found) = lookup else {
                if case .stale = lookup { guarded.withLock { $0.foundStaleImage = true } }
                return .notProduced { self.loadFromDisk() }
            }
            guard found.url == request.imageURL else {
                return .notProduced { self.offerPreview(found, source: .memoryCache) { self.loadFromDisk() } }
            }
            return finalAttempt(found)
        }
    }

    // MARK: Disk

    /// The disk phase: a stored processed image first (``ImageFetchOptions/storeProcessedImageToDiskCache``), then
    /// the original's file.
    func loadFromDisk() {
        if isCancelRequested { return fail(ImageFetchError.cancelled(cancelReason)) }
        advance(to: .loadingFromDisk)
        attempt(.diskCache)
        guard request.loadingSources.allows(.diskCache) else { return loadFromAdditionalCaches() }
        guard let processedIdentifier = storedProcessedIdentifier else { return loadOriginalFromDisk() }
        produceFinalImage(as: .diskCache) { [self] in
            guard
                let found = caches.processedImage(
                    identifier: processedIdentifier, url: request.imageURL,
                    processorIdentifiers: processing.processors.map(\.identifier),
                    maximumPixelCount: request.resolvedMaximumPixelCount(configuration))
            else {
                return .notProduced { self.loadOriginalFromDisk() }
            }
            return .produced(
                ImageFetchFinalImage(
                    image: found.image, transformed: processing.transformer != nil,
                    originalDimensions: found.originalDimensions, isPlaceholder: found.isPlaceholder,
                    bytes: nil, isStoredProcessedImage: true))
        }
    }

    /// The original's complete file: a final image when its URL is the request's, else a preview when larger than
    /// the current one.
    func loadOriginalFromDisk() {
        if isCancelRequested { return fail(ImageFetchError.cancelled(cancelReason)) }
        let url = request.imageURL
        let previewArea = previewResult.map {
            Int64($0.imageOriginalDimensions.width * $0.imageOriginalDimensions.height)
        }
        produceFinalImage(as: .diskCache) { [self] in
            let lookup = caches.diskImage(
                identifier: identifier, url: url, decoding: decoding,
                touch: !request.options.contains(.doNotResetExpiryOnAccess),
                accepts: { storedURL, area in
                    storedURL == url || previewArea.map { area > $0 } ?? true
                })
            guard case .hit(let found) = lookup else {
                if case .stale = lookup { guarded.withLock { $0.foundStaleImage = true } }
                return .notProduced { self.loadFromOtherPipelines() }
            }
            guard found.url == url else {
                // A disk preview the delegate continued from skips the other pipelines (TIP).
                return .notProduced { self.offerPreview(found, source: .diskCache) { self.loadFromAdditionalCaches() } }
            }
            return finalAttempt(found)
        }
    }

    /// The first other live pipeline whose disk holds this identifier at this URL: its file is copied in (unless
    /// the fetch skips disk writes) and delivered as a disk hit.
    func loadFromOtherPipelines() {
        if isCancelRequested { return fail(ImageFetchError.cancelled(cancelReason)) }
        produceFinalImage(as: .diskCache) { [self] in
            guard
                let found = caches.otherPipelinesImage(
                    identifier: identifier, url: request.imageURL, decoding: decoding,
                    copies: !request.options.contains(.skipStoringToDiskCache))
            else {
                return .notProduced { self.loadFromAdditionalCaches() }
            }
            return finalAttempt(found)
        }
    }

    // MARK: Additional caches

    /// Asks the pipeline's additional caches in order, by URL. Skipped when a partial of this URL can be
    /// resumed (TIP jumps straight to the network then, with no additional-cache attempt reported), and when the
    /// memory or disk cache holds the image stale (a revalidation costs less than anything an additional cache
    /// could give).
    func loadFromAdditionalCaches(startingAt index: Int = 0) {
        if isCancelRequested { return fail(ImageFetchError.cancelled(cancelReason)) }
        var skips = false
        if index == 0 {
            let resumes =
                request.loadingSources.allows(.networkResumed)
                && self.caches.hasResumablePartial(identifier: identifier, url: request.imageURL)
            let stale = guarded.withLock { state in
                state.jumpsToResume = resumes
                return state.foundStaleImage
            }
            if resumes { return loadFromNetwork() }
            advance(to: .loadingFromAdditionalCache)
            attempt(.additionalCache)
            skips = stale
        }
        let caches = imagePipeline.additionalCaches
        guard request.loadingSources.allows(.additionalCache), index < caches.count, !skips else {
            return loadFromNetwork()
        }
        caches[index].retrieveImage(for: request.imageURL) { image in
            self.workQueue.async {
                guard let image else { return self.loadFromAdditionalCaches(startingAt: index + 1) }
                let found = ImagePipelineCaches.CachedImage(
                    image: image, url: self.request.imageURL,
                    isPlaceholder: self.request.options.contains(.treatAsPlaceholder),
                    originalDimensions: image.dimensions, bytes: nil)
                switch self.finalAttempt(found) {
                case .produced(let final): self.deliverFinal(final, source: .additionalCache, isShared: false)
                case .notProduced(let next): next()
                }
            }
        }
    }

    // MARK: Network

    func loadFromNetwork() {
        if isCancelRequested { return fail(ImageFetchError.cancelled(cancelReason)) }
        advance(to: .loadingFromNetwork)
        let sources = request.loadingSources
        guard sources.allows(.network) || sources.allows(.networkResumed) else {
            attempt(.network)
            return fail(
                ImageFetchError(
                    .couldNotLoadImage,
                    "No allowed source had \(request.imageURL.absoluteString); allow the network to download it."))
        }
        attempt(guarded.withLock { $0.jumpsToResume } ? .networkResumed : .network)
        setDownloading(true)
        configuration.downloader.add(self)
        watchDelegateWhileDownloading()
        // A cancel that raced with the join: leave now (the downloader answers with a cancelled completion).
        if isCancelRequested { configuration.downloader.remove(self, reason: cancelReason) }
    }

    /// Download events check that the delegate is still there; a stalled download sends none, so the
    /// check also runs every half second while downloading.
    func watchDelegateWhileDownloading() {
        workQueue.asyncAfter(deadline: .now() + 0.5) { [weak self] in
            guard let self, self.guarded.withLock({ $0.phase.isDownloading }) else { return }
            self.cancelIfDelegateIsGone()
            self.watchDelegateWhileDownloading()
        }
    }

    // MARK: Previews

    /// Delivers the variant `found` (another URL) as the preview, processed like the final image; `next` runs unless
    /// the delegate says stop. A preview the processors fail on is not shown (the fetch goes on).
    func offerPreview(
        _ found: ImagePipelineCaches.CachedImage, source: ImageLoadSource, next: @escaping @Sendable () -> Void
    ) {
        let ready: (image: ImageContainer, transformed: Bool)
        do {
            ready = try prepared(found.image, stage: .preview)
        } catch {
            configuration.log(.warning, "the preview of \(identifier) is not shown: \(error)")
            return next()
        }
        let result = makeResult(
            ready.image, source: source, url: found.url, isPlaceholder: found.isPlaceholder,
            originalDimensions: found.originalDimensions, transformed: ready.transformed)
        let now = clock.now
        guarded.withLock {
            $0.previewResult = result
            $0.recorder.record(.hitPreview, at: now)
        }
        guard let delegate, delegate.handlesPreviews else { return next() }
        dispatchToDelegate {
            delegate.imageFetchOperation(self, didLoadPreviewImage: result) { behavior in
                self.workQueue.async {
                    switch behavior {
                    case .continueLoading: next()
                    case .stopLoading:
                        self.fail(
                            ImageFetchError(
                                .cancelledAfterLoadingPreview,
                                "The fetch stopped after its preview, as the delegate asked."))
                    }
                }
            }
        }
    }
}
