import Foundation

extension ImageFetchHelper {
    /// Prefetches what this helper would fetch for its target (the data source's request, or its URL at the target's
    /// pixel size and content mode) with `prefetcher`, so that a target about to appear shows its image sooner.
    /// Returns false when there is nothing to prefetch, or the data source's pipeline is not the prefetcher's. Call it
    /// on the callback queue, like every trigger.
    ///
    /// ```swift
    /// for helper in helpersOfRowsAboutToAppear { helper.prefetch(with: prefetcher) }
    /// ```
    @discardableResult
    public func prefetch(with prefetcher: ImagePrefetcher) -> Bool {
        guard let request = prefetchRequest(for: prefetcher) else { return false }
        prefetcher.startPrefetching(with: [request])
        return true
    }

    /// Stops the prefetch ``prefetch(with:)`` started, if it is still waiting or running (a row scrolled away).
    public func cancelPrefetch(with prefetcher: ImagePrefetcher) {
        guard let request = prefetchRequest(for: prefetcher) else { return }
        prefetcher.stopPrefetching(with: [request])
    }

    private func prefetchRequest(for prefetcher: ImagePrefetcher) -> (any ImageFetchRequest)? {
        let dataSource = self.dataSource
        guard let request = extractRequest(from: dataSource),
            dataSource?.imagePipeline(for: self) === prefetcher.pipeline
        else {
            return nil
        }
        return request
    }
}
