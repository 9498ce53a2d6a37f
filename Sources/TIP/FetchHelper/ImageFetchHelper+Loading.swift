import Foundation

// Starting fetches and updating what the target shows. Runs on the callback queue.
extension ImageFetchHelper {
    /// What `update` shows and how it is flagged.
    struct Display {
        var container: ImageContainer?
        var sourceDimensions = CGSize.zero
        var url: URL?
        var source = ImageLoadSource.unknown
        var imageType: ImageType?
        var progress: Float = 0
        var error: (any Error)?
        var metrics: ImageFetchMetrics?
        var isFinal = false
        var isScaled = false
        var isProgressive = false
        var isPreview = false
        var isPlaceholder = false
    }

    /// Starts a fetch when idle, the target is visible (or appearing) with a non-empty size, and no final image
    /// is shown. `peeked`: a request already taken from the data source.
    func refetch(peeked: (any ImageFetchRequest)? = nil) {
        let (idle, transitioning, isFinal, target, dataSource) = guarded.withLock {
            ($0.operation == nil, $0.flags.transitioningAppearance, $0.flags.isFinal, $0.target, $0.dataSource)
        }
        guard idle, let target, target.isVisible || transitioning else { return }
        let size = target.pixelSize
        guard size.width > 0, size.height > 0, !target.hasFetchedImage || !isFinal else { return }
        if let container = dataSource?.imageContainer(for: self) {
            return setImageContainerAsIfLoaded(container)
        }
        if let bitmap = dataSource?.image(for: self) {
            return setImageAsIfLoaded(bitmap)
        }
        guard let request = peeked ?? extractRequest(from: dataSource) else { return }
        guarded.withLock { $0.fetchRequest = request }
        guard let pipeline = dataSource?.imagePipeline(for: self) else {
            guarded.withLock { $0.fetchRequest = nil }
            return
        }
        let operation = pipeline.operation(with: request, delegate: operationDelegate)
        if let priority = dataSource?.fetchOperationPriority(for: self), priority != .normal {
            operation.priority = priority
        }
        guarded.withLock { $0.operation = operation }
        startObserving(pipeline)
        // May complete synchronously (a rendered-cache hit): the callbacks see `operation` as current.
        pipeline.fetchImage(with: operation)
    }

    /// The data source's request, else one for its URL sized to the target.
    func extractRequest(from dataSource: (any ImageFetchHelperDataSource)?) -> (any ImageFetchRequest)? {
        guard let dataSource else { return nil }
        if let request = dataSource.imageFetchRequest(for: self) { return request }
        guard let url = dataSource.imageURL(for: self) else { return nil }
        let target = self.target
        return GenericImageFetchRequest(
            imageURL: url, identifier: nil, targetDimensions: target?.pixelSize ?? .zero,
            targetContentMode: target?.contentMode ?? .center)
    }

    /// Cancels the fetch in flight and forgets it.
    func cancelFetch() {
        let operation = guarded.withLock { state -> ImageFetchOperation? in
            defer { state.operation = nil }
            return state.operation
        }
        operation?.cancelAndDiscardDelegate()
    }

    /// Shows `display` in the target, records its state, and tells the delegate.
    func update(_ display: Display) {
        let (target, delegate, progressChanged, didLoadAny) = guarded.withLock { state in
            state.fetchSource = display.source
            state.fetchedImageURL = display.url
            state.flags.isFinal = display.isFinal
            state.flags.isScaled = display.isScaled
            state.flags.isProgressive = display.isProgressive
            state.flags.isPreview = display.isPreview
            state.flags.isPlaceholder = display.isPlaceholder
            state.loadedImageType = display.imageType
            state.fetchError = display.error
            state.fetchMetrics = display.metrics
            state.fetchResultDimensions =
                display.metrics != nil && display.container != nil ? display.sourceDimensions : .zero
            let old = state.fetchProgress
            let changed = display.progress > old || (display.progress == old && old > 0) || !state.flags.didLoadAny
            if changed { state.fetchProgress = display.progress }
            return (state.target, state.delegate, changed, state.flags.didLoadAny)
        }
        target?.fetchedImageContainer = display.container
        if progressChanged { delegate?.fetchHelper(self, didUpdateProgress: display.progress) }
        if let container = display.container {
            delegate?.fetchHelper(
                self, didUpdateDisplayedImageContainer: container, fromSourceDimensions: display.sourceDimensions,
                isFinal: display.isFinal || display.isScaled)
        }
        if display.isFinal || display.isScaled { delegate?.fetchHelper(self, didLoadFinalImageFrom: display.source) }
        if !didLoadAny { delegate?.fetchHelperDidReset(self) }
    }

    /// Cancels, stops observing stores, and shows `container` (or nothing) with every flag cleared.
    func reset(to container: ImageContainer?) {
        cancelFetch()
        stopObservingStores()
        update(Display(container: container, progress: container != nil ? 1 : 0))
    }

    func markAsIfLoadedNow() {
        guarded.withLock { state in
            state.flags.isFinal = true
            state.flags.isScaled = false
            state.flags.isPreview = false
            state.flags.isProgressive = false
            state.flags.isPlaceholder = false
        }
    }

    func markAsIfPlaceholderNow() {
        guarded.withLock { state in
            state.flags.isFinal = false
            state.flags.isScaled = false
            state.flags.isPreview = false
            state.flags.isProgressive = false
            state.flags.isPlaceholder = true
        }
    }
}
