import Foundation
import Testing

@testable import TIP

/// Records every callback of a fetch in order, checking the contract as it goes.
final class HarnessFetchDelegate: ImageFetchDelegate {
    enum Event: Equatable, Sendable {
        case start, scan, firstFrame
        case final(ImageLoadSource)
        case failure(Int)
    }

    let wantsScans: Bool
    /// Cancels the fetch from the progress callback once progress reaches this (no test-side polling).
    let cancelAtProgress: Float?
    let events = Locked<[Event]>([])
    let progress = Locked<[Float]>([])
    let final = Locked<ImageFetchResult?>(nil)
    let failure = Locked<(any Error)?>(nil)

    init(wantsScans: Bool, cancelAtProgress: Float? = nil) {
        self.wantsScans = wantsScans
        self.cancelAtProgress = cancelAtProgress
    }

    var handlesProgressiveLoading: Bool { true }
    var handlesFirstAnimatedFrame: Bool { true }

    func imageFetchOperationDidStart(_ operation: ImageFetchOperation) { events.withLock { $0.append(.start) } }
    func imageFetchOperation(
        _ operation: ImageFetchOperation, shouldLoadProgressivelyWithIdentifier identifier: String,
        url: URL, imageType: ImageType, originalDimensions: CGSize
    ) -> Bool {
        wantsScans
    }
    func imageFetchOperation(
        _ operation: ImageFetchOperation, didUpdateProgressiveImage result: ImageFetchResult, progress: Float
    ) {
        #expect(progress > 0 && progress < 1)
        #expect(result.imageContainer.dimensions == HarnessImage.expected)
        events.withLock { $0.append(.scan) }
    }
    func imageFetchOperation(
        _ operation: ImageFetchOperation, didLoadFirstAnimatedImageFrame result: ImageFetchResult, progress: Float
    ) {
        #expect(progress > 0 && progress < 1)
        events.withLock { $0.append(.firstFrame) }
    }
    func imageFetchOperation(_ operation: ImageFetchOperation, didUpdateProgress progress: Float) {
        self.progress.withLock { $0.append(progress) }
        if let cancelAtProgress, progress >= cancelAtProgress { operation.cancel() }
    }
    func imageFetchOperation(_ operation: ImageFetchOperation, didLoadFinalImage result: ImageFetchResult) {
        final.withLock { $0 = result }
        events.withLock { $0.append(.final(result.imageSource)) }
    }
    func imageFetchOperation(_ operation: ImageFetchOperation, didFailToLoadFinalImage error: any Error) {
        failure.withLock { $0 = error }
        events.withLock { $0.append(.failure((error as? ImageFetchError)?.errorCode ?? 0)) }
    }

    /// Exactly one terminal callback, last; progress never went backwards.
    func checkContract(sourceLocation: SourceLocation = #_sourceLocation) {
        let events = self.events.withLock { $0 }
        let terminal = events.filter {
            if case .final = $0 { return true }; if case .failure = $0 { return true }; return false
        }
        #expect(terminal.count == 1, "\(events)", sourceLocation: sourceLocation)
        #expect(events.last == terminal.first, "\(events)", sourceLocation: sourceLocation)
        let progress = self.progress.withLock { $0 }
        #expect(
            zip(progress, progress.dropFirst()).allSatisfy { $0 <= $1 }, "\(progress)", sourceLocation: sourceLocation)
    }
}
