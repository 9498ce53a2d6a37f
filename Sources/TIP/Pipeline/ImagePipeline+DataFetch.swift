import Foundation

extension ImagePipeline {
    /// The bytes of `request`'s image and their type, without decoding them (beyond TIP; Nuke's `data(for:)`): from
    /// the memory cache, the disk caches or the network, as the request's loading sources allow.
    ///
    /// ```swift
    /// let bytes = try await pipeline.fetchImageData(for: GenericImageFetchRequest(imageURL: url))
    /// try bytes.data.write(to: file)
    /// ```
    ///
    /// Handed over from the fetch's own queue (never the callback queue). Cancelling the task cancels the fetch and
    /// throws `CancellationError`; other failures throw ``ImageFetchError`` (`couldNotLoadImage` when the allowed
    /// sources had nothing, e.g. ``ImageFetchLoadingSources/cachesOnly`` on a miss).
    public func fetchImageData(for request: any ImageFetchRequest, priority: ImageFetchPriority = .normal) async throws
        -> ImageDataFetchResult
    {
        try Task.checkCancellation()
        let handle = Locked<(fetch: ImageDataFetch?, cancelled: Bool)>((nil, false))
        return try await withTaskCancellationHandler {
            try await withCheckedThrowingContinuation {
                (continuation: CheckedContinuation<ImageDataFetchResult, any Error>) in
                let fetch = ImageDataFetch(pipeline: self, request: request, priority: priority) { outcome in
                    if case .failure(let error) = outcome, (error as? ImageFetchError)?.code == .cancelled,
                        handle.withLock({ $0.cancelled })
                    {
                        return continuation.resume(throwing: CancellationError())
                    }
                    continuation.resume(with: outcome)
                }
                let cancelled = handle.withLock { state -> Bool in
                    state.fetch = fetch
                    return state.cancelled
                }
                if cancelled { fetch.cancel() }
                fetch.start()
            }
        } onCancel: {
            let fetch = handle.withLock { state -> ImageDataFetch? in
                state.cancelled = true
                return state.fetch
            }
            fetch?.cancel()
        }
    }

    /// Fetches the bytes of `request`'s image without decoding them and calls `completion` once, on the callback
    /// queue, with the bytes or the error. Returns the fetch (to cancel it or change its priority).
    @discardableResult
    public func fetchImageData(
        with request: any ImageFetchRequest, priority: ImageFetchPriority = .normal,
        completion: @escaping @Sendable (Result<ImageDataFetchResult, any Error>) -> Void
    ) -> ImageDataFetch {
        let configuration = self.configuration
        let fetch = ImageDataFetch(pipeline: self, request: request, priority: priority) { outcome in
            configuration.dispatchToCallbackQueue { completion(outcome) }
        }
        fetch.start()
        return fetch
    }
}
