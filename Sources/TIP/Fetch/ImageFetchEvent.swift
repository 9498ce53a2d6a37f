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

    init(_ continuation: AsyncThrowingStream<ImageFetchEvent, any Error>.Continuation) {
        self.continuation = continuation
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
        // Only the stream's termination (the task cancelled, the iteration ended) cancels its fetch.
        let cancelled = (error as? ImageFetchError)?.code == .cancelled
        continuation.finish(throwing: cancelled ? CancellationError() : error)
    }
}
