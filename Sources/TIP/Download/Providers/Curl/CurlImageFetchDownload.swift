import Foundation

#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// A download made by `CurlImageFetchDownloadProvider`: one libcurl transfer for the hydrated, authorized request
/// (the steps, cancellation and completion are `LoadingImageFetchDownload`'s). It keeps its provider's session,
/// and so the session's thread, alive until it ends.
final class CurlImageFetchDownload: LoadingImageFetchDownload<CurlTransfer>, @unchecked Sendable {
    private struct Extra {
        var metrics = CurlImageFetchDownloadMetrics()
        /// Held from creation until the download ends.
        var session: CurlSession?
    }

    // `extra` is guarded by its own lock; `options` is immutable.
    private let extra: Locked<Extra>
    private let options: CurlTransferOptions

    init(context: any ImageFetchDownloadContext, session: CurlSession, options: CurlTransferOptions) {
        extra = Locked(Extra(session: session))
        self.options = options
        super.init(context: context)
    }

    override var downloadMetrics: (any Sendable)? { extra.withLock { $0.metrics } }

    /// Maps TIP's priority (-8...8) onto HTTP/2 stream weights: 1 (very low), 4, 16 (normal, HTTP/2's default),
    /// 64, 256 (very high); each step up gets four times the bandwidth share of the one below. Over HTTP/1.1
    /// the weight has no effect.
    static func streamWeight(_ priority: Operation.QueuePriority) -> Int {
        let step = min(4, max(-4, priority.rawValue / 2))
        return 1 << (4 + step)
    }

    private var loop: CurlMultiLoop? { extra.withLock { $0.session?.loop } }

    override func makeLoad(for request: URLRequest) -> Result<CurlTransfer, any Error> {
        // A connection address that cannot be used fails the download rather than resolve the host after all.
        if let address = options.connectAddress, let url = request.url,
            CurlTransfer.connectToEntry(url: url, address: address) == nil
        {
            return .failure(
                URLError(
                    .cannotConnectToHost,
                    userInfo: [
                        NSLocalizedDescriptionKey:
                            "connectAddress gave \"\(address)\" for \(url.absoluteString), which is not an IP address."
                    ]))
        }
        guard let loop, let url = request.url,
            let transfer = CurlTransfer(
                request: request, url: url, options: options,
                weight: Self.streamWeight(priority), loop: loop, queue: queue, download: self)
        else {
            return .failure(
                URLError(
                    .unknown,
                    userInfo: [
                        NSLocalizedDescriptionKey: "libcurl could not make a transfer (out of memory?)."
                    ]))
        }
        return .success(transfer)
    }

    override func startLoad(_ transfer: CurlTransfer) {
        extra.withLock { $0.metrics.requestStart = Date() }
        loop?.add(transfer)
    }

    override func stopLoad(_ transfer: CurlTransfer) {
        // The transfer stops at its next callback; the completion does not wait for libcurl.
        transfer.cancel()
    }

    override func load(_ transfer: CurlTransfer, priorityDidChange priority: Operation.QueuePriority) {
        loop?.setWeight(Self.streamWeight(priority), of: transfer)
    }

    override func downloadDidEnd() {
        // Returned to be released outside the lock (its last reference ends the provider's thread).
        _ = extra.withLock { extra -> CurlSession? in
            extra.metrics.end = Date()
            defer { extra.session = nil }
            return extra.session
        }
    }

    // MARK: - Transfer events, on the download queue

    func transferDidReceive(_ head: CurlResponseHead, url: URL) {
        guard let context = liveContext, let response = head.makeResponse(url: url) else { return }
        extra.withLock {
            $0.metrics.responseStart = Date()
            $0.metrics.statusCode = head.statusCode
        }
        context.client.download(self, didReceiveResponse: response)
    }

    func transferDidReceive(_ data: Data) {
        guard let context = liveContext else { return }
        extra.withLock { $0.metrics.byteCount += data.count }
        context.client.download(self, didReceiveData: data)
    }

    func transferDidComplete(error: (any Error)?, metrics: CurlImageFetchDownloadMetrics) {
        guard liveContext != nil else { return }
        extra.withLock { extra in
            let own = extra.metrics
            extra.metrics = metrics
            extra.metrics.requestStart = own.requestStart
            extra.metrics.responseStart = own.responseStart
            extra.metrics.byteCount = own.byteCount
            extra.metrics.statusCode = own.statusCode
        }
        finish(error: error)
    }
}
