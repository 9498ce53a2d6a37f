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
    /// main thread. Cancelling the task cancels the fetch and throws `CancellationError` (the delegate and
    /// completion APIs report TIP's `ImageFetchError` `cancelled` instead). Other failures throw
    /// ``ImageFetchError`` (a transport error is its `underlyingError`).
    public func fetchImage(for request: any ImageFetchRequest) async throws -> ImageFetchResult {
        try Task.checkCancellation()
        let fetch = AsyncFetch()
        return try await withTaskCancellationHandler {
            try await withCheckedThrowingContinuation {
                (continuation: CheckedContinuation<ImageFetchResult, any Error>) in
                let delegate = ImageFetchCompletionDelegate { result, error in
                    if let result {
                        continuation.resume(returning: result)
                    } else {
                        continuation.resume(throwing: fetch.surfaced(error))
                    }
                }
                let operation = ImageFetchOperation(
                    pipeline: self, request: request, context: nil, delegate: delegate,
                    ownsDelegate: true, deliversOnOwnQueue: true)
                fetch.start(operation)
                fetchImage(with: operation)
            }
        } onCancel: {
            fetch.cancel()
        }
    }
}

/// One `async` fetch: its operation, and whether its task was cancelled (so the cancellation surfaces as
/// `CancellationError`). Thread-safe: one lock.
final class AsyncFetch: Sendable {
    private struct State {
        var operation: ImageFetchOperation?
        var taskCancelled = false
    }

    private let state = Locked(State())

    /// Records the operation; cancels it at once when the task was cancelled before.
    func start(_ operation: ImageFetchOperation) {
        let cancelled = state.withLock { state -> Bool in
            state.operation = operation
            return state.taskCancelled
        }
        if cancelled { operation.cancel() }
    }

    /// The task was cancelled: so is the fetch.
    func cancel() {
        let operation = state.withLock { state -> ImageFetchOperation? in
            state.taskCancelled = true
            return state.operation
        }
        operation?.cancel()
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
