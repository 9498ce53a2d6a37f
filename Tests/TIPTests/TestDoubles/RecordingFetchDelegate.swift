import Foundation
import Testing

@testable import TIP

/// Records a fetch's callbacks in order.
final class RecordingFetchDelegate: ImageFetchDelegate {
    enum Event: Equatable, Sendable {
        case dirtyPreview, start
        case attempt(ImageLoadSource)
        case preview(ImageLoadSource)
        case progress
        case final(ImageLoadSource)
        case failure(Int)
    }

    let events = Locked<[Event]>([])
    let previewAnswer: ImageFetchPreviewLoadedBehavior?
    let final = Locked<ImageFetchResult?>(nil)
    let failure = Locked<(any Error)?>(nil)

    init(previewAnswer: ImageFetchPreviewLoadedBehavior? = nil) { self.previewAnswer = previewAnswer }

    var wantsSourceAttemptCallbacks: Bool { true }
    var handlesPreviews: Bool { previewAnswer != nil }

    func imageFetchOperationDidStart(_ operation: ImageFetchOperation) { events.withLock { $0.append(.start) } }
    func imageFetchOperation(_ operation: ImageFetchOperation, didLoadDirtyPreviewImage result: ImageFetchResult) {
        events.withLock { $0.append(.dirtyPreview) }
    }
    func imageFetchOperation(_ operation: ImageFetchOperation, willAttemptToLoadFrom source: ImageLoadSource) {
        events.withLock { $0.append(.attempt(source)) }
    }
    func imageFetchOperation(
        _ operation: ImageFetchOperation, didLoadPreviewImage result: ImageFetchResult,
        completion: @escaping @Sendable (ImageFetchPreviewLoadedBehavior) -> Void
    ) {
        events.withLock { $0.append(.preview(result.imageSource)) }
        completion(previewAnswer ?? .continueLoading)
    }
    func imageFetchOperation(_ operation: ImageFetchOperation, didUpdateProgress progress: Float) {
        events.withLock { if $0.last != .progress { $0.append(.progress) } }
    }
    func imageFetchOperation(_ operation: ImageFetchOperation, didLoadFinalImage result: ImageFetchResult) {
        final.withLock { $0 = result }
        events.withLock { $0.append(.final(result.imageSource)) }
    }
    func imageFetchOperation(_ operation: ImageFetchOperation, didFailToLoadFinalImage error: any Error) {
        failure.withLock { $0 = error }
        events.withLock { $0.append(.failure((error as? ImageFetchError)?.errorCode ?? 0)) }
    }
}
