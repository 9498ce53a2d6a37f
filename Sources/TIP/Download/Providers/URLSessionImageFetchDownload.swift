import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// A download made by `URLSessionImageFetchDownloadProvider`: one data task for the hydrated, authorized request.
///
/// Client calls happen on the context's download queue in contract order; hydration and authorization completions
/// may be called from any thread (they hop to the download queue). `cancel(description:)` ends the download with
/// one `ImageFetchError.cancelled` completion, whatever its phase.
final class URLSessionImageFetchDownload: ImageFetchDownload, @unchecked Sendable {
    private enum Phase {
        case idle, preparing, loading(URLSessionDataTask), completed
    }

    private struct State {
        var context: (any ImageFetchDownloadContext)?
        var phase: Phase = .idle
        var cancelReason: String?
        var refusedRedirectStatus: Int?
        var reportedResponse = false
        var finalRequest: URLRequest?
        var priority: Operation.QueuePriority = .normal
        var metrics = URLSessionImageFetchDownloadMetrics()
    }

    // All mutable state lives in `state` (its own lock); the lets are immutable.
    private let state: Locked<State>
    private let queue: DispatchQueue
    /// Kept alive by its downloads: the provider invalidates its session when it goes away.
    private let provider: URLSessionImageFetchDownloadProvider

    init(context: any ImageFetchDownloadContext, provider: URLSessionImageFetchDownloadProvider) {
        state = Locked(State(context: context))
        queue = context.downloadQueue
        self.provider = provider
    }

    var context: (any ImageFetchDownloadContext)? { state.withLock { $0.context } }

    var finalURLRequest: URLRequest? { state.withLock { $0.finalRequest } }

    var downloadMetrics: (any Sendable)? { state.withLock { $0.metrics } }

    var priority: Operation.QueuePriority {
        get { state.withLock { $0.priority } }
        set {
            let task = state.withLock { state -> URLSessionDataTask? in
                state.priority = newValue
                if case .loading(let task) = state.phase { return task }
                return nil
            }
            task?.priority = Self.taskPriority(newValue)
        }
    }

    /// Maps TIP's priority (-8...8) onto URLSession's 0...1 (normal = 0.5, the task default).
    static func taskPriority(_ priority: Operation.QueuePriority) -> Float {
        min(1, max(0, Float(priority.rawValue + 8) / 16))
    }

    func start() {
        queue.async { self.begin() }
    }

    func cancel(description: String) {
        enum Action { case none, finish, cancelTask(URLSessionDataTask) }
        let action = state.withLock { state -> Action in
            if case .completed = state.phase { return .none }
            if state.cancelReason != nil { return .none }
            state.cancelReason = description
            if case .loading(let task) = state.phase { return .cancelTask(task) }
            return .finish
        }
        switch action {
        case .none: break
        case .finish: queue.async { self.finish(error: ImageFetchError.cancelled(description)) }
        case .cancelTask(let task): task.cancel()
        }
    }

    func discardContext() {
        let task = state.withLock { state -> URLSessionDataTask? in
            state.context = nil
            if case .loading(let task) = state.phase { return task }
            return nil
        }
        // Nobody is left to hear from a running task.
        task?.cancel()
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
        client.download(self, hydrateRequest: context.originalRequest) { error in
            self.queue.async { self.hydrationDidComplete(error) }
        }
    }

    private var isPreparing: Bool {
        state.withLock { state in
            if case .preparing = state.phase { return true }
            return false
        }
    }

    private func hydrationDidComplete(_ error: (any Error)?) {
        guard isPreparing, let context else { return }
        if let error { return finish(error: error) }
        let request = context.hydratedRequest ?? context.originalRequest
        context.client.download(self, authorizeRequest: request) { error in
            self.queue.async { self.authorizationDidComplete(error) }
        }
    }

    private func authorizationDidComplete(_ error: (any Error)?) {
        guard isPreparing, let context else { return }
        if let error { return finish(error: error) }
        var request = context.hydratedRequest ?? context.originalRequest
        if let authorization = context.authorization {
            request.setValue(authorization, forHTTPHeaderField: "Authorization")
        }
        guard URLSessionImageFetchDownloadRouter.isHTTP(request.url) else {
            let url = request.url?.absoluteString ?? "(no URL)"
            return finish(error: ImageFetchError(
                .invalidRequest, "Cannot download \(url): only http and https URLs can be downloaded."))
        }
        let task = provider.session.dataTask(with: request)
        provider.router.register(task, for: self)
        let started = state.withLock { state -> Bool in
            guard case .preparing = state.phase, state.cancelReason == nil else { return false }
            state.phase = .loading(task)
            state.finalRequest = request
            state.metrics.requestStart = Date()
            task.priority = Self.taskPriority(state.priority)
            return true
        }
        // A cancel that raced with us already scheduled its completion; the task completes silently.
        guard started else { return task.cancel() }
        task.resume()
    }

    private func finish(error: (any Error)?) {
        let context = state.withLock { state -> (any ImageFetchDownloadContext)? in
            if case .completed = state.phase { return nil }
            state.phase = .completed
            state.metrics.end = Date()
            return state.context
        }
        context?.client.download(self, didCompleteWithError: error)
    }

    /// The context while the download is not completed.
    private var liveContext: (any ImageFetchDownloadContext)? {
        state.withLock { state in
            if case .completed = state.phase { return nil }
            if state.refusedRedirectStatus != nil { return nil }
            return state.context
        }
    }

    // MARK: - Task events, from the session's delegate queue

    func taskDidReceive(_ response: URLResponse) {
        queue.async {
            guard let context = self.liveContext, let http = response as? HTTPURLResponse else { return }
            self.report(http, to: context)
        }
    }

    /// Hands the response to the client once (on the download queue).
    private func report(_ response: HTTPURLResponse, to context: any ImageFetchDownloadContext) {
        let first = state.withLock { state -> Bool in
            guard !state.reportedResponse else { return false }
            state.reportedResponse = true
            state.metrics.responseStart = Date()
            state.metrics.statusCode = response.statusCode
            return true
        }
        if first { context.client.download(self, didReceiveResponse: response) }
    }

    func taskDidReceive(_ data: Data) {
        queue.async {
            guard let context = self.liveContext else { return }
            self.state.withLock { $0.metrics.byteCount += data.count }
            context.client.download(self, didReceiveData: data)
        }
    }

    /// The redirect was refused: the task then ends with the redirect response itself, which stays unreported.
    /// (Cancelling the task inside the redirect callback crashes FoundationNetworking.)
    func taskRefusedRedirect(status: Int) {
        state.withLock { $0.refusedRedirectStatus = status }
    }

    func taskDidComplete(error: (any Error)?, response: URLResponse?) {
        queue.async {
            let (reason, refused) = self.state.withLock { ($0.cancelReason, $0.refusedRedirectStatus) }
            if let refused {
                return self.finish(error: ImageFetchError(
                    .httpTransactionError,
                    "The server redirected (HTTP \(refused)) to a non-HTTP URL; the redirect was refused. "
                        + "Fix the image URL or the server's Location header.",
                    httpStatusCode: refused))
            }
            if let reason, error != nil { return self.finish(error: ImageFetchError.cancelled(reason)) }
            // FoundationNetworking ends a redirect it cannot follow (no or an unparsable Location) without
            // reporting its response: report it now, so the origin's status is the error, not the contract.
            if error == nil, let http = response as? HTTPURLResponse, let context = self.liveContext {
                self.report(http, to: context)
            }
            self.finish(error: error)
        }
    }
}
