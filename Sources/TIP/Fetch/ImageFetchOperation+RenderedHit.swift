import Foundation

// The synchronous rendered-cache path (TIP's step before the operation starts), run inside `fetchImage(with:)` on the
// callback queue.
extension ImageFetchOperation {
    /// Looks the request up in the rendered cache. A clean exact match completes the operation now (returns
    /// true); a dirty one is delivered as a dirty preview and the fetch goes on (returns false).
    func tryRenderedCacheHit() -> Bool {
        let target = request.targetDimensions
        // A transformer without an identifier turns rendered-cache reads off; processed images are looked up under
        // their own identity, so an unprocessed image never answers a processed request.
        // (A request that stores its processed image still takes this hit when the file is missing: checking the
        // disk here would block the callback queue. The fetches that go on to the operation queue store it.)
        guard processing.isCacheable else { return false }
        guard request.loadingSources.allows(.memoryCache), !isCancelRequested,
            TargetSizing.canScale(targetDimensions: target, contentMode: request.targetContentMode)
        else { return false }
        guard
            let hit = caches.renderedImage(
                identifier: identifier, targetDimensions: target,
                targetContentMode: request.targetContentMode,
                transformerIdentifier: processing.lookupVariant, countsLookup: false)
        else {
            caches.countLookup("rendered", hit: false)
            return false
        }
        let result = ImageFetchResult(
            imageContainer: hit.image, imageSource: .memoryCache, imageURL: request.imageURL,
            imageOriginalDimensions: hit.originalDimensions, imageIsTreatedAsPlaceholder: false,
            imageWasTransformed: processing.transformer != nil, imageIdentifier: identifier)
        if hit.isDirty {
            caches.countLookup("rendered", hit: true)
            guarded.withLock { $0.previewResult = result }
            delegate?.imageFetchOperation(self, didLoadDirtyPreviewImage: result)
            return false
        }
        let now = clock.now
        // Answered before it ever executed: the operation goes straight to ending, then finished (one KVO change).
        let answered = guarded.withLock { state -> (any ImageFetchDelegate)?? in
            guard !state.phase.hasStarted else { return nil }
            state.phase = .ending(.succeeded, wasExecuting: false)
            state.startedAt = now
            state.enqueuedAt = now
            state.finalResult = result
            state.progress = 1
            state.metrics = .synchronousMemoryHit
            return .some(state.delegate)
        }
        guard case .some(let delegate) = answered else {
            caches.countLookup("rendered", hit: true)
            return false
        }
        // Sync hits refresh the memory and disk caches' entries, later and in batches (as TIP, asynchronously).
        if !request.options.contains(.doNotResetExpiryOnAccess) {
            caches.renderedImageWasServed(identifier: identifier)
        }
        // Both counters with one look at the metrics factory (each look costs as much as a cache lookup).
        configuration.metrics.incrementEach(
            [
                ImagePipelineCaches.lookupCounter("rendered", "hit"),
                fetchCounter(source: .memoryCache, result: "success"),
            ])
        delegate?.imageFetchOperationDidStart(self)
        delegate?.imageFetchOperation(self, didLoadFinalImage: result)
        markFinished()
        return true
    }
}
