import Foundation
import TIP

/// Fetches through `operation(with:completion:)`.
struct CompletionFetchDriver: FetchDriver {
    func start(_ job: FetchJob, in pipeline: ImagePipeline, events: FetchEvents) -> any FetchHandle {
        let request = job.request
        let operation = pipeline.operation(with: request) { result, error in
            events.finished(result.map { .succeeded($0) } ?? FetchOutcome(error: error))
        }
        pipeline.fetchImage(with: operation)
        return OperationHandle(operation: operation)
    }
}

/// A fetch operation as a handle.
final class OperationHandle: FetchHandle {
    let operation: ImageFetchOperation

    init(operation: ImageFetchOperation) {
        self.operation = operation
    }

    func cancel() { operation.cancel() }

    func changePriority(_ priority: ImageFetchPriority) { operation.priority = priority }
}
