import Foundation

extension ImagePipeline {
    /// Fetches `request` and returns the final image (beyond TIP).
    ///
    /// ```swift
    /// let result = try await pipeline.fetchImage(for: GenericImageFetchRequest(imageURL: url))
    /// ```
    ///
    /// The result is handed over from the fetch's own queue: this never waits for
    /// ``GlobalConfiguration/callbackQueue``, so it works in a program that runs no main loop or blocks the
    /// main thread. Cancelling the task cancels the fetch and throws `CancellationError` at once, even while the
    /// fetch still waits for a slot of the fetch queue (the delegate and completion APIs report TIP's
    /// `ImageFetchError` `cancelled` instead, when the operation runs). Other failures throw ``ImageFetchError`` (a
    /// transport error is its `underlyingError`). It returns once the fetch's operation has let go of the pipeline:
    /// a caller that then drops the pipeline can make another with the same identifier at once.
    public func fetchImage(for request: any ImageFetchRequest) async throws -> ImageFetchResult {
        try Task.checkCancellation()
        let fetch = AsyncFetch()
        return try await withTaskCancellationHandler {
            try await withCheckedThrowingContinuation {
                (continuation: CheckedContinuation<ImageFetchResult, any Error>) in
                let delegate = ImageFetchCompletionDelegate { result, error in fetch.finish(result, error) }
                let operation = ImageFetchOperation(
                    pipeline: self, request: request, context: nil, delegate: delegate,
                    ownsDelegate: true, deliversOnOwnQueue: true)
                fetch.start(operation, continuation: continuation)
                fetchImage(with: operation)
            }
        } onCancel: {
            fetch.cancel()
        }
    }
}

/// One `async` fetch: its operation, the caller's continuation (resumed once: by the fetch's end, after the operation
/// released the pipeline, or by the task's cancellation, whichever comes first), and whether the task was cancelled
/// (so the cancellation surfaces as `CancellationError`). Thread-safe: one lock.
final class AsyncFetch: Sendable {
    private struct State {
        weak var operation: ImageFetchOperation?
        var resumption: ReleaseOrderedResumption<ImageFetchResult>?
        var taskCancelled = false
    }

    private let state = Locked(State())

    /// Records the operation and the continuation; when the task was cancelled before, throws
    /// `CancellationError` to the caller and cancels the operation at once.
    func start(_ operation: ImageFetchOperation, continuation: CheckedContinuation<ImageFetchResult, any Error>) {
        let resumption = ReleaseOrderedResumption(continuation, watching: operation.pipelineHold)
        let cancelled = state.withLock { state -> Bool in
            state.operation = operation
            state.resumption = resumption
            return state.taskCancelled
        }
        if cancelled {
            operation.cancel()
            resumption.resumeNow(.failure(CancellationError()))
        }
    }

    /// The task was cancelled: the caller gets `CancellationError` now, and the fetch is cancelled (a fetch still
    /// queued ends when the fetch queue starts it).
    func cancel() {
        let (operation, resumption) = state.withLock { state in
            state.taskCancelled = true
            return (state.operation, state.resumption)
        }
        operation?.cancel()
        resumption?.resumeNow(.failure(CancellationError()))
    }

    /// The fetch ended: the caller is resumed once the operation has released the pipeline, unless the task's
    /// cancellation already resumed it.
    func finish(_ result: ImageFetchResult?, _ error: (any Error)?) {
        let outcome: Result<ImageFetchResult, any Error> = result.map { .success($0) } ?? .failure(surfaced(error))
        state.withLock { $0.resumption }?.finish(outcome)
    }

    /// The error the caller sees: `CancellationError` when the task's cancellation ended the fetch.
    func surfaced(_ error: (any Error)?) -> any Error {
        guard let error else { return ImageFetchError(.unknown, "The fetch ended without an image or an error.") }
        if (error as? ImageFetchError)?.code == .cancelled, state.withLock({ $0.taskCancelled }) {
            return CancellationError()
        }
        return error
    }
}
