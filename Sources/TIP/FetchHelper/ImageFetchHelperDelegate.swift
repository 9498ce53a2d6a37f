import Foundation

/// Decides and hears what an ``ImageFetchHelper`` does (TIP's `TIPImageViewFetchHelperDelegate`). Every method
/// is optional. Everything runs on the helper's callback queue except
/// `fetchHelper(_:shouldLoadProgressivelyWithIdentifier:url:imageType:originalDimensions:)`, which runs
/// synchronously on the fetch's own queue.
public protocol ImageFetchHelperDelegate: AnyObject, Sendable {
    // MARK: Deciders

    /// Whether to show a preview (a cached variant of another URL). Default false: previews are not shown and
    /// the fetch goes on.
    func fetchHelper(_ helper: ImageFetchHelper, shouldUpdateImageWithPreviewImageResult result: ImageFetchResult)
        -> Bool
    /// After a shown preview, whether to keep loading the final image; stopping keeps the preview as the final
    /// image ("scaled preview as final"). Default: ``ImageFetchHelper/shouldContinueLoadingByDefault(afterPreview:)``.
    func fetchHelper(
        _ helper: ImageFetchHelper, shouldContinueLoadingAfterFetchingPreviewImageResult result: ImageFetchResult
    ) -> Bool
    /// Whether to show progressive scans of this image. Synchronous, on the fetch's queue. Default false.
    func fetchHelper(
        _ helper: ImageFetchHelper, shouldLoadProgressivelyWithIdentifier identifier: String, url: URL,
        imageType: ImageType, originalDimensions: CGSize
    ) -> Bool
    /// Another fetch or a store put an image with the helper's identifier into its pipeline while the helper was
    /// idle: whether to fetch again. Default:
    /// ``ImageFetchHelper/shouldReloadByDefault(afterStoreOf:treatedAsPlaceholder:)``.
    func fetchHelper(
        _ helper: ImageFetchHelper, shouldReloadAfterDifferentFetchCompletedWithIdentifier identifier: String,
        url: URL, dimensions: CGSize, treatedAsPlaceholder: Bool, manuallyStored: Bool
    ) -> Bool

    // MARK: Events

    /// A fetch started.
    func fetchHelperDidStartLoading(_ helper: ImageFetchHelper)
    /// A fetch is about to use the network.
    func fetchHelperDidStartLoadingFromNetwork(_ helper: ImageFetchHelper)
    /// The fetch progress changed (0...1).
    func fetchHelper(_ helper: ImageFetchHelper, didUpdateProgress progress: Float)
    /// The target got a new image (a preview, a scan or the final image; `isFinal` for the final image and a
    /// preview kept as final).
    func fetchHelper(
        _ helper: ImageFetchHelper, didUpdateDisplayedImageContainer container: ImageContainer,
        fromSourceDimensions sourceDimensions: CGSize, isFinal: Bool)
    /// The final image (or a preview kept as final) is shown.
    func fetchHelper(_ helper: ImageFetchHelper, didLoadFinalImageFrom source: ImageLoadSource)
    /// The fetch failed (not called for cancellations by the helper, nor for a stop after a preview).
    func fetchHelper(_ helper: ImageFetchHelper, didFailToLoadFinalImage error: any Error)
    /// The helper went back to showing nothing it loaded.
    func fetchHelperDidReset(_ helper: ImageFetchHelper)
}

extension ImageFetchHelperDelegate {
    /// False: previews are not shown and the fetch goes on.
    public func fetchHelper(
        _ helper: ImageFetchHelper, shouldUpdateImageWithPreviewImageResult result: ImageFetchResult
    ) -> Bool {
        false
    }
    /// TIP's rule (``ImageFetchHelper/shouldContinueLoadingByDefault(afterPreview:)``).
    public func fetchHelper(
        _ helper: ImageFetchHelper, shouldContinueLoadingAfterFetchingPreviewImageResult result: ImageFetchResult
    ) -> Bool {
        helper.shouldContinueLoadingByDefault(afterPreview: result)
    }
    /// False: the image is shown once, when it is complete.
    public func fetchHelper(
        _ helper: ImageFetchHelper, shouldLoadProgressivelyWithIdentifier identifier: String, url: URL,
        imageType: ImageType, originalDimensions: CGSize
    ) -> Bool {
        false
    }
    /// TIP's rule (``ImageFetchHelper/shouldReloadByDefault(afterStoreOf:treatedAsPlaceholder:)``).
    public func fetchHelper(
        _ helper: ImageFetchHelper, shouldReloadAfterDifferentFetchCompletedWithIdentifier identifier: String,
        url: URL, dimensions: CGSize, treatedAsPlaceholder: Bool, manuallyStored: Bool
    ) -> Bool {
        helper.shouldReloadByDefault(afterStoreOf: url, treatedAsPlaceholder: treatedAsPlaceholder)
    }
    /// Ignores the event.
    public func fetchHelperDidStartLoading(_ helper: ImageFetchHelper) {}
    /// Ignores the event.
    public func fetchHelperDidStartLoadingFromNetwork(_ helper: ImageFetchHelper) {}
    /// Ignores the progress.
    public func fetchHelper(_ helper: ImageFetchHelper, didUpdateProgress progress: Float) {}
    /// Ignores the update (the target's `fetchedImageContainer` is set either way).
    public func fetchHelper(
        _ helper: ImageFetchHelper, didUpdateDisplayedImageContainer container: ImageContainer,
        fromSourceDimensions sourceDimensions: CGSize, isFinal: Bool
    ) {}
    /// Ignores the event.
    public func fetchHelper(_ helper: ImageFetchHelper, didLoadFinalImageFrom source: ImageLoadSource) {}
    /// Ignores the failure.
    public func fetchHelper(_ helper: ImageFetchHelper, didFailToLoadFinalImage error: any Error) {}
    /// Ignores the event.
    public func fetchHelperDidReset(_ helper: ImageFetchHelper) {}
}
