import Foundation
import TIP

/// Fetches through `ImageFetchDelegate`, asking for previews, progressive scans and first animation frames.
struct DelegateFetchDriver: FetchDriver {
    func start(_ job: FetchJob, in pipeline: ImagePipeline, events: FetchEvents) -> any FetchHandle {
        let request = job.request
        let delegate = SampleFetchDelegate(events: events)
        let operation = pipeline.operation(with: request, delegate: delegate)
        delegate.attach(operation)
        pipeline.fetchImage(with: operation)
        return delegate
    }
}

/// One fetch's delegate; the run keeps it (the operation holds its delegate weakly) until the fetch ends.
final class SampleFetchDelegate: ImageFetchDelegate, FetchHandle, @unchecked Sendable {
    // `operation` is set once, before the fetch starts, and read on the callback queue afterwards.
    private var operation: ImageFetchOperation?
    private let events: FetchEvents

    init(events: FetchEvents) {
        self.events = events
    }

    func attach(_ operation: ImageFetchOperation) {
        self.operation = operation
    }

    var handlesPreviews: Bool { true }
    var handlesProgressiveLoading: Bool { true }
    var handlesFirstAnimatedFrame: Bool { true }

    func cancel() { operation?.cancel() }

    func changePriority(_ priority: ImageFetchPriority) { operation?.priority = priority }

    func imageFetchOperation(_ operation: ImageFetchOperation, didLoadDirtyPreviewImage result: ImageFetchResult) {
        events.preview()
    }

    func imageFetchOperation(
        _ operation: ImageFetchOperation, didLoadPreviewImage result: ImageFetchResult,
        completion: @escaping @Sendable (ImageFetchPreviewLoadedBehavior) -> Void
    ) {
        events.preview()
        completion(.continueLoading)
    }

    func imageFetchOperation(
        _ operation: ImageFetchOperation, shouldLoadProgressivelyWithIdentifier identifier: String,
        url: URL, imageType: ImageType, originalDimensions: CGSize
    ) -> Bool {
        true
    }

    func imageFetchOperation(
        _ operation: ImageFetchOperation, didUpdateProgressiveImage result: ImageFetchResult, progress: Float
    ) {
        events.progressiveFrame()
    }

    func imageFetchOperation(
        _ operation: ImageFetchOperation, didLoadFirstAnimatedImageFrame result: ImageFetchResult, progress: Float
    ) {
        events.progressiveFrame()
    }

    func imageFetchOperation(_ operation: ImageFetchOperation, didLoadFinalImage result: ImageFetchResult) {
        events.finished(.succeeded(result))
    }

    func imageFetchOperation(_ operation: ImageFetchOperation, didFailToLoadFinalImage error: any Error) {
        events.finished(FetchOutcome(error: error))
    }
}
