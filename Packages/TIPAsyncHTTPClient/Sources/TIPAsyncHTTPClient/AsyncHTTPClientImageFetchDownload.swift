import AsyncHTTPClient
import Foundation
import NIOCore
import NIOHTTP1
import Synchronization
import TIP

#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// A download made by `AsyncHTTPClientImageFetchDownloadProvider`: one AsyncHTTPClient request for the hydrated,
/// authorized request (the steps, cancellation and completion are `LoadingImageFetchDownload`'s). It keeps the
/// provider's own client, if any, alive until it ends.
final class AsyncHTTPClientImageFetchDownload: LoadingImageFetchDownload<AsyncHTTPClientLoad>, @unchecked Sendable {
    private struct Extra {
        var metrics = AsyncHTTPClientImageFetchDownloadMetrics()
        /// Held from creation until the download ends.
        var owner: AsyncHTTPClientOwner?
    }

    private let client: HTTPClient
    private let options: AsyncHTTPClientDownloadOptions
    private let extra: Mutex<Extra>

    init(
        context: any ImageFetchDownloadContext, client: HTTPClient, owner: AsyncHTTPClientOwner?,
        options: AsyncHTTPClientDownloadOptions
    ) {
        self.client = client
        self.options = options
        extra = Mutex(Extra(owner: owner))
        super.init(context: context)
    }

    override var downloadMetrics: (any Sendable)? { extra.withLock { $0.metrics } }

    override func makeLoad(for request: URLRequest) -> Result<AsyncHTTPClientLoad, any Error> {
        guard let url = request.url else { return .failure(URLError(.badURL)) }
        do {
            var headers = HTTPHeaders()
            var hasUserAgent = false
            for (name, value) in request.allHTTPHeaderFields ?? [:] {
                headers.add(name: name, value: value)
                if name.lowercased() == "user-agent" { hasUserAgent = true }
            }
            if !hasUserAgent { headers.add(name: "User-Agent", value: options.userAgent) }
            let made = try HTTPClient.Request(
                url: url, method: HTTPMethod(rawValue: request.httpMethod ?? "GET"), headers: headers,
                body: request.httpBody.map { .data($0) })
            return .success(AsyncHTTPClientLoad(request: made, url: url, options: options, download: self))
        } catch {
            return .failure(AsyncHTTPClientDownloadError.urlError(error, url: url))
        }
    }

    override func startLoad(_ load: AsyncHTTPClientLoad) {
        extra.withLock { $0.metrics.requestStart = Date() }
        load.start(on: client)
    }

    override func stopLoad(_ load: AsyncHTTPClientLoad) {
        load.stop()
    }

    override func downloadDidEnd() {
        // Returned to be released outside the lock (its last reference shuts the provider's own client down).
        _ = extra.withLock { extra -> AsyncHTTPClientOwner? in
            extra.metrics.end = Date()
            defer { extra.owner = nil }
            return extra.owner
        }
    }

    // MARK: - Load events, on the download queue

    func loadDidReceive(_ response: HTTPURLResponse, head: HTTPResponseHead, redirectCount: Int) {
        guard let context = liveContext else { return }
        extra.withLock {
            $0.metrics.responseStart = Date()
            $0.metrics.statusCode = Int(head.status.code)
            $0.metrics.httpVersion = head.version.tipDescription
            $0.metrics.redirectCount = redirectCount
        }
        context.client.download(self, didReceiveResponse: response)
    }

    func loadDidReceive(_ data: Data) {
        guard let context = liveContext else { return }
        extra.withLock { $0.metrics.byteCount += data.count }
        context.client.download(self, didReceiveData: data)
    }

    /// From the load's event loop: reading paused until TIP catches up.
    func loadDidPauseReading() {
        extra.withLock { $0.metrics.readPauseCount += 1 }
    }

    func loadDidComplete(error: (any Error)?) {
        guard liveContext != nil else { return }
        finish(error: error)
    }
}
