import Foundation

// The source order (API map §22.3; the synchronous rendered-cache path is in +RenderedHit): memory, disk,
// other live pipelines' disks, additional caches, network. Everything here runs on `workQueue`.
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
        return guarded.withLock { $0.cancelReason != nil }
    }
    var cancelReason: String { guarded.withLock { $0.cancelReason } ?? "the fetch was cancelled" }

    /// Moves the state forward (never back).
    func advance(to state: ImageFetchOperationState) {
        guarded.withLock { guarded in
            if guarded.state.isActive || guarded.state == .idle, state.rawValue > guarded.state.rawValue {
                guarded.state = state
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

    // MARK: Memory

    func loadFromMemory() {
        if isCancelRequested { return fail(ImageFetchError.cancelled(cancelReason)) }
        advance(to: .loadingFromMemory)
        attempt(.memoryCache)
        guard request.loadingSources.allows(.memoryCache) else { return loadFromDisk() }
        let touch = !request.options.contains(.doNotResetExpiryOnAccess)
        guard let entry = imagePipeline.memoryCache.entry(withIdentifier: identifier, touch: touch),
              let complete = entry.complete else { return loadFromDisk() }
        let sameURL = complete.url == request.imageURL
        guard sameURL || previewResult == nil else { return loadFromDisk() }
        do {
            let image = try imagePipeline.memoryCache.decodeCompleteImage(
                of: entry, targetDimensions: request.targetDimensions, targetContentMode: request.targetContentMode,
                decoderConfigMap: request.decoderConfigMap)
            let (ready, transformed) = prepared(image, progress: sameURL ? 1 : -1)
            // The stored variant's own size (the decoded image is already at the target).
            let original = complete.dimensions == .zero ? image.dimensions : complete.dimensions
            let result = makeResult(ready, source: .memoryCache, url: complete.url, isPlaceholder: complete.isPlaceholder,
                                    originalDimensions: original, transformed: transformed)
            if sameURL { return succeed(result, propagateBytes: nil) }
            offerPreview(result) { self.loadFromDisk() }
        } catch {
            loadFromDisk()
        }
    }

    // MARK: Disk

    func loadFromDisk() {
        if isCancelRequested { return fail(ImageFetchError.cancelled(cancelReason)) }
        advance(to: .loadingFromDisk)
        attempt(.diskCache)
        guard request.loadingSources.allows(.diskCache) else { return loadFromAdditionalCaches() }
        guard let complete = imagePipeline.diskCache.entry(withIdentifier: identifier, includePartial: false)?.complete
        else { return loadFromOtherPipelines() }
        let sameURL = complete.metadata.url == request.imageURL
        let previewArea = previewResult.map { $0.imageOriginalDimensions.width * $0.imageOriginalDimensions.height } ?? -1
        let metadata = complete.metadata
        guard sameURL || (previewResult == nil || CGFloat(metadata.area) > previewArea),
              let data = imagePipeline.diskCache.completeData(of: complete),
              let image = try? decode(data, type: metadata.imageType.map(ImageType.init(rawValue:)))
        else { return loadFromOtherPipelines() }
        let (ready, transformed) = prepared(image, progress: sameURL ? 1 : -1)
        let result = makeResult(ready, source: .diskCache, url: metadata.url, isPlaceholder: metadata.isPlaceholder,
                                originalDimensions: originalDimensions(of: metadata, decoded: image), transformed: transformed)
        if sameURL { return succeed(result, propagateBytes: memoryBytes(data, metadata)) }
        // A disk preview the delegate continued from skips the other pipelines (TIP).
        offerPreview(result) { self.loadFromAdditionalCaches() }
    }

    /// The first other live pipeline whose disk holds this identifier at this URL: its file is copied in
    /// (forced unless a placeholder) and delivered as a disk hit.
    func loadFromOtherPipelines() {
        if isCancelRequested { return fail(ImageFetchError.cancelled(cancelReason)) }
        let url = request.imageURL
        for other in configuration.registry.all where other !== imagePipeline {
            guard let found = other.diskCache.entry(withIdentifier: identifier, includePartial: false)?.complete,
                  found.metadata.url == url,
                  let data = other.diskCache.completeData(of: found),
                  let image = try? decode(data, type: found.metadata.imageType.map(ImageType.init(rawValue:)))
            else { continue }
            let metadata = found.metadata
            imagePipeline.diskCache.updateImageEntry(metadata: metadata, source: .data(data), forced: !metadata.isPlaceholder)
            let (ready, transformed) = prepared(image, progress: 1)
            let result = makeResult(ready, source: .diskCache, url: url, isPlaceholder: metadata.isPlaceholder,
                                    originalDimensions: originalDimensions(of: metadata, decoded: image), transformed: transformed)
            return succeed(result, propagateBytes: memoryBytes(data, metadata))
        }
        loadFromAdditionalCaches()
    }

    /// A stored variant's own size (the decoded image is already at the target), or the decoded size when
    /// the metadata has none.
    func originalDimensions(of metadata: DiskCacheMetadata, decoded: ImageContainer) -> CGSize {
        metadata.width > 0 && metadata.height > 0 ? CGSize(width: metadata.width, height: metadata.height) : decoded.dimensions
    }

    /// A disk hit's bytes as the memory cache keeps them.
    func memoryBytes(_ data: Data, _ metadata: DiskCacheMetadata) -> MemoryCacheCompleteImage {
        MemoryCacheCompleteImage(
            data: data, imageType: metadata.imageType.map(ImageType.init(rawValue:)), url: metadata.url,
            dimensions: CGSize(width: metadata.width, height: metadata.height), isAnimated: metadata.isAnimated,
            isPlaceholder: metadata.isPlaceholder, timeToLive: request.resolvedTimeToLive,
            updateExpiryOnAccess: metadata.updatesExpiryOnAccess)
    }

    // MARK: Additional caches

    /// Asks the pipeline's additional caches in order, by URL. Skipped when a partial of this URL can be
    /// resumed (TIP jumps straight to the network then).
    func loadFromAdditionalCaches(startingAt index: Int = 0) {
        if isCancelRequested { return fail(ImageFetchError.cancelled(cancelReason)) }
        if index == 0 {
            advance(to: .loadingFromAdditionalCache)
            attempt(.additionalCache)
        }
        let caches = imagePipeline.additionalCaches
        guard request.loadingSources.allows(.additionalCache), index < caches.count, index > 0 || !hasResumablePartial else {
            return loadFromNetwork()
        }
        caches[index].retrieveImage(for: request.imageURL) { image in
            self.workQueue.async {
                guard let image else { return self.loadFromAdditionalCaches(startingAt: index + 1) }
                let (ready, transformed) = self.prepared(image, progress: 1)
                let isPlaceholder = self.request.options.contains(.treatAsPlaceholder)
                let result = self.makeResult(ready, source: .additionalCache, url: self.request.imageURL,
                                             isPlaceholder: isPlaceholder, originalDimensions: image.dimensions,
                                             transformed: transformed)
                self.succeed(result, propagateBytes: nil)
            }
        }
    }

    /// Whether the memory or disk cache holds a partial of this URL that the download would resume.
    var hasResumablePartial: Bool {
        guard request.loadingSources.allows(.networkResumed) else { return false }
        if let partial = imagePipeline.memoryCache.entry(withIdentifier: identifier, touch: false)?.partial,
           partial.url == request.imageURL { return true }
        if let partial = imagePipeline.diskCache.entry(withIdentifier: identifier, includeComplete: false)?.partial,
           partial.metadata.url == request.imageURL { return true }
        return false
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
        guarded.withLock { $0.downloading = true }
        configuration.downloader.add(self)
        watchDelegateWhileDownloading()
        // A cancel that raced with the join: leave now (the downloader answers with a cancelled completion).
        if isCancelRequested { configuration.downloader.remove(self, reason: cancelReason) }
    }

    /// Download events check that the delegate is still there; a stalled download sends none, so the
    /// check also runs every half second while downloading.
    func watchDelegateWhileDownloading() {
        workQueue.asyncAfter(deadline: .now() + 0.5) { [weak self] in
            guard let self, self.guarded.withLock({ $0.downloading && !$0.state.isFinished }) else { return }
            self.cancelIfDelegateIsGone()
            self.watchDelegateWhileDownloading()
        }
    }

    // MARK: Previews

    /// Delivers `result` as the preview; `next` runs unless the delegate says stop.
    func offerPreview(_ result: ImageFetchResult, next: @escaping @Sendable () -> Void) {
        guarded.withLock { $0.previewResult = result }
        let now = clock.now
        guarded.withLock { $0.recorder.record(.hitPreview, at: now) }
        guard let delegate, delegate.handlesPreviews else { return next() }
        let callbackQueue = configuration.callbackQueue
        callbackQueue.async {
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

    // MARK: Decoding and results

    /// Decodes complete `data` straight to the request's target sizing.
    func decode(_ data: Data, type: ImageType?) throws -> ImageContainer {
        let options = ImageDecodingOptions(targetDimensions: request.targetDimensions, targetContentMode: request.targetContentMode,
                                           interpolationQuality: configuration.defaultInterpolationQuality)
        return try CodecCatalogue.shared.decodeImage(data, options: options, decoderConfigMap: request.decoderConfigMap, imageType: type).container
    }

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

    /// The final scaling step: with a scaling content mode the delivered image has the target's dimensions.
    func scaledIfNeeded(_ image: ImageContainer) -> ImageContainer {
        let target = request.targetDimensions
        guard TargetSizing.canScale(targetDimensions: target, contentMode: request.targetContentMode) else { return image }
        let expected = TargetSizing.pixelDimensions(width: Int(image.dimensions.width), height: Int(image.dimensions.height),
                                                    targetDimensions: target, contentMode: request.targetContentMode)
        guard CGSize(width: expected.width, height: expected.height) != image.dimensions else { return image }
        return image.scaledToTargetDimensions(target, contentMode: request.targetContentMode,
                                              quality: configuration.defaultInterpolationQuality)
    }

    func makeResult(_ image: ImageContainer, source: ImageLoadSource, url: URL, isPlaceholder: Bool,
                    originalDimensions: CGSize? = nil, transformed: Bool = false) -> ImageFetchResult {
        ImageFetchResult(imageContainer: image, imageSource: source, imageURL: url,
                         imageOriginalDimensions: originalDimensions ?? image.dimensions,
                         imageIsTreatedAsPlaceholder: isPlaceholder, imageWasTransformed: transformed, imageIdentifier: identifier)
    }
}
