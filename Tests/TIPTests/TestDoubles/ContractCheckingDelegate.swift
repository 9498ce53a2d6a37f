import Foundation
import Testing

@testable import TIP

/// Checks one fetch's callbacks against the delegate contract as they arrive.
final class ContractCheckingDelegate: ImageFetchDelegate {
    struct Record: Sendable {
        var started = 0
        var terminals = 0
        var succeeded = false
        var cancelled = false
        var finishedBeforeTerminal = false
        var eventAfterTerminal = false
        var progressWentBack = false
        var lastProgress: Float = 0
        var wasOffCallbackQueue = false
    }

    let record = Locked(Record())
    private let configuration: GlobalConfiguration

    init(configuration: GlobalConfiguration) { self.configuration = configuration }

    var handlesProgressiveLoading: Bool { true }
    var handlesFirstAnimatedFrame: Bool { true }

    private func note(_ body: (inout Record) -> Void) {
        let onQueue = configuration.isOnCallbackQueue
        record.withLock { record in
            if !onQueue { record.wasOffCallbackQueue = true }
            if record.terminals > 0 { record.eventAfterTerminal = true }
            body(&record)
        }
    }

    func imageFetchOperationDidStart(_ operation: ImageFetchOperation) { note { $0.started += 1 } }
    func imageFetchOperation(
        _ operation: ImageFetchOperation, shouldLoadProgressivelyWithIdentifier identifier: String,
        url: URL, imageType: ImageType, originalDimensions: CGSize
    ) -> Bool { true }
    func imageFetchOperation(_ operation: ImageFetchOperation, didUpdateProgress progress: Float) {
        note { record in
            if progress < record.lastProgress && progress != 0 { record.progressWentBack = true }
            record.lastProgress = progress
        }
    }
    func imageFetchOperation(
        _ operation: ImageFetchOperation, didUpdateProgressiveImage result: ImageFetchResult, progress: Float
    ) {
        note { _ in }
    }
    func imageFetchOperation(
        _ operation: ImageFetchOperation, didLoadFirstAnimatedImageFrame result: ImageFetchResult, progress: Float
    ) {
        note { _ in }
    }
    func imageFetchOperation(_ operation: ImageFetchOperation, didLoadFinalImage result: ImageFetchResult) {
        let finished = operation.isFinished
        note { record in
            record.terminals += 1
            record.succeeded = true
            if finished { record.finishedBeforeTerminal = true }
        }
    }
    func imageFetchOperation(_ operation: ImageFetchOperation, didFailToLoadFinalImage error: any Error) {
        let finished = operation.isFinished
        let cancelled = (error as? ImageFetchError)?.code == .cancelled
        note { record in
            record.terminals += 1
            record.cancelled = cancelled
            if finished { record.finishedBeforeTerminal = true }
        }
    }
}
