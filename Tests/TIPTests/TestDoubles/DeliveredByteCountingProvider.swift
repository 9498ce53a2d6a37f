import Foundation

@testable import TIP

#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// Wraps a provider and counts the body bytes its downloads hand to the downloader: what a client "took"
/// from a hostile origin. The downloader sees the wrapper as the download and its own context as the context.
final class DeliveredByteCountingProvider: ImageFetchDownloadProvider {
    let inner: any ImageFetchDownloadProvider
    /// Body bytes delivered so far, all downloads together.
    let deliveredByteCount = Locked(0)

    init(_ inner: any ImageFetchDownloadProvider) { self.inner = inner }

    func imageFetchDownload(with context: any ImageFetchDownloadContext) -> any ImageFetchDownload {
        let relay = CountingRelay(context, counter: deliveredByteCount)
        let download = CountedDownload(context: context)
        relay.outer = download
        download.inner = inner.imageFetchDownload(with: relay)
        return download
    }
}

/// The context the inner download sees: reads come from the real context, client calls go to the real client
/// with the wrapper as the download, and data is counted on the way.
private final class CountingRelay: ImageFetchDownloadContext, ImageFetchDownloadClient, @unchecked Sendable {
    // `outer` is set once before the download starts; the rest is immutable.
    let original: any ImageFetchDownloadContext
    let counter: Locked<Int>
    weak var outer: CountedDownload?

    init(_ original: any ImageFetchDownloadContext, counter: Locked<Int>) {
        self.original = original
        self.counter = counter
    }

    var originalRequest: URLRequest { original.originalRequest }
    var hydratedRequest: URLRequest? { original.hydratedRequest }
    var authorization: String? { original.authorization }
    var client: any ImageFetchDownloadClient { self }
    var downloadQueue: DispatchQueue { original.downloadQueue }

    private func relayed(_ download: any ImageFetchDownload) -> any ImageFetchDownload { outer ?? download }

    func downloadDidStart(_ download: any ImageFetchDownload) {
        original.client.downloadDidStart(relayed(download))
    }
    func download(
        _ download: any ImageFetchDownload, hydrateRequest request: URLRequest,
        completion: @escaping @Sendable ((any Error)?) -> Void
    ) {
        original.client.download(relayed(download), hydrateRequest: request, completion: completion)
    }
    func download(
        _ download: any ImageFetchDownload, authorizeRequest request: URLRequest,
        completion: @escaping @Sendable ((any Error)?) -> Void
    ) {
        original.client.download(relayed(download), authorizeRequest: request, completion: completion)
    }
    func download(_ download: any ImageFetchDownload, didReceiveResponse response: HTTPURLResponse) {
        original.client.download(relayed(download), didReceiveResponse: response)
    }
    func download(_ download: any ImageFetchDownload, didReceiveData data: Data) {
        counter.withLock { $0 += data.count }
        original.client.download(relayed(download), didReceiveData: data)
    }
    func download(_ download: any ImageFetchDownload, didCompleteWithError error: (any Error)?) {
        original.client.download(relayed(download), didCompleteWithError: error)
    }
    func downloadWillRetry(_ download: any ImageFetchDownload) {
        original.client.downloadWillRetry(relayed(download))
    }
}

/// The download the downloader holds: forwards to the inner one, reports the downloader's own context.
private final class CountedDownload: ImageFetchDownload, @unchecked Sendable {
    // `inner` is set once before the downloader gets the download; `context` is guarded by its lock.
    var inner: (any ImageFetchDownload)?
    private let contextBox: Locked<(any ImageFetchDownloadContext)?>

    init(context: any ImageFetchDownloadContext) { contextBox = Locked(context) }

    var context: (any ImageFetchDownloadContext)? { contextBox.withLock { $0 } }
    var finalURLRequest: URLRequest? { inner?.finalURLRequest }
    var downloadMetrics: (any Sendable)? { inner?.downloadMetrics }
    var priority: Operation.QueuePriority {
        get { inner?.priority ?? .normal }
        set { inner?.priority = newValue }
    }
    func start() { inner?.start() }
    func cancel(description: String) { inner?.cancel(description: description) }
    func discardContext() {
        contextBox.withLock { $0 = nil }
        inner?.discardContext()
    }
}
