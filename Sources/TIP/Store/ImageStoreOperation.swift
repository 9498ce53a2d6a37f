import Foundation

/// Stores one request into a pipeline's caches, on the configuration's fetch queue: hydration,
/// then the memory, disk and rendered caches, then the stored-image event and the completion on the
/// callback queue (or, for `async` callers, on the queue the store ended on). Asynchronous: it finishes after the
/// completion ran.
final class ImageStoreOperation: Operation, AsynchronousOperation, DependencyOperation, @unchecked Sendable {
    /// Where the store is.
    private enum Phase { case ready, executing, finished }

    // `phase` has its own lock; the lets are immutable.
    private let phase = Locked(Phase.ready)
    /// Holds the pipeline until the operation goes away (the `async` API waits for its release).
    let pipelineHold: PipelineHold
    var pipeline: ImagePipeline { pipelineHold.pipeline }
    let request: any ImageStoreRequest
    let completion: (@Sendable (Bool, (any Error)?) -> Void)?
    /// Whether `completion` runs where the store ended instead of on the callback queue.
    let deliversOnOwnQueue: Bool

    init(
        pipeline: ImagePipeline, request: any ImageStoreRequest, deliversOnOwnQueue: Bool = false,
        completion: (@Sendable (Bool, (any Error)?) -> Void)?
    ) {
        self.pipelineHold = PipelineHold(pipeline)
        self.request = request
        self.deliversOnOwnQueue = deliversOnOwnQueue
        self.completion = completion
        super.init()
    }

    override var isAsynchronous: Bool { true }
    override var isExecuting: Bool { phase.withLock { $0 == .executing } }
    override var isFinished: Bool { phase.withLock { $0 == .finished } }

    func makeDependencyOfTargetOperation(_ operation: Operation) {
        operation.addDependency(self)
    }

    override func start() {
        transition(executing: true, finished: false) { phase.withLock { $0 = .executing } }
        guard let hydrater = request.hydrater else { return store(request) }
        hydrater.hydrate(request, pipeline: pipeline) { hydrated, error in
            if let error { return self.finish(false, error) }
            self.store(hydrated ?? self.request)
        }
    }

    private func store(_ request: any ImageStoreRequest) {
        do {
            try ImageStoreWriter(pipeline: pipeline, request: request).write()
            finish(true, nil)
        } catch {
            finish(false, error)
        }
    }

    private func finish(_ stored: Bool, _ error: (any Error)?) {
        let completion = self.completion
        let end: @Sendable () -> Void = {
            completion?(stored, error)
            self.transition(executing: true, finished: true) { self.phase.withLock { $0 = .finished } }
        }
        if deliversOnOwnQueue { end() } else { pipeline.configuration.dispatchToCallbackQueue(end) }
    }
}
