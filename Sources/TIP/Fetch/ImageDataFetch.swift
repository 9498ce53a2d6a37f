import Foundation

/// One data-only fetch (beyond TIP): the bytes of an image and their type, from the memory cache, the disk cache
/// (this pipeline's, then other live pipelines'), or the network, without decoding them. Made by
/// ``ImagePipeline/fetchImageData(with:priority:completion:)``.
///
/// ```swift
/// let fetch = pipeline.fetchImageData(with: request) { result in print(try? result.get().data.count) }
/// fetch.priority = .high
/// ```
///
/// It follows the request's ``ImageFetchRequest/loadingSources`` and write options; additional caches are not asked
/// (they give images, not bytes). A download is shared with image fetches of the same image, as any fetch's is, and
/// commits its bytes to the caches as theirs do. Thread-safe: state in one lock, the work on a serial queue of its own.
public final class ImageDataFetch: ImageDownloadMember, @unchecked Sendable {
    // @unchecked: every mutable field is in `state` (a lock); `completion` is called once, from `queue`.
    private struct State {
        var priority: ImageFetchPriority
        var cancelReason: String?
        var isDownloading = false
        var isFinished = false
    }

    /// The request, as given.
    public let request: any ImageFetchRequest
    /// The pipeline whose caches are read and written.
    public var imagePipeline: ImagePipeline { pipelineHold.pipeline }
    /// Holds the pipeline until the fetch goes away (the `async` API waits for its release).
    let pipelineHold: PipelineHold
    private let identifier: String
    private let state: Locked<State>
    /// The fetch's own serial queue (its work and download events), on one of the shared lanes.
    let queue = WorkLanes.queue(label: "TIP.ImageDataFetch")
    private let completion: @Sendable (Result<ImageDataFetchResult, any Error>) -> Void

    /// A fetch that hands its outcome to `completion`, on the fetch's own queue.
    init(
        pipeline: ImagePipeline, request: any ImageFetchRequest, priority: ImageFetchPriority,
        completion: @escaping @Sendable (Result<ImageDataFetchResult, any Error>) -> Void
    ) {
        self.pipelineHold = PipelineHold(pipeline)
        self.request = request
        self.identifier = request.resolvedImageIdentifier
        self.state = Locked(State(priority: priority))
        self.completion = completion
    }

    /// The fetch's priority (default `.normal`): a shared download runs at the highest of its fetches'. May change
    /// at any time.
    public var priority: ImageFetchPriority {
        get { state.withLock { $0.priority } }
        set {
            let downloading = state.withLock { state -> Bool in
                state.priority = newValue
                return state.isDownloading
            }
            if downloading { configuration.downloader.priorityDidChange(for: self) }
        }
    }

    /// Whether the fetch ended (its completion ran or is running).
    public var isFinished: Bool { state.withLock { $0.isFinished } }

    /// Cancels the fetch: its completion gets ``ImageFetchError`` `cancelled` (unless it already ended). A download
    /// other fetches share goes on for them.
    public func cancel() {
        let downloading = state.withLock { state -> Bool? in
            guard !state.isFinished, state.cancelReason == nil else { return nil }
            state.cancelReason = "the data fetch was cancelled"
            return state.isDownloading
        }
        if downloading == true { configuration.downloader.remove(self, reason: "the data fetch was cancelled") }
    }

    private var configuration: GlobalConfiguration { imagePipeline.configuration }
    private var caches: ImagePipelineCaches { imagePipeline.caches }

    /// Starts looking (memory, disk, other pipelines, network) on the fetch's queue.
    func start() {
        queue.async { self.loadFromCaches() }
    }

    private var cancelled: ImageFetchError? {
        state.withLock { $0.cancelReason }.map { ImageFetchError.cancelled($0) }
    }

    private func loadFromCaches() {
        if let cancelled { return finish(.failure(cancelled)) }
        let sources = request.loadingSources
        let url = request.imageURL
        if sources.allows(.memoryCache),
            let bytes = caches.memoryData(
                identifier: identifier, url: url, touch: !request.options.contains(.doNotResetExpiryOnAccess))
        {
            return finish(
                .success(result(bytes.data, type: bytes.imageType, dimensions: bytes.dimensions, source: .memoryCache)))
        }
        if sources.allows(.diskCache) {
            if let bytes = caches.diskData(
                identifier: identifier, url: url, copiesToMemory: !request.options.contains(.skipStoringToMemoryCache),
                timeToLive: request.resolvedTimeToLive)
            {
                return finish(
                    .success(
                        result(bytes.data, type: bytes.imageType, dimensions: bytes.dimensions, source: .diskCache)))
            }
            for other in configuration.registry.all where other !== imagePipeline {
                guard
                    let bytes = other.caches.diskData(
                        identifier: identifier, url: url, copiesToMemory: false,
                        timeToLive: request.resolvedTimeToLive, dropsUnrevalidatable: false)
                else { continue }
                if !request.options.contains(.skipStoringToDiskCache) { copyToDisk(bytes) }
                return finish(
                    .success(
                        result(bytes.data, type: bytes.imageType, dimensions: bytes.dimensions, source: .diskCache)))
            }
        }
        guard sources.allows(.network) || sources.allows(.networkResumed) else {
            return finish(
                .failure(
                    ImageFetchError(
                        .couldNotLoadImage,
                        "No allowed source had \(url.absoluteString); allow the network to download it.")))
        }
        state.withLock { $0.isDownloading = true }
        configuration.downloader.add(self)
        // A cancel that raced with the join: leave now (the downloader answers with a cancelled completion).
        if let cancelled { configuration.downloader.remove(self, reason: cancelled.message) }
    }

    /// Another pipeline's file copied into this pipeline's disk cache (as image fetches do), with its freshness and
    /// validators.
    private func copyToDisk(_ bytes: MemoryCacheCompleteImage) {
        let metadata = DiskCacheMetadata(
            identifier: identifier, url: bytes.url, lastAccess: configuration.clock(), timeToLive: bytes.timeToLive,
            updatesExpiryOnAccess: bytes.updateExpiryOnAccess, width: Int(bytes.dimensions.width),
            height: Int(bytes.dimensions.height),
            isAnimated: bytes.isAnimated, isPlaceholder: bytes.isPlaceholder, lastModified: bytes.lastModified,
            entityTag: bytes.entityTag, imageType: bytes.imageType?.rawValue, freshness: bytes.freshness)
        imagePipeline.diskCache.updateImageEntry(
            metadata: metadata, source: .data(bytes.data), forced: !bytes.isPlaceholder)
    }

    private func result(_ data: Data, type: ImageType?, dimensions: CGSize, source: ImageLoadSource)
        -> ImageDataFetchResult
    {
        ImageDataFetchResult(
            data: data, imageType: type, imageURL: request.imageURL, imageSource: source,
            imageIdentifier: identifier, imageDimensions: dimensions)
    }

    private func finish(_ outcome: Result<ImageDataFetchResult, any Error>) {
        let first = state.withLock { state -> Bool in
            defer { state.isFinished = true }
            state.isDownloading = false
            return !state.isFinished
        }
        if first { completion(outcome) }
    }

    // MARK: ImageDownloadMember

    var imageDownloadRequest: ImageDownloadRequest {
        ImageDownloadRequest(fetchRequest: request, pipeline: imagePipeline)
    }
    var imageDownloadPriority: ImageFetchPriority { priority }
    var imageDownloadQueue: DispatchQueue { queue }

    func imageDownloadDidStart(_ download: ImageDownloadHandle, resumedByteCount: Int, expectedLength: Int?) {}
    func imageDownloadDidReset(_ download: ImageDownloadHandle) {}
    func imageDownload(_ download: ImageDownloadHandle, didUpdate update: ImageDownloadUpdate) {}

    func imageDownload(_ download: ImageDownloadHandle, didCompleteWith outcome: Result<ImageDownloadResult, any Error>)
    {
        switch outcome {
        case .failure(let error):
            finish(.failure(error))
        case .success(let downloaded):
            if let cancelled { return finish(.failure(cancelled)) }
            finish(
                .success(
                    result(
                        downloaded.data, type: downloaded.imageType, dimensions: downloaded.dimensions,
                        source: downloaded.source)))
        }
    }
}
