import Foundation

// The helper's actions. Call them on the callback queue.
extension ImageFetchHelper {
    /// Fetches again when idle and no final image is shown (and the target is visible with a size).
    public func reload() {
        refetch()
    }

    /// Cancels the fetch in flight and forgets the request (the image stays).
    public func cancelFetchRequest() {
        cancelFetch()
        guarded.withLock { $0.fetchRequest = nil }
    }

    /// Cancels the fetch and removes the image; the delegate hears `fetchHelperDidReset`.
    public func clearImage() {
        reset(to: nil)
    }

    /// The data source now describes another image (a reused cell, a new model; beyond TIP). When its request
    /// differs from the current one (URL, identifier or target sizing), the fetch in flight is cancelled — its
    /// late callbacks are ignored — the image is cleared if it belongs to another identifier (otherwise kept as a
    /// preview), and the new request is fetched. Nothing changes when the request is the same.
    public func dataSourceDidChange() {
        let dataSource = self.dataSource
        let peeked = extractRequest(from: dataSource)
        let current = fetchRequest
        if let peeked, let current, Self.requestsMatch(peeked, current) {
            return refetch(peeked: peeked)
        }
        cancelFetchRequest()
        if let peeked, let current, peeked.resolvedImageIdentifier == current.resolvedImageIdentifier, didLoadAny {
            guarded.withLock { state in
                if state.flags.isFinal || state.flags.isScaled {
                    state.flags.isFinal = false
                    state.flags.isScaled = false
                    state.flags.isPreview = true
                }
            }
        } else {
            reset(to: nil)
        }
        refetch(peeked: peeked)
    }

    // MARK: Showing images directly

    /// Cancels any fetch and shows `container` as if it had been loaded (flagged final).
    public func setImageContainerAsIfLoaded(_ container: ImageContainer?) {
        cancelFetchRequest()
        stopObservingStores()
        markAsIfLoadedNow()
        target?.fetchedImageContainer = container
    }

    /// Cancels any fetch and shows `image` as if it had been loaded (flagged final).
    public func setImageAsIfLoaded(_ image: Bitmap?) {
        setImageContainerAsIfLoaded(image.map { ImageContainer(image: $0) })
    }

    /// Flags the image shown as the final image (when there is one).
    public func markAsIfLoaded() {
        if target?.hasFetchedImage == true { markAsIfLoadedNow() }
    }

    /// Cancels any fetch and shows `container` as a placeholder (a later fetch or store may replace it).
    public func setImageContainerAsIfPlaceholder(_ container: ImageContainer?) {
        cancelFetchRequest()
        stopObservingStores()
        markAsIfPlaceholderNow()
        target?.fetchedImageContainer = container
    }

    /// Cancels any fetch and shows `image` as a placeholder.
    public func setImageAsIfPlaceholder(_ image: Bitmap?) {
        setImageContainerAsIfPlaceholder(image.map { ImageContainer(image: $0) })
    }

    /// Flags the image shown as a placeholder (when there is one).
    public func markAsIfPlaceholder() {
        if target?.hasFetchedImage == true { markAsIfPlaceholderNow() }
    }

    // MARK: Moving a target between helpers

    /// Moves `target` from `oldHelper` to `newHelper` (TIP's `transitionView:fromFetchHelper:toFetchHelper:`): the
    /// old helper's fetch goes on headless and is cancelled a second later, so the new helper's fetch of the same
    /// image can join its download; the old helper lets go of the target without running its disappearance
    /// behaviour, and the new one runs its appearance when the target is visible. Nothing happens when the helpers are
    /// the same, `newHelper` is nil, or `oldHelper` drives another target.
    public static func transitionTarget(
        _ target: any ImageFetchable, from oldHelper: ImageFetchHelper?, to newHelper: ImageFetchHelper?
    ) {
        guard let newHelper, oldHelper !== newHelper else { return }
        if let oldHelper {
            guard oldHelper.target === target else { return }
            // The target now belongs to the new helper: the old one lets go without running its disappearance.
            let operation = oldHelper.guarded.withLock { state -> ImageFetchOperation? in
                defer {
                    state.operation = nil
                    state.target = nil
                }
                return state.operation
            }
            if let operation {
                operation.discardDelegate()
                oldHelper.configuration.callbackQueue.asyncAfter(deadline: .now() + 1) { operation.cancel() }
            }
        }
        newHelper.target = target
    }

    /// Whether two requests fetch the same image the same way.
    static func requestsMatch(_ lhs: any ImageFetchRequest, _ rhs: any ImageFetchRequest) -> Bool {
        lhs.imageURL == rhs.imageURL && lhs.resolvedImageIdentifier == rhs.resolvedImageIdentifier
            && TargetSizing.targetSizingsMatch(
                lhs.targetDimensions, lhs.targetContentMode, rhs.targetDimensions, rhs.targetContentMode)
    }
}
