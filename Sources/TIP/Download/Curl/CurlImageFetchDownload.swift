import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// A download made by `CurlImageFetchDownloadProvider`: one libcurl transfer for the hydrated, authorized request.
///
/// Client calls happen on the context's download queue in contract order; hydration and authorization
/// completions may be called from any thread (they hop to the download queue). `cancel(description:)` ends the
/// download with one `ImageFetchError.cancelled` completion, whatever its phase, and nothing it received after
/// the call is delivered. The download keeps its provider's session (and so its thread) alive until it ends.
final class CurlImageFetchDownload: ImageFetchDownload, @unchecked Sendable {
    private enum Phase {
        case idle, preparing, loading(CurlTransfer), completed
    }

    private struct State {
        var context: (any ImageFetchDownloadContext)?
        var phase: Phase = .idle
        var cancelReason: String?
        var finalRequest: URLRequest?
        var priority: Operation.QueuePriority = .normal
        var metrics = CurlImageFetchDownloadMetrics()
        /// Held from creation until completion.
        var session: CurlSession?
    }

    // All mutable state lives in `state` (its own lock); the lets are immutable.
    private let state: Locked<State>
    private let queue: DispatchQueue
    private let options: CurlTransferOptions

    init(context: any ImageFetchDownloadContext, session: CurlSession, options: CurlTransferOptions) {
        state = Locked(State(context: context, session: session))
        queue = context.downloadQueue
        self.options = options
    }

    var context: (any ImageFetchDownloadContext)? { state.withLock { $0.context } }

    var finalURLRequest: URLRequest? { state.withLock { $0.finalRequest } }

    var downloadMetrics: (any Sendable)? { state.withLock { $0.metrics } }

    var priority: Operation.QueuePriority {
        get { state.withLock { $0.priority } }
        set {
            let (transfer, session) = state.withLock { state -> (CurlTransfer?, CurlSession?) in
                state.priority = newValue
                if case .loading(let transfer) = state.phase { return (transfer, state.session) }
                return (nil, nil)
            }
            if let transfer, let loop = session?.loop {
                loop.setWeight(Self.streamWeight(newValue), of: transfer)
            }
        }
    }

    /// Maps TIP's priority (-8...8) onto HTTP/2 stream weights: 1 (very low), 4, 16 (normal, HTTP/2's default),
    /// 64, 256 (very high); each step up gets four times the bandwidth share of the one below.
    static func streamWeight(_ priority: Operation.QueuePriority) -> Int {
        let step = min(4, max(-4, priority.rawValue / 2))
        return 1 << (4 + step)
    }

    func start() {
        queue.async { self.begin() }
    }

    func cancel(description: String) {
        enum Action { case none, finish, cancelTransfer(CurlTransfer) }
        let action = state.withLock { state -> Action in
            if case .completed = state.phase { return .none }
            if state.cancelReason != nil { return .none }
            state.cancelReason = description
            if case .loading(let transfer) = state.phase { return .cancelTransfer(transfer) }
            return .finish
        }
        switch action {
        case .none:
            break
        case .finish:
            queue.async { self.finish(error: ImageFetchError.cancelled(description)) }
        case .cancelTransfer(let transfer):
            // The transfer stops at its next callback; the completion does not wait for libcurl.
            transfer.cancel()
            queue.async { self.finish(error: ImageFetchError.cancelled(description)) }
        }
    }

    func discardContext() {
        let (transfer, _) = state.withLock { state -> (CurlTransfer?, CurlSession?) in
            state.context = nil
            guard case .loading(let transfer) = state.phase else { return (nil, nil) }
            // Nobody is left to hear from a running transfer: it ends here, silently.
            state.phase = .completed
            defer { state.session = nil }
            return (transfer, state.session)
        }
        transfer?.cancel()
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
            if case .preparing = state.phase, state.cancelReason == nil { return true }
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
        let request: URLRequest
        switch ImageFetchDownloadRequestPolicy.loadableRequest(for: context) {
        case .success(let loadable): request = loadable
        case .failure(let refusal): return finish(error: refusal)
        }
        guard let loop = state.withLock({ $0.session?.loop }), let url = request.url,
              let transfer = CurlTransfer(request: request, url: url, options: options,
                                          weight: Self.streamWeight(priority), loop: loop, queue: queue, download: self)
        else {
            return finish(error: URLError(.unknown, userInfo: [
                NSLocalizedDescriptionKey: "libcurl could not make a transfer (out of memory?).",
            ]))
        }
        let started = state.withLock { state -> Bool in
            guard case .preparing = state.phase, state.cancelReason == nil else { return false }
            state.phase = .loading(transfer)
            state.finalRequest = request
            state.metrics.requestStart = Date()
            return true
        }
        // A cancel that raced with us already scheduled its completion.
        guard started else { return }
        loop.add(transfer)
    }

    private func finish(error: (any Error)?) {
        // The session is released outside the lock (its last reference ends the provider's thread).
        let (context, _) = state.withLock { state -> ((any ImageFetchDownloadContext)?, CurlSession?) in
            if case .completed = state.phase { return (nil, nil) }
            state.phase = .completed
            state.metrics.end = Date()
            defer { state.session = nil }
            return (state.context, state.session)
        }
        context?.client.download(self, didCompleteWithError: error)
    }

    /// The context while the download is neither completed nor cancelled.
    private var liveContext: (any ImageFetchDownloadContext)? {
        state.withLock { state in
            if case .completed = state.phase { return nil }
            if state.cancelReason != nil { return nil }
            return state.context
        }
    }

    // MARK: - Transfer events, on the download queue

    func transferDidReceive(_ head: CurlResponseHead, url: URL) {
        guard let context = liveContext, let response = head.makeResponse(url: url) else { return }
        state.withLock {
            $0.metrics.responseStart = Date()
            $0.metrics.statusCode = head.statusCode
        }
        context.client.download(self, didReceiveResponse: response)
    }

    func transferDidReceive(_ data: Data) {
        guard let context = liveContext else { return }
        state.withLock { $0.metrics.byteCount += data.count }
        context.client.download(self, didReceiveData: data)
    }

    func transferDidComplete(error: (any Error)?, metrics: CurlImageFetchDownloadMetrics) {
        guard liveContext != nil else { return }
        state.withLock { state in
            let own = state.metrics
            state.metrics = metrics
            state.metrics.requestStart = own.requestStart
            state.metrics.responseStart = own.responseStart
            state.metrics.byteCount = own.byteCount
            state.metrics.statusCode = own.statusCode
        }
        finish(error: error)
    }
}
