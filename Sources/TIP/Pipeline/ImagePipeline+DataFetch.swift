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
    /// sources had nothing, e.g. ``ImageFetchLoadingSources/cachesOnly`` on a miss). It returns once the fetch has let
    /// go of the pipeline, as ``fetchImage(for:)`` does.
    public func fetchImageData(for request: any ImageFetchRequest, priority: ImageFetchPriority = .normal) async throws
        -> ImageDataFetchResult
    {
        try Task.checkCancellation()
        let handle = AsyncDataFetch()
        return try await withTaskCancellationHandler {
            try await withCheckedThrowingContinuation {
                (continuation: CheckedContinuation<ImageDataFetchResult, any Error>) in
                let resumption = Locked<ReleaseOrderedResumption<ImageDataFetchResult>?>(nil)
                let fetch = ImageDataFetch(pipeline: self, request: request, priority: priority) { outcome in
                    let cancelled =
                        if case .failure(let error) = outcome, (error as? ImageFetchError)?.code == .cancelled {
                            handle.isCancelled
                        } else {
                            false
                        }
                    resumption.withLock { $0 }?.finish(cancelled ? .failure(CancellationError()) : outcome)
                }
                resumption.withLock { $0 = ReleaseOrderedResumption(continuation, watching: fetch.pipelineHold) }
                if handle.start(fetch) { fetch.cancel() }
                fetch.start()
            }
        } onCancel: {
            handle.cancel()
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

/// The data fetch of one `async` call, held weakly (the fetch's completion refers to this), and whether the task was
/// cancelled.
private final class AsyncDataFetch: Sendable {
    private struct State {
        weak var fetch: ImageDataFetch?
        var cancelled = false
    }

    private let state = Locked(State())

    /// Whether the task was cancelled.
    var isCancelled: Bool { state.withLock { $0.cancelled } }

    /// Records the fetch; true when the task was already cancelled (the caller cancels it).
    func start(_ fetch: ImageDataFetch) -> Bool {
        state.withLock { state in
            state.fetch = fetch
            return state.cancelled
        }
    }

    /// The task was cancelled: cancels the fetch (its completion then throws `CancellationError`).
    func cancel() {
        let fetch = state.withLock { state -> ImageDataFetch? in
            state.cancelled = true
            return state.fetch
        }
        fetch?.cancel()
    }
}
