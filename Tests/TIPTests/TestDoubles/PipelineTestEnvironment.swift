import Foundation

@testable import TIP

/// What the test environments share (``DownloaderTestEnvironment``, ``SteppedPipelineEnvironment``): a configuration
/// and a pipeline of their own, and the downloader-level API on them (``DownloadTestMember``).
protocol PipelineTestEnvironment {
    var configuration: GlobalConfiguration { get }
    var pipeline: ImagePipeline { get }
}

extension PipelineTestEnvironment {
    /// The configuration's downloader.
    var downloader: ImageDownloader { configuration.downloader }

    /// Adds a new member for `request` to the downloader.
    @discardableResult
    func start(
        _ request: ImageDownloadRequest, priority: ImageFetchPriority = .normal,
        onUpdate: (@Sendable (DownloadTestMember, ImageDownloadUpdate) -> Void)? = nil
    ) -> DownloadTestMember {
        let member = DownloadTestMember(request, priority: priority, onUpdate: onUpdate)
        downloader.add(member)
        return member
    }

    /// The pipeline's disk entry for `identifier` (complete and partial parts).
    func diskEntry(_ identifier: String) -> DiskCacheEntry? {
        pipeline.diskCache.entry(withIdentifier: identifier)
    }
}
