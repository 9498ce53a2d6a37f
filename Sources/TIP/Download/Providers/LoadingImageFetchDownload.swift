import Foundation

#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// A download that runs TIP's steps and leaves only the loading of bytes to a subclass: subclass it to write a
/// provider that behaves as the shipped ones do (libcurl, URLSession, and AsyncHTTPClient in its own package).
///
/// It makes the client calls up to the load (`didStart`, hydration, authorization), then asks the subclass for a
/// `Load` of the request to send: the hydrated request with the context's `Authorization` applied and
/// `Accept-Encoding: identity`, refused with `ImageFetchError` `invalidRequest` unless it is http or https. It
/// keeps the priority, cancellation and the single completion. A subclass makes, starts and stops its `Load`
/// and reports the load's events through `liveContext` (the response, the data) and `finish(error:)`.
///
/// Client calls happen on the context's download queue in contract order; hydration and authorization
/// completions may be called from any thread (they hop to the download queue). `cancel(description:)` ends the
/// download with one `ImageFetchError.cancelled` completion, whatever its phase, without waiting for the load to
/// stop; nothing the load brings after the call is delivered.
open class LoadingImageFetchDownload<Load: Sendable>: ImageFetchDownload, @unchecked Sendable {
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
    public let queue: DispatchQueue

    /// A download for `context`, idle until `start()`.
    public init(context: any ImageFetchDownloadContext) {
        state = Locked(State(context: context))
        queue = context.downloadQueue
        queue.markIdentity()  // tells `ask(_:then:)` when it runs on `queue`
    }

    /// The context; nil after `discardContext()`.
    public final var context: (any ImageFetchDownloadContext)? { state.withLock { $0.context } }

    /// The request the load was made for (hydrated, authorized); nil before.
    public final var finalURLRequest: URLRequest? { state.withLock { $0.finalRequest } }

    /// Provider metrics; none unless a subclass has some.
    open var downloadMetrics: (any Sendable)? { nil }

    /// The priority; a change while loading reaches `load(_:priorityDidChange:)`.
    public final var priority: Operation.QueuePriority {
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

    /// Begins the steps on the download queue: `didStart`, hydration, authorization, then the load.
    public final func start() {
        queue.async { self.begin() }
    }

    /// Ends the download with one `ImageFetchError.cancelled` completion and stops its load.
    public final func cancel(description: String) {
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

    /// Drops the context; a load still running is stopped and reports nothing more.
    public final func discardContext() {
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
    open func makeLoad(for request: URLRequest) -> Result<Load, any Error> {
        .failure(ImageFetchError(.couldNotDownloadImage, "This download cannot load anything."))
    }

    /// Starts `load`, now the running load, on the download queue.
    open func startLoad(_ load: Load) {}

    /// Stops `load` (running, or made and never started), from any thread.
    open func stopLoad(_ load: Load) {}

    /// The priority changed while `load` runs.
    open func load(_ load: Load, priorityDidChange priority: Operation.QueuePriority) {}

    /// The download ended: completed, or its context discarded while it loaded. Called once.
    open func downloadDidEnd() {}

    // MARK: - For subclasses, on the download queue

    /// The context while the download is neither completed nor cancelled.
    public final var liveContext: (any ImageFetchDownloadContext)? {
        state.withLock { state in
            if case .completed = state.phase { return nil }
            if state.cancelReason != nil { return nil }
            return state.context
        }
    }

    /// Completes the download with `error` (nil: success), once; later calls do nothing.
    public final func finish(error: (any Error)?) {
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
