import Foundation

extension ImagePipeline {
    /// A new fetch for `request`, reporting to `delegate` (held weakly). Start it with `fetchImage(with:)`.
    public func operation(
        with request: any ImageFetchRequest, context: (any Sendable)? = nil,
        delegate: (any ImageFetchDelegate)?
    ) -> ImageFetchOperation {
        ImageFetchOperation(pipeline: self, request: request, context: context, delegate: delegate)
    }

    /// Runs `operation` (made by this pipeline). Called on the callback queue, an exact clean match in the
    /// rendered-image cache completes it before this returns (`didStart` and `didLoadFinalImage` run
    /// synchronously); a dirty match is shown as a synchronous dirty preview. Otherwise the operation goes to
    /// the configuration's shared fetch queue.
    public func fetchImage(with operation: ImageFetchOperation) {
        precondition(operation.imagePipeline === self, "fetchImage(with:) needs an operation made by this pipeline")
        postIfTargetDimensionsAreInvalid(operation)
        // The async API's delegates may hear of a hit on any thread; the others only on the callback queue.
        if operation.deliversOnOwnQueue || configuration.isOnCallbackQueue, operation.tryRenderedCacheHit() { return }
        operation.queuePriority = operation.priority.queuePriority
        operation.markEnqueued()
        configuration.fetchOperationQueue.addOperation(operation)
    }

    /// A new fetch for `request` that calls `completion` once, on the callback queue, with the final image or
    /// the error (TIP's completion-block convenience). Start it with `fetchImage(with:)`.
    public func operation(
        with request: any ImageFetchRequest, context: (any Sendable)? = nil,
        completion: @escaping @Sendable (ImageFetchResult?, (any Error)?) -> Void
    ) -> ImageFetchOperation {
        ImageFetchOperation(
            pipeline: self, request: request, context: context,
            delegate: ImageFetchCompletionDelegate(completion), ownsDelegate: true)
    }

    /// TIP posts `TIPProblemImageFetchHasInvalidTargetDimensions` for target dimensions that are neither zero nor
    /// positive on both sides; so does this port for infinite ones (the fetch goes on, at the image's own size).
    private func postIfTargetDimensionsAreInvalid(_ operation: ImageFetchOperation) {
        let target = operation.request.targetDimensions
        guard target != .zero, !TargetSizing.isUsableTarget(target) else { return }
        configuration.post(
            .imageFetchHasInvalidTargetDimensions,
            userInfo: [
                ProblemInfoKey.targetDimensions: target,
                ProblemInfoKey.targetContentMode: operation.request.targetContentMode,
                ProblemInfoKey.imageIdentifier: operation.identifier,
                ProblemInfoKey.imageURL: operation.request.imageURL.absoluteString,
                ProblemInfoKey.fetchRequest: operation.request,
            ],
            message:
                "The target dimensions \(target.width)x\(target.height) of the fetch of "
                + "\(operation.request.imageURL.absoluteString) are not usable (both sides positive and finite, or "
                + "zero for none): the image is fetched at its own size.")
    }
}

extension ImagePipeline {
    /// Stores `request`'s image in this pipeline's caches (TIP's `storeImageWithRequest:completion:`): the
    /// memory cache keeps encoded data only, the disk cache the file, the data or the image encoded (JPEG at
    /// TIP's quality, PNG with transparency, GIF when animated), and the rendered cache forgets the
    /// identifier. Real images replace what was there; placeholders only what they may. `completion` runs on
    /// the callback queue. Other operations can depend on the returned one.
    @discardableResult
    public func storeImage(
        with request: any ImageStoreRequest,
        completion: (@Sendable (Bool, (any Error)?) -> Void)? = nil
    ) -> any DependencyOperation {
        let operation = ImageStoreOperation(pipeline: self, request: request, completion: completion)
        configuration.fetchOperationQueue.addOperation(operation)
        return operation
    }
}

extension ImagePipeline {
    /// Fetches `request` and streams its events: previews, progressive scans (the fetch opts in), the first
    /// frame of an animation, progress, then the final image (beyond TIP). The stream throws the fetch's
    /// error; ending the iteration early (or cancelling the task) cancels the fetch. A cancelled task's loop ends
    /// without the final event and without an error, as an `AsyncThrowingStream` does: check `Task.isCancelled`
    /// after it. Events are produced on the fetch's own queue: the stream never waits for
    /// ``GlobalConfiguration/callbackQueue``.
    ///
    /// ```swift
    /// for try await event in pipeline.fetchEvents(for: request) {
    ///     if case .progressiveImage(let scan, _) = event { show(scan.imageContainer) }
    /// }
    /// ```
    public func fetchEvents(for request: any ImageFetchRequest) -> AsyncThrowingStream<ImageFetchEvent, any Error> {
        AsyncThrowingStream { continuation in
            let delegate = ImageFetchEventStreamDelegate(continuation)
            let operation = ImageFetchOperation(
                pipeline: self, request: request, context: nil, delegate: delegate, ownsDelegate: true,
                deliversOnOwnQueue: true)
            continuation.onTermination = delegate.terminationHandler(cancelling: operation)
            fetchImage(with: operation)
        }
    }
}
