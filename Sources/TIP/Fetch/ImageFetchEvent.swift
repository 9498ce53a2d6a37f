import Foundation

/// One event of a fetch, as delivered by `ImagePipeline.fetchEvents(for:)` (beyond TIP).
public enum ImageFetchEvent: Sendable {
    /// A cached variant with another URL, scaled to the target (the fetch goes on).
    case preview(ImageFetchResult)
    /// A progressive scan, with the download progress.
    case progressiveImage(ImageFetchResult, progress: Float)
    /// An animation's first frame, with the download progress.
    case firstAnimatedFrame(ImageFetchResult, progress: Float)
    /// Download progress.
    case progress(Float)
    /// The final image; the stream ends after it.
    case final(ImageFetchResult)
}

/// Feeds a fetch's callbacks into an `AsyncThrowingStream` (owned by its operation, called on its queue).
final class ImageFetchEventStreamDelegate: ImageFetchDelegate {
    let continuation: AsyncThrowingStream<ImageFetchEvent, any Error>.Continuation
    /// Set when the consumer ended the stream (its task cancelled, its iteration stopped), just before the fetch is
    /// cancelled for it.
    let consumerStopped = Locked(false)

    init(_ continuation: AsyncThrowingStream<ImageFetchEvent, any Error>.Continuation) {
        self.continuation = continuation
    }

    /// The stream's termination handler: a consumer that stops (its task cancelled, its iteration ended) cancels
    /// `operation`, noted first as the consumer's own doing.
    func terminationHandler(
        cancelling operation: ImageFetchOperation
    ) -> @Sendable (AsyncThrowingStream<ImageFetchEvent, any Error>.Continuation.Termination) -> Void {
        let consumerStopped = consumerStopped
        return { termination in
            guard case .cancelled = termination else { return }
            consumerStopped.withLock { $0 = true }
            operation.cancel()
        }
    }

    var handlesPreviews: Bool { true }
    var handlesProgressiveLoading: Bool { true }
    var handlesFirstAnimatedFrame: Bool { true }

    func imageFetchOperation(
        _ operation: ImageFetchOperation, didLoadPreviewImage result: ImageFetchResult,
        completion: @escaping @Sendable (ImageFetchPreviewLoadedBehavior) -> Void
    ) {
        continuation.yield(.preview(result))
        completion(.continueLoading)
    }
    func imageFetchOperation(
        _ operation: ImageFetchOperation, shouldLoadProgressivelyWithIdentifier identifier: String,
        url: URL, imageType: ImageType, originalDimensions: CGSize
    ) -> Bool { true }
    func imageFetchOperation(
        _ operation: ImageFetchOperation, didUpdateProgressiveImage result: ImageFetchResult, progress: Float
    ) {
        continuation.yield(.progressiveImage(result, progress: progress))
    }
    func imageFetchOperation(
        _ operation: ImageFetchOperation, didLoadFirstAnimatedImageFrame result: ImageFetchResult, progress: Float
    ) {
        continuation.yield(.firstAnimatedFrame(result, progress: progress))
    }
    func imageFetchOperation(_ operation: ImageFetchOperation, didUpdateProgress progress: Float) {
        continuation.yield(.progress(progress))
    }
    func imageFetchOperation(_ operation: ImageFetchOperation, didLoadFinalImage result: ImageFetchResult) {
        continuation.yield(.final(result))
        continuation.finish()
    }
    func imageFetchOperation(_ operation: ImageFetchOperation, didFailToLoadFinalImage error: any Error) {
        // The consumer's own cancellation ends the stream without an error. The stream finishes itself just after
        // asking for the cancellation, and a fetch that reported it first would otherwise make the consumer's loop
        // throw. A fetch cancelled by anything else throws `CancellationError`.
        let cancelled = (error as? ImageFetchError)?.code == .cancelled
        if cancelled, consumerStopped.withLock({ $0 }) { return continuation.finish() }
        continuation.finish(throwing: cancelled ? CancellationError() : error)
    }
}
