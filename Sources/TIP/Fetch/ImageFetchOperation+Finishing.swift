import Foundation

// Delivering callbacks, the final image or the failure, and finishing the `Operation`.
extension ImageFetchOperation {
    /// Runs `body` with the delegate on the callback queue (nothing when the delegate is gone).
    func deliver(if capability: KeyPath<any ImageFetchDelegate, Bool>? = nil,
                 _ body: @escaping @Sendable (ImageFetchOperation, any ImageFetchDelegate) -> Void) {
        guard let delegate else { return }
        if let capability, !delegate[keyPath: capability] { return }
        configuration.callbackQueue.async { body(self, delegate) }
    }

    /// Delivers the final image, stores it in the caches, and finishes once the delegate has it.
    /// `propagateBytes`: the encoded bytes to offer the memory cache (disk and network hits).
    func succeed(_ result: ImageFetchResult, propagateBytes: MemoryCacheCompleteImage?) {
        let now = clock.now
        let (delegate, metrics) = guarded.withLock { state -> ((any ImageFetchDelegate)?, ImageFetchMetrics) in
            state.recorder.record(.hitFinal, at: now)
            state.finalResult = result
            state.progress = 1
            state.state = .succeeded
            state.downloading = false
            let metrics = state.recorder.finish(at: now, cancelled: false)
            state.metrics = metrics
            return (state.delegate, metrics)
        }
        _ = metrics
        if let propagateBytes {
            imagePipeline.memoryCache.updateEntry(MemoryCacheEntry(identifier: identifier, complete: propagateBytes))
        }
        let transformerIdentifier = result.imageWasTransformed ? request.transformer?.transformerIdentifier : nil
        let storable = !result.imageWasTransformed || transformerIdentifier != nil
        if storable, !request.options.contains(.skipStoringToRenderedCache), !result.imageIsTreatedAsPlaceholder {
            imagePipeline.renderedCache.store(result.imageContainer, identifier: identifier, transformerIdentifier: transformerIdentifier,
                                              sourceDimensions: result.imageOriginalDimensions, isPlaceholder: false,
                                              url: result.imageURL)
        }
        if result.imageSource == .network || result.imageSource == .networkResumed {
            // A download stored a new image (the downloader finalized the disk file).
            for observer in imagePipeline.allObservers {
                observer.imagePipeline(imagePipeline, didStoreImageWithIdentifier: identifier, url: result.imageURL,
                                       dimensions: result.imageOriginalDimensions, isPlaceholder: result.imageIsTreatedAsPlaceholder,
                                       wasManuallyStored: false)
            }
        }
        configuration.callbackQueue.async {
            delegate?.imageFetchOperation(self, didLoadFinalImage: result)
            self.markFinished()
        }
    }

    /// Fails the fetch with `error` (a cancellation when it is `cancelled`), and finishes once the delegate knows.
    func fail(_ error: any Error, notifyStart: Bool = true) {
        let now = clock.now
        let cancelled = (error as? ImageFetchError)?.code == .cancelled
        let delegate = guarded.withLock { state -> (any ImageFetchDelegate)? in
            guard !state.state.isFinished else { return nil }
            state.error = error
            state.state = cancelled ? .cancelled : .failed
            state.downloading = false
            state.metrics = state.recorder.finish(at: now, cancelled: cancelled)
            return state.delegate
        }
        configuration.callbackQueue.async {
            delegate?.imageFetchOperation(self, didFailToLoadFinalImage: error)
            self.markFinished()
        }
    }

    /// Tells the queue the operation is over (after its last callback ran).
    func markFinished() {
        let (alreadyFinished, wasExecuting) = guarded.withLock { ($0.finished, $0.executing) }
        guard !alreadyFinished else { return }
        // The synchronous rendered-cache hit never executed: only isFinished changes.
        if wasExecuting { willChangeValue(forKey: "isExecuting") }
        willChangeValue(forKey: "isFinished")
        guarded.withLock { state in
            state.executing = false
            state.finished = true
            state.finishedAt = clock.now
            state.ownedDelegate = nil
        }
        didChangeValue(forKey: "isFinished")
        if wasExecuting { didChangeValue(forKey: "isExecuting") }
    }
}
