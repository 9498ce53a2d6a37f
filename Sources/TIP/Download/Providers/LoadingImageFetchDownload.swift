import Foundation

#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// What the shipped providers' downloads share, whatever loads the bytes (a URLSession task, a libcurl
/// transfer): the phases, the client calls up to the load (`didStart`, hydration, authorization, the request
/// `ImageFetchDownloadRequestPolicy` allows), priority, cancellation and the single completion. A subclass makes,
/// starts and stops its `Load`, and reports the load's events through `liveContext` and `finish(error:)`.
///
/// Client calls happen on the context's download queue in contract order; hydration and authorization
/// completions may be called from any thread (they hop to the download queue). `cancel(description:)` ends the
/// download with one `ImageFetchError.cancelled` completion, whatever its phase, without waiting for the load to
/// stop; nothing the load brings after the call is delivered.
class LoadingImageFetchDownload<Load: Sendable>: ImageFetchDownload, @unchecked Sendable {
    private enum Phase {
        case idle, preparing
        case loading(Load)
        case completed
    }

    private struct State {
        var context: (any ImageFetchDownloadContext)?
        var phase: Phase = .idle
        var cancelReason: String?
        var finalRequest: URLRequest?
        var priority: Operation.QueuePriority = .normal
    }

    // All mutable state lives in `state` (its own lock).
    private let state: Locked<State>
    /// The context's download queue: every client call happens there.
    let queue: DispatchQueue

    init(context: any ImageFetchDownloadContext) {
        state = Locked(State(context: context))
        queue = context.downloadQueue
        queue.markIdentity()  // tells `ask(_:then:)` when it runs on `queue`
    }

    final var context: (any ImageFetchDownloadContext)? { state.withLock { $0.context } }

    final var finalURLRequest: URLRequest? { state.withLock { $0.finalRequest } }

    /// Provider metrics; none unless a subclass has some.
    var downloadMetrics: (any Sendable)? { nil }

    final var priority: Operation.QueuePriority {
        get { state.withLock { $0.priority } }
        set {
            let load = state.withLock { state -> Load? in
                state.priority = newValue
                if case .loading(let load) = state.phase { return load }
                return nil
            }
            if let load { self.load(load, priorityDidChange: newValue) }
        }
    }

    final func start() {
        queue.async { self.begin() }
    }

    final func cancel(description: String) {
        let load = state.withLock { state -> Load?? in
            if case .completed = state.phase { return nil }
            if state.cancelReason != nil { return nil }
            state.cancelReason = description
            if case .loading(let load) = state.phase { return .some(load) }
            return .some(nil)
        }
        guard let load else { return }
        // Queued before the load is stopped, so that the load's own end (queued by the stop) comes after it.
        queue.async { self.finish(error: ImageFetchError.cancelled(description)) }
        if let load { stopLoad(load) }
    }

    final func discardContext() {
        let load = state.withLock { state -> Load? in
            state.context = nil
            guard case .loading(let load) = state.phase else { return nil }
            // Nobody is left to hear from a running load: it ends here, silently.
            state.phase = .completed
            return load
        }
        guard let load else { return }
        stopLoad(load)
        downloadDidEnd()
    }

    // MARK: - What a subclass provides

    /// A load for `request` (authorized, http or https), made on the download queue; a failure completes the
    /// download with that error.
    func makeLoad(for request: URLRequest) -> Result<Load, any Error> {
        .failure(ImageFetchError(.couldNotDownloadImage, "This download cannot load anything."))
    }

    /// Starts `load`, now the running load, on the download queue.
    func startLoad(_ load: Load) {}

    /// Stops `load` (running, or made and never started), from any thread.
    func stopLoad(_ load: Load) {}

    /// The priority changed while `load` runs.
    func load(_ load: Load, priorityDidChange priority: Operation.QueuePriority) {}

    /// The download ended: completed, or its context discarded while it loaded. Called once.
    func downloadDidEnd() {}

    // MARK: - For subclasses, on the download queue

    /// The context while the download is neither completed nor cancelled.
    final var liveContext: (any ImageFetchDownloadContext)? {
        state.withLock { state in
            if case .completed = state.phase { return nil }
            if state.cancelReason != nil { return nil }
            return state.context
        }
    }

    /// Completes the download with `error` (nil: success), once; later calls do nothing.
    final func finish(error: (any Error)?) {
        let (ended, context) = state.withLock { state -> (Bool, (any ImageFetchDownloadContext)?) in
            if case .completed = state.phase { return (false, nil) }
            state.phase = .completed
            return (true, state.context)
        }
        guard ended else { return }
        downloadDidEnd()
        context?.client.download(self, didCompleteWithError: error)
    }

    // MARK: - Steps, on the download queue

    private func begin() {
        let context = state.withLock { state -> (any ImageFetchDownloadContext)? in
            guard case .idle = state.phase, state.cancelReason == nil else { return nil }
            state.phase = .preparing
            return state.context
        }
        guard let context else { return }
        let client = context.client
        client.downloadDidStart(self)
        guard isPreparing else { return }
        ask(
            { client.download(self, hydrateRequest: context.originalRequest, completion: $0) },
            then: { self.hydrationDidComplete($0) })
    }

    /// Makes a client call whose `completion` may come at once (inside the call), later on the download queue,
    /// or later from another thread, and continues with `next` on the download queue: after the call returns,
    /// at once when already on the queue, else after a hop (each hop is a thread wake-up per download).
    private func ask(
        _ call: (@escaping @Sendable ((any Error)?) -> Void) -> Void,
        then next: @escaping @Sendable ((any Error)?) -> Void
    ) {
        let synchronous = Locked<(isInCall: Bool, result: (any Error)??)>((true, nil))
        let queue = self.queue
        call { error in
            let isLate = synchronous.withLock { state -> Bool in
                guard state.isInCall else { return true }
                state.result = .some(error)
                return false
            }
            guard isLate else { return }
            if queue.isCurrent {
                next(error)
            } else {
                queue.async { next(error) }
            }
        }
        let result = synchronous.withLock { state -> (any Error)?? in
            state.isInCall = false
            return state.result
        }
        if let result { next(result) }
    }

    private var isPreparing: Bool {
        state.withLock { state in
            if case .preparing = state.phase, state.cancelReason == nil { return true }
            return false
        }
    }

    private func hydrationDidComplete(_ error: (any Error)?) {
        guard isPreparing, let context else { return }
        if let error { return finish(error: error) }
        let request = context.hydratedRequest ?? context.originalRequest
        let client = context.client
        ask(
            { client.download(self, authorizeRequest: request, completion: $0) },
            then: { self.authorizationDidComplete($0) })
    }

    private func authorizationDidComplete(_ error: (any Error)?) {
        guard isPreparing, let context else { return }
        if let error { return finish(error: error) }
        let made = ImageFetchDownloadRequestPolicy.loadableRequest(for: context)
            .mapError { $0 as any Error }
            .flatMap { request in makeLoad(for: request).map { (request, $0) } }
        let (request, load): (URLRequest, Load)
        switch made {
        case .success(let loading): (request, load) = loading
        case .failure(let error): return finish(error: error)
        }
        let started = state.withLock { state -> Bool in
            guard case .preparing = state.phase, state.cancelReason == nil else { return false }
            state.phase = .loading(load)
            state.finalRequest = request
            return true
        }
        // A cancel that raced with us already scheduled its completion.
        guard started else { return stopLoad(load) }
        startLoad(load)
    }
}
