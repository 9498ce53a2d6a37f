import Foundation

#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// A download made by `URLSessionImageFetchDownloadProvider`: one data task for the hydrated, authorized request
/// (the steps, cancellation and completion are `LoadingImageFetchDownload`'s). Task events arrive on the
/// session's work queue (its delegate queue runs them inline) and hop to the download queue.
final class URLSessionImageFetchDownload: LoadingImageFetchDownload<URLSessionDataTask>, @unchecked Sendable {
    private struct Extra {
        var refusedRedirectStatus: Int?
        var reportedResponse = false
        var metrics = URLSessionImageFetchDownloadMetrics()
    }

    // `extra` is guarded by its own lock.
    private let extra = Locked(Extra())
    /// Kept alive by its downloads: the provider invalidates its session when it goes away.
    private let provider: URLSessionImageFetchDownloadProvider

    init(context: any ImageFetchDownloadContext, provider: URLSessionImageFetchDownloadProvider) {
        self.provider = provider
        super.init(context: context)
    }

    override var downloadMetrics: (any Sendable)? { extra.withLock { $0.metrics } }

    /// Maps TIP's priority (-8...8) onto URLSession's 0...1 (normal = 0.5, the task default).
    static func taskPriority(_ priority: Operation.QueuePriority) -> Float {
        min(1, max(0, Float(priority.rawValue + 8) / 16))
    }

    override func makeLoad(for request: URLRequest) -> Result<URLSessionDataTask, any Error> {
        let task = provider.session.dataTask(with: request)
        task.priority = Self.taskPriority(priority)
        provider.router.register(task, for: self)
        return .success(task)
    }

    override func startLoad(_ task: URLSessionDataTask) {
        extra.withLock { $0.metrics.requestStart = Date() }
        task.resume()
    }

    override func stopLoad(_ task: URLSessionDataTask) {
        task.cancel()
    }

    override func load(_ task: URLSessionDataTask, priorityDidChange priority: Operation.QueuePriority) {
        task.priority = Self.taskPriority(priority)
    }

    override func downloadDidEnd() {
        extra.withLock { $0.metrics.end = Date() }
    }

    /// The context while the download is live and no redirect was refused.
    private var reportingContext: (any ImageFetchDownloadContext)? {
        extra.withLock { $0.refusedRedirectStatus } == nil ? liveContext : nil
    }

    // MARK: - Task events, from the session's work queue

    func taskDidReceive(_ response: URLResponse) {
        queue.async {
            // FoundationNetworking reports interim responses (100, 102, 103) as responses too: the final one follows.
            guard let context = self.reportingContext, let http = response as? HTTPURLResponse,
                !(100..<200).contains(http.statusCode)
            else { return }
            self.report(http, to: context)
        }
    }

    /// Hands the response to the client once (on the download queue).
    private func report(_ response: HTTPURLResponse, to context: any ImageFetchDownloadContext) {
        let first = extra.withLock { extra -> Bool in
            guard !extra.reportedResponse else { return false }
            extra.reportedResponse = true
            extra.metrics.responseStart = Date()
            extra.metrics.statusCode = response.statusCode
            return true
        }
        if first { context.client.download(self, didReceiveResponse: response) }
    }

    func taskDidReceive(_ data: Data) {
        queue.async {
            guard let context = self.reportingContext else { return }
            self.extra.withLock { $0.metrics.byteCount += data.count }
            context.client.download(self, didReceiveData: data)
        }
    }

    /// The redirect was refused: the task then ends with the redirect response itself, which stays unreported.
    /// (Cancelling the task inside the redirect callback crashes FoundationNetworking.)
    func taskRefusedRedirect(status: Int) {
        extra.withLock { $0.refusedRedirectStatus = status }
    }

    func taskDidComplete(error: (any Error)?, response: URLResponse?) {
        queue.async {
            if let refused = self.extra.withLock({ $0.refusedRedirectStatus }) {
                return self.finish(
                    error: ImageFetchError(
                        .httpTransactionError,
                        "The server redirected (HTTP \(refused)) to a non-HTTP URL; the redirect was refused. "
                            + "Fix the image URL or the server's Location header.",
                        httpStatusCode: refused))
            }
            // FoundationNetworking ends a redirect it cannot follow (no or an unparsable Location) without
            // reporting its response: report it now, so the origin's status is the error, not the contract.
            if error == nil, let http = response as? HTTPURLResponse, !(100..<200).contains(http.statusCode),
                let context = self.reportingContext
            {
                self.report(http, to: context)
            }
            self.finish(error: error)
        }
    }
}
