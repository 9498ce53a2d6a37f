import Foundation

/// The fetch delegate a helper gives its operations (TIP's helper is its own fetch delegate). Callbacks of any
/// operation but the helper's current one are ignored, so a fetch that was replaced cannot touch the target.
final class ImageFetchHelperOperationDelegate: ImageFetchDelegate {
    let helper = WeakImageFetchHelper()

    var wantsSourceAttemptCallbacks: Bool { true }
    var handlesPreviews: Bool { true }
    var handlesProgressiveLoading: Bool { true }
    var handlesFirstAnimatedFrame: Bool { true }

    /// The helper, when `operation` is its current fetch.
    private func owner(of operation: ImageFetchOperation) -> ImageFetchHelper? {
        guard let helper = helper.helper, helper.currentOperation === operation else { return nil }
        return helper
    }

    func imageFetchOperation(_ operation: ImageFetchOperation, didLoadDirtyPreviewImage result: ImageFetchResult) {
        guard let helper = owner(of: operation),
            helper.delegate?.fetchHelper(helper, shouldUpdateImageWithPreviewImageResult: result) == true
        else { return }
        helper.update(
            .init(
                container: result.imageContainer, sourceDimensions: result.imageOriginalDimensions,
                url: result.imageURL,
                source: result.imageSource, isPreview: true, isPlaceholder: result.imageIsTreatedAsPlaceholder))
    }

    func imageFetchOperationDidStart(_ operation: ImageFetchOperation) {
        guard let helper = owner(of: operation) else { return }
        helper.delegate?.fetchHelperDidStartLoading(helper)
    }

    func imageFetchOperation(_ operation: ImageFetchOperation, willAttemptToLoadFrom source: ImageLoadSource) {
        guard let helper = owner(of: operation), source.rawValue >= ImageLoadSource.network.rawValue else { return }
        helper.delegate?.fetchHelperDidStartLoadingFromNetwork(helper)
    }

    func imageFetchOperation(
        _ operation: ImageFetchOperation, didLoadPreviewImage result: ImageFetchResult,
        completion: @escaping @Sendable (ImageFetchPreviewLoadedBehavior) -> Void
    ) {
        guard let helper = owner(of: operation) else { return completion(.stopLoading) }
        var continues = true
        if let delegate = helper.delegate, delegate.fetchHelper(helper, shouldUpdateImageWithPreviewImageResult: result)
        {
            continues = delegate.fetchHelper(helper, shouldContinueLoadingAfterFetchingPreviewImageResult: result)
            helper.update(
                .init(
                    container: result.imageContainer, sourceDimensions: result.imageOriginalDimensions,
                    url: result.imageURL, source: result.imageSource, progress: continues ? 0 : 1,
                    metrics: continues ? nil : operation.metrics, isFinal: !continues, isScaled: !continues,
                    isPreview: continues, isPlaceholder: result.imageIsTreatedAsPlaceholder))
        }
        completion(continues ? .continueLoading : .stopLoading)
    }

    func imageFetchOperation(
        _ operation: ImageFetchOperation, shouldLoadProgressivelyWithIdentifier identifier: String,
        url: URL, imageType: ImageType, originalDimensions: CGSize
    ) -> Bool {
        // On the fetch's queue: only lock-guarded reads.
        guard let helper = owner(of: operation), let delegate = helper.delegate else { return false }
        return delegate.fetchHelper(
            helper, shouldLoadProgressivelyWithIdentifier: identifier, url: url, imageType: imageType,
            originalDimensions: originalDimensions)
    }

    func imageFetchOperation(
        _ operation: ImageFetchOperation, didUpdateProgressiveImage result: ImageFetchResult, progress: Float
    ) {
        showScan(result, of: operation, url: result.imageURL, progress: progress)
    }

    func imageFetchOperation(
        _ operation: ImageFetchOperation, didLoadFirstAnimatedImageFrame result: ImageFetchResult, progress: Float
    ) {
        showScan(result, of: operation, url: operation.request.imageURL, progress: progress)
    }

    private func showScan(_ result: ImageFetchResult, of operation: ImageFetchOperation, url: URL, progress: Float) {
        guard let helper = owner(of: operation) else { return }
        helper.update(
            .init(
                container: result.imageContainer, sourceDimensions: operation.networkImageOriginalDimensions, url: url,
                source: result.imageSource, imageType: operation.networkLoadImageType, progress: progress,
                isProgressive: true, isPlaceholder: true))
    }

    func imageFetchOperation(_ operation: ImageFetchOperation, didUpdateProgress progress: Float) {
        guard let helper = owner(of: operation) else { return }
        let type = operation.networkLoadImageType
        helper.guarded.withLock {
            $0.fetchProgress = progress
            $0.loadedImageType = type
        }
        helper.delegate?.fetchHelper(helper, didUpdateProgress: progress)
    }

    func imageFetchOperation(_ operation: ImageFetchOperation, didLoadFinalImage result: ImageFetchResult) {
        guard let helper = owner(of: operation) else { return }
        helper.guarded.withLock { $0.operation = nil }
        helper.update(
            .init(
                container: result.imageContainer, sourceDimensions: result.imageOriginalDimensions,
                url: result.imageURL,
                source: result.imageSource, imageType: operation.networkLoadImageType, progress: 1,
                metrics: operation.metrics, isFinal: true, isPlaceholder: result.imageIsTreatedAsPlaceholder))
    }

    func imageFetchOperation(_ operation: ImageFetchOperation, didFailToLoadFinalImage error: any Error) {
        guard let helper = owner(of: operation) else { return }
        let metrics = operation.metrics
        let stoppedAfterPreview = (error as? ImageFetchError)?.code == .cancelledAfterLoadingPreview
        helper.guarded.withLock { state in
            state.operation = nil
            state.fetchMetrics = metrics
            if !stoppedAfterPreview { state.fetchError = error }
        }
        if !stoppedAfterPreview { helper.delegate?.fetchHelper(helper, didFailToLoadFinalImage: error) }
    }
}
