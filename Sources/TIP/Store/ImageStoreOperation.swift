import Foundation

/// Stores one request into a pipeline's caches (API map §9), on the configuration's fetch queue: hydration,
/// then the memory, disk and rendered caches, then the stored-image event and the completion on the
/// callback queue. Asynchronous: it finishes after the completion ran.
final class ImageStoreOperation: Operation, DependencyOperation, @unchecked Sendable {
    private struct State {
        var executing = false
        var finished = false
    }

    // `state` guards the flags; the lets are immutable.
    private let state = Locked(State())
    let pipeline: ImagePipeline
    let request: any ImageStoreRequest
    let completion: (@Sendable (Bool, (any Error)?) -> Void)?

    init(pipeline: ImagePipeline, request: any ImageStoreRequest, completion: (@Sendable (Bool, (any Error)?) -> Void)?) {
        self.pipeline = pipeline
        self.request = request
        self.completion = completion
        super.init()
    }

    override var isAsynchronous: Bool { true }
    override var isExecuting: Bool { state.withLock { $0.executing } }
    override var isFinished: Bool { state.withLock { $0.finished } }

    func makeDependencyOfTargetOperation(_ operation: Operation) {
        operation.addDependency(self)
    }

    override func start() {
        willChangeValue(forKey: "isExecuting")
        state.withLock { $0.executing = true }
        didChangeValue(forKey: "isExecuting")
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
        pipeline.configuration.callbackQueue.async {
            completion?(stored, error)
            self.willChangeValue(forKey: "isExecuting")
            self.willChangeValue(forKey: "isFinished")
            self.state.withLock {
                $0.executing = false
                $0.finished = true
            }
            self.didChangeValue(forKey: "isFinished")
            self.didChangeValue(forKey: "isExecuting")
        }
    }
}
