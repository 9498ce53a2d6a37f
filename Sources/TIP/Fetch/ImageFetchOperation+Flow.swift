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
            if case .running(let current, let reason, let downloading) = guarded.phase, state.rawValue > current.rawValue {
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
        ImagePipelineCaches.Decoding(targetDimensions: request.targetDimensions, targetContentMode: request.targetContentMode,
                                     decoderConfigMap: request.decoderConfigMap,
                                     maximumPixelCount: request.resolvedMaximumPixelCount(configuration))
    }

    // MARK: Memory

    func loadFromMemory() {
        if isCancelRequested { return fail(ImageFetchError.cancelled(cancelReason)) }
        advance(to: .loadingFromMemory)
        attempt(.memoryCache)
        guard request.loadingSources.allows(.memoryCache) else { return loadFromDisk() }
        let touch = !request.options.contains(.doNotResetExpiryOnAccess)
        let lookup = caches.memoryImage(identifier: identifier, url: request.imageURL, acceptsOtherURL: previewResult == nil,
                                        touch: touch, decoding: decoding)
        guard case .hit(let found) = lookup else {
            if case .stale = lookup { guarded.withLock { $0.foundStaleImage = true } }
            return loadFromDisk()
        }
        let sameURL = found.url == request.imageURL
        let result = makeResult(found, source: .memoryCache, progress: sameURL ? 1 : -1)
        if sameURL { return succeed(result, propagateBytes: nil, freshUntil: found.freshness?.freshUntil) }
        offerPreview(result) { self.loadFromDisk() }
    }

    // MARK: Disk

    func loadFromDisk() {
        if isCancelRequested { return fail(ImageFetchError.cancelled(cancelReason)) }
        advance(to: .loadingFromDisk)
        attempt(.diskCache)
        guard request.loadingSources.allows(.diskCache) else { return loadFromAdditionalCaches() }
        let url = request.imageURL
        let previewArea = previewResult.map { Int64($0.imageOriginalDimensions.width * $0.imageOriginalDimensions.height) }
        let lookup = caches.diskImage(identifier: identifier, url: url, decoding: decoding, accepts: { storedURL, area in
            storedURL == url || previewArea.map { area > $0 } ?? true
        })
        guard case .hit(let found) = lookup else {
            if case .stale = lookup { guarded.withLock { $0.foundStaleImage = true } }
            return loadFromOtherPipelines()
        }
        let sameURL = found.url == url
        let result = makeResult(found, source: .diskCache, progress: sameURL ? 1 : -1)
        if sameURL {
            return succeed(result, propagateBytes: found.bytes.map(timedForRequest), freshUntil: found.freshness?.freshUntil)
        }
        // A disk preview the delegate continued from skips the other pipelines (TIP).
        offerPreview(result) { self.loadFromAdditionalCaches() }
    }

    /// The first other live pipeline whose disk holds this identifier at this URL: its file is copied in and
    /// delivered as a disk hit.
    func loadFromOtherPipelines() {
        if isCancelRequested { return fail(ImageFetchError.cancelled(cancelReason)) }
        guard let found = caches.otherPipelinesImage(identifier: identifier, url: request.imageURL, decoding: decoding) else {
            return loadFromAdditionalCaches()
        }
        succeed(makeResult(found, source: .diskCache, progress: 1), propagateBytes: found.bytes.map(timedForRequest),
                freshUntil: found.freshness?.freshUntil)
    }

    /// A disk hit's bytes as the memory cache keeps them: with this request's time to live.
    private func timedForRequest(_ bytes: MemoryCacheCompleteImage) -> MemoryCacheCompleteImage {
        var bytes = bytes
        bytes.timeToLive = request.resolvedTimeToLive
        return bytes
    }

    // MARK: Additional caches

    /// Asks the pipeline's additional caches in order, by URL. Skipped when a partial of this URL can be
    /// resumed (TIP jumps straight to the network then), and when the memory or disk cache holds the image stale
    /// (a revalidation costs less than anything an additional cache could give).
    func loadFromAdditionalCaches(startingAt index: Int = 0) {
        if isCancelRequested { return fail(ImageFetchError.cancelled(cancelReason)) }
        if index == 0 {
            advance(to: .loadingFromAdditionalCache)
            attempt(.additionalCache)
        }
        let caches = imagePipeline.additionalCaches
        let resumable = index == 0 && (guarded.withLock { $0.foundStaleImage } || request.loadingSources.allows(.networkResumed)
            && self.caches.hasResumablePartial(identifier: identifier, url: request.imageURL))
        guard request.loadingSources.allows(.additionalCache), index < caches.count, !resumable else {
            return loadFromNetwork()
        }
        caches[index].retrieveImage(for: request.imageURL) { image in
            self.workQueue.async {
                guard let image else { return self.loadFromAdditionalCaches(startingAt: index + 1) }
                let found = ImagePipelineCaches.CachedImage(
                    image: image, url: self.request.imageURL, isPlaceholder: self.request.options.contains(.treatAsPlaceholder),
                    originalDimensions: image.dimensions, bytes: nil)
                self.succeed(self.makeResult(found, source: .additionalCache, progress: 1), propagateBytes: nil)
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
            return fail(ImageFetchError(.couldNotLoadImage,
                "No allowed source had \(request.imageURL.absoluteString); allow the network to download it."))
        }
        attempt(.network)
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

    /// Delivers `result` as the preview; `next` runs unless the delegate says stop.
    func offerPreview(_ result: ImageFetchResult, next: @escaping @Sendable () -> Void) {
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
                        self.fail(ImageFetchError(.cancelledAfterLoadingPreview,
                            "The fetch stopped after its preview, as the delegate asked."))
                    }
                }
            }
        }
    }

    // MARK: Results

    /// The request's transformer applied (still images only), then the final scaling step. `progress`: 1
    /// final, negative preview, else a scan's download progress.
    func prepared(_ image: ImageContainer, progress: Float) -> (image: ImageContainer, transformed: Bool) {
        var image = image
        var transformed = false
        if let transformer = request.transformer, !image.isAnimated,
           let changed = transformer.transform(image, progress: progress, hintTargetDimensions: request.targetDimensions,
                                               hintContentMode: request.targetContentMode, operation: self) {
            image = changed
            transformed = true
        }
        return (scaledIfNeeded(image), transformed)
    }

    /// The final scaling step: with a scaling content mode the delivered image has the target's dimensions. A scaled
    /// image over the fetch's maximum pixel count is not made: the image is delivered unscaled, and TIP's
    /// `TIPProblemImageFailedToScale` posted.
    func scaledIfNeeded(_ image: ImageContainer) -> ImageContainer {
        let target = request.targetDimensions
        guard TargetSizing.canScale(targetDimensions: target, contentMode: request.targetContentMode) else { return image }
        let expected = TargetSizing.pixelDimensions(width: Int(image.dimensions.width), height: Int(image.dimensions.height),
                                                    targetDimensions: target, contentMode: request.targetContentMode)
        guard CGSize(width: expected.width, height: expected.height) != image.dimensions else { return image }
        let limit = request.resolvedMaximumPixelCount(configuration)
        let (pixels, overflow) = expected.width.multipliedReportingOverflow(by: expected.height)
        guard !overflow, pixels <= limit else {
            configuration.post(.imageFailedToScale, userInfo: [
                ProblemInfoKey.dimensions: image.dimensions, ProblemInfoKey.targetDimensions: target,
                ProblemInfoKey.targetContentMode: request.targetContentMode,
                ProblemInfoKey.scaledDimensions: CGSize(width: expected.width, height: expected.height),
                ProblemInfoKey.animated: image.isAnimated, ProblemInfoKey.imageIdentifier: identifier,
            ], message: "the image \(identifier) was not scaled to \(expected.width)x\(expected.height): that is more "
                + "than the maximum pixel count (\(limit)); it is delivered at \(Int(image.dimensions.width))x"
                + "\(Int(image.dimensions.height)). Ask for a smaller target, or raise GlobalConfiguration.maximumPixelCount.")
            return image
        }
        return image.scaledToTargetDimensions(target, contentMode: request.targetContentMode,
                                              quality: configuration.defaultInterpolationQuality)
    }

    /// The result for a cache hit (`progress` as in ``prepared(_:progress:)``).
    func makeResult(_ found: ImagePipelineCaches.CachedImage, source: ImageLoadSource, progress: Float) -> ImageFetchResult {
        let (ready, transformed) = prepared(found.image, progress: progress)
        return makeResult(ready, source: source, url: found.url, isPlaceholder: found.isPlaceholder,
                          originalDimensions: found.originalDimensions, transformed: transformed)
    }

    func makeResult(_ image: ImageContainer, source: ImageLoadSource, url: URL, isPlaceholder: Bool,
                    originalDimensions: CGSize, transformed: Bool = false, revalidated: Bool = false) -> ImageFetchResult {
        ImageFetchResult(imageContainer: image, imageSource: source, imageURL: url, imageOriginalDimensions: originalDimensions,
                         imageIsTreatedAsPlaceholder: isPlaceholder, imageWasTransformed: transformed, imageIdentifier: identifier,
                         imageWasRevalidated: revalidated)
    }
}
