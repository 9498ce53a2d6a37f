import Foundation

extension ImagePipeline {
    /// A new fetch for `request`, reporting to `delegate` (held weakly). Start it with `fetchImage(with:)`.
    public func operation(with request: any ImageFetchRequest, context: (any Sendable)? = nil,
                          delegate: (any ImageFetchDelegate)?) -> ImageFetchOperation {
        ImageFetchOperation(pipeline: self, request: request, context: context, delegate: delegate)
    }

    /// Enqueues `operation` (made by this pipeline) on the configuration's shared fetch queue.
    public func fetchImage(with operation: ImageFetchOperation) {
        precondition(operation.imagePipeline === self, "fetchImage(with:) needs an operation made by this pipeline")
        operation.queuePriority = operation.priority.queuePriority
        operation.markEnqueued()
        configuration.fetchOperationQueue.addOperation(operation)
    }
}
