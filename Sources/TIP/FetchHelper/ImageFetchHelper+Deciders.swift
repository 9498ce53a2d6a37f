import Foundation

// TIP's default answers to the delegate's questions, public so a delegate can fall back on them.
extension ImageFetchHelper {
    /// TIP's rule for going on after a shown preview: a placeholder preview continues; a placeholder request
    /// stops (the final image would be a downgrade); a preview whose original dimensions cover the target's pixel
    /// size on both axes stops (it is kept as the final image); anything else continues.
    public func shouldContinueLoadingByDefault(afterPreview result: ImageFetchResult) -> Bool {
        if result.imageIsTreatedAsPlaceholder { return true }
        if fetchRequest?.options.contains(.treatAsPlaceholder) == true { return false }
        let original = result.imageOriginalDimensions
        let wanted = target?.pixelSize ?? .zero
        return !(original.width >= wanted.width && original.height >= wanted.height)
    }

    /// TIP's rule for reloading after another fetch or a store put this identifier into the pipeline: yes when
    /// nothing is shown and the stored URL is the request's, or when a placeholder is shown and the stored image
    /// is not one.
    public func shouldReloadByDefault(afterStoreOf url: URL, treatedAsPlaceholder: Bool) -> Bool {
        let (target, request, showsPlaceholder) = guarded.withLock {
            ($0.target, $0.fetchRequest, $0.flags.isPlaceholder)
        }
        if target?.hasFetchedImage != true, request?.imageURL == url { return true }
        return showsPlaceholder && !treatedAsPlaceholder
    }
}
