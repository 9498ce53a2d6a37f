import Foundation

/// What a delegate answers after a preview (TIP's `TIPImageFetchPreviewLoadedBehavior`).
public enum ImageFetchPreviewLoadedBehavior: Int, Sendable {
    /// Keep loading the final image.
    case continueLoading = 0
    /// Stop: the fetch fails with `cancelledAfterLoadingPreview`.
    case stopLoading = 1
}

/// Receives a fetch's events (TIP's `TIPImageFetchDelegate`). Every method has a default that does nothing;
/// where TIP changes behaviour depending on whether a method is implemented, a capability flag says so.
///
/// Callbacks run on `GlobalConfiguration.callbackQueue` in the order the protocol lists them, except
/// `shouldLoadProgressively`, which runs synchronously on the fetch's own queue. Exactly one of
/// `didLoadFinalImage` / `didFailToLoadFinalImage` is called, and the operation finishes only after it ran.
public protocol ImageFetchDelegate: AnyObject, Sendable {
    /// Whether `willAttemptToLoadFrom` should be called. Default false.
    var wantsSourceAttemptCallbacks: Bool { get }
    /// Whether previews are handed to `didLoadPreviewImage` (and wait for its answer). Default false: a
    /// fetch with such a delegate keeps going without showing previews.
    var handlesPreviews: Bool { get }
    /// Whether `shouldLoadProgressively` is asked (TIP: "is implemented"). Default false: never progressive.
    var handlesProgressiveLoading: Bool { get }
    /// Whether the first frame of an animation is rendered for `didLoadFirstAnimatedImageFrame`. Default false.
    var handlesFirstAnimatedFrame: Bool { get }

    /// A dirty rendered-cache image matched the target: shown as a preview while the fetch goes on.
    /// Synchronous, inside `fetchImage(with:)` on the callback queue, before `didStart`.
    func imageFetchOperation(_ operation: ImageFetchOperation, didLoadDirtyPreviewImage result: ImageFetchResult)
    /// The operation started (not called when it was cancelled before starting).
    func imageFetchOperationDidStart(_ operation: ImageFetchOperation)
    /// The operation is about to look at `source` (only when `wantsSourceAttemptCallbacks`).
    func imageFetchOperation(_ operation: ImageFetchOperation, willAttemptToLoadFrom source: ImageLoadSource)
    /// A variant with another URL was found and scaled to the target; answer whether to continue (from any
    /// thread, at any time). Only when `handlesPreviews`.
    func imageFetchOperation(
        _ operation: ImageFetchOperation, didLoadPreviewImage result: ImageFetchResult,
        completion: @escaping @Sendable (ImageFetchPreviewLoadedBehavior) -> Void)
    /// Whether to render this progressive image's scans as they arrive. Synchronous, on the fetch's queue.
    func imageFetchOperation(
        _ operation: ImageFetchOperation, shouldLoadProgressivelyWithIdentifier identifier: String,
        url: URL, imageType: ImageType, originalDimensions: CGSize
    ) -> Bool
    /// A progressive scan was rendered.
    func imageFetchOperation(
        _ operation: ImageFetchOperation, didUpdateProgressiveImage result: ImageFetchResult, progress: Float)
    /// The first frame of an animation arrived (only when `handlesFirstAnimatedFrame`).
    func imageFetchOperation(
        _ operation: ImageFetchOperation, didLoadFirstAnimatedImageFrame result: ImageFetchResult, progress: Float)
    /// Download progress changed (0 at start or the resumed fraction, per chunk, 0 again on a restart).
    func imageFetchOperation(_ operation: ImageFetchOperation, didUpdateProgress progress: Float)
    /// The final image.
    func imageFetchOperation(_ operation: ImageFetchOperation, didLoadFinalImage result: ImageFetchResult)
    /// The fetch failed (or was cancelled).
    func imageFetchOperation(_ operation: ImageFetchOperation, didFailToLoadFinalImage error: any Error)
}

extension ImageFetchDelegate {
    /// False: `willAttemptToLoadFrom` is not called.
    public var wantsSourceAttemptCallbacks: Bool { false }
    /// False: previews are skipped and the fetch goes on to the final image.
    public var handlesPreviews: Bool { false }
    /// False: `shouldLoadProgressively` is not asked and no scan is rendered.
    public var handlesProgressiveLoading: Bool { false }
    /// False: an animation is delivered only when it is complete.
    public var handlesFirstAnimatedFrame: Bool { false }
    /// Ignores the dirty preview; the fetch goes on.
    public func imageFetchOperation(_ operation: ImageFetchOperation, didLoadDirtyPreviewImage result: ImageFetchResult)
    {}
    /// Ignores the start.
    public func imageFetchOperationDidStart(_ operation: ImageFetchOperation) {}
    /// Ignores the attempt.
    public func imageFetchOperation(_ operation: ImageFetchOperation, willAttemptToLoadFrom source: ImageLoadSource) {}
    /// Answers `.continueLoading` at once: the fetch goes on to the final image.
    public func imageFetchOperation(
        _ operation: ImageFetchOperation, didLoadPreviewImage result: ImageFetchResult,
        completion: @escaping @Sendable (ImageFetchPreviewLoadedBehavior) -> Void
    ) {
        completion(.continueLoading)
    }
    /// False: the image is rendered once, when it is complete.
    public func imageFetchOperation(
        _ operation: ImageFetchOperation, shouldLoadProgressivelyWithIdentifier identifier: String,
        url: URL, imageType: ImageType, originalDimensions: CGSize
    ) -> Bool { false }
    /// Ignores the scan.
    public func imageFetchOperation(
        _ operation: ImageFetchOperation, didUpdateProgressiveImage result: ImageFetchResult, progress: Float
    ) {}
    /// Ignores the frame.
    public func imageFetchOperation(
        _ operation: ImageFetchOperation, didLoadFirstAnimatedImageFrame result: ImageFetchResult, progress: Float
    ) {}
    /// Ignores the progress.
    public func imageFetchOperation(_ operation: ImageFetchOperation, didUpdateProgress progress: Float) {}
    /// Ignores the image (a delegate that wants it implements this method).
    public func imageFetchOperation(_ operation: ImageFetchOperation, didLoadFinalImage result: ImageFetchResult) {}
    /// Ignores the failure.
    public func imageFetchOperation(_ operation: ImageFetchOperation, didFailToLoadFinalImage error: any Error) {}
}
