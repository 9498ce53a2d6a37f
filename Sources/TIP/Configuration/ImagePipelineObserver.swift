import Foundation

/// Observes pipeline activity (TIP's `TIPImagePipelineObserver`); every method is optional.
/// Add one to a pipeline (``ImagePipeline/observer``) or to all of them
/// (``GlobalConfiguration/addImagePipelineObserver(_:)``). Called synchronously on background
/// queues: keep it quick and thread-safe.
public protocol ImagePipelineObserver: AnyObject, Sendable {
    /// A pipeline was created and registered.
    func imagePipelineDidStandUp(_ pipeline: ImagePipeline)
    /// The pipeline with this identifier was torn down (its files stay on disk).
    func imagePipelineDidTearDown(identifier: String)
    /// An image was stored in a pipeline's caches (a download finished or a manual store); `isPlaceholder`
    /// when it is treated as a placeholder.
    func imagePipeline(
        _ pipeline: ImagePipeline, didStoreImageWithIdentifier identifier: String, url: URL, dimensions: CGSize,
        isPlaceholder: Bool, wasManuallyStored: Bool)
    /// A network download for the pipeline began (once per shared download).
    func imagePipeline(_ pipeline: ImagePipeline, didStartDownloadingImageAt url: URL)
    /// A network download for the pipeline delivered a whole image of `byteCount` bytes; `wasResumed` when it
    /// completed a cached partial.
    func imagePipeline(
        _ pipeline: ImagePipeline, didFinishDownloadingImageAt url: URL, imageType: ImageType?,
        byteCount: Int, dimensions: CGSize, wasResumed: Bool)
}

extension ImagePipelineObserver {
    /// Ignores the event.
    public func imagePipelineDidStandUp(_ pipeline: ImagePipeline) {}
    /// Ignores the event.
    public func imagePipelineDidTearDown(identifier: String) {}
    /// Ignores the event.
    public func imagePipeline(
        _ pipeline: ImagePipeline, didStoreImageWithIdentifier identifier: String, url: URL, dimensions: CGSize,
        isPlaceholder: Bool, wasManuallyStored: Bool
    ) {}
    /// Ignores the event.
    public func imagePipeline(_ pipeline: ImagePipeline, didStartDownloadingImageAt url: URL) {}
    /// Ignores the event.
    public func imagePipeline(
        _ pipeline: ImagePipeline, didFinishDownloadingImageAt url: URL, imageType: ImageType?,
        byteCount: Int, dimensions: CGSize, wasResumed: Bool
    ) {}
}
