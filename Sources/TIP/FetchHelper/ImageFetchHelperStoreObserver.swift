import Foundation

/// Hears that a pipeline stored an image (a download finished or a manual store) and hands it to its helper on
/// the callback queue (TIP's `DidStoreCachedImage` notification).
final class ImageFetchHelperStoreObserver: ImagePipelineObserver {
    let helper = WeakImageFetchHelper()

    func imagePipeline(
        _ pipeline: ImagePipeline, didStoreImageWithIdentifier identifier: String, url: URL, dimensions: CGSize,
        isPlaceholder: Bool, wasManuallyStored: Bool
    ) {
        guard let helper = helper.helper else { return }
        let event = ImageFetchHelper.StoreEvent(
            pipelineIdentifier: pipeline.identifier, configuration: pipeline.configuration,
            identifier: identifier, url: url, dimensions: dimensions,
            isPlaceholder: isPlaceholder, manuallyStored: wasManuallyStored)
        pipeline.configuration.callbackQueue.async { [weak helper] in helper?.imageWasStored(event) }
    }
}

extension ImageFetchHelper {
    /// One store into a pipeline.
    struct StoreEvent: Sendable {
        var pipelineIdentifier: String
        var configuration: GlobalConfiguration
        var identifier: String
        var url: URL
        var dimensions: CGSize
        var isPlaceholder: Bool
        var manuallyStored: Bool
    }

    /// Watches `pipeline`'s stores (only one pipeline at a time).
    func startObserving(_ pipeline: ImagePipeline) {
        let previous = guarded.withLock { state -> GlobalConfiguration? in
            defer {
                state.observedPipelineIdentifier = pipeline.identifier
                state.observedConfiguration = pipeline.configuration
            }
            return state.observedConfiguration
        }
        if previous !== pipeline.configuration {
            previous?.removeImagePipelineObserver(storeObserver)
            pipeline.configuration.addImagePipelineObserver(storeObserver)
        }
    }

    /// Stops reacting to stores.
    func stopObservingStores() {
        guarded.withLock { $0.observedPipelineIdentifier = nil }
    }

    /// TIP's reload after a different fetch completed: while idle, for the observed pipeline and the request's
    /// identifier, when the delegate (or TIP's default) says so: cancel, un-final, dirty the rendered entries, then
    /// fetch again (both asynchronously, so other stores to the rendered cache finish first).
    func imageWasStored(_ event: StoreEvent) {
        let (idle, request, observed) = guarded.withLock {
            ($0.operation == nil, $0.fetchRequest, $0.observedPipelineIdentifier)
        }
        guard idle, let request, request.resolvedImageIdentifier == event.identifier,
            observed == event.pipelineIdentifier
        else { return }
        // The pipeline's store event does not say whether the image is a placeholder: reported as not one.
        let reload =
            delegate.map {
                $0.fetchHelper(
                    self, shouldReloadAfterDifferentFetchCompletedWithIdentifier: event.identifier, url: event.url,
                    dimensions: event.dimensions, treatedAsPlaceholder: event.isPlaceholder,
                    manuallyStored: event.manuallyStored)
            } ?? shouldReloadByDefault(afterStoreOf: event.url, treatedAsPlaceholder: event.isPlaceholder)
        guard reload else { return }
        let visible = isTargetVisible
        cancelFetch()
        stopObservingStores()
        guarded.withLock { state in
            if !visible { state.flags.didCancelOnDisappear = true }
            state.flags.isFinal = false
        }
        event.configuration.callbackQueue.async { [weak self] in
            event.configuration.dirtyAllRenderedMemoryCacheImages(withIdentifier: event.identifier)
            self?.refetch()
        }
    }
}
