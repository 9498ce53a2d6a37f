import Foundation

@testable import TIP

#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// A download provider driven without the downloader: every URL through the provider's own downloads, with a
/// minimal client on one serial queue (hydration and authorization answered at once), starting the next URL as
/// each one ends so that `concurrency` are in flight. Tells the provider's cost apart from the downloader's.
final class ProviderLoop: @unchecked Sendable {
    // Everything mutable is touched on `queue` only.
    private let provider: any ImageFetchDownloadProvider
    private let concurrency: Int
    private let queue = DispatchQueue(label: "tip-bench.provider-loop")
    private var next = 0
    private var urls: [URL] = []
    private var expected: [Int] = []
    private var tally: DownloadTally?

    init(provider: any ImageFetchDownloadProvider, concurrency: Int) {
        self.provider = provider
        self.concurrency = concurrency
    }

    /// Downloads every URL once; throws unless each answered 200 with exactly its expected byte count.
    func run(urls: [URL], expectedByteCounts: [Int]) throws {
        let tally = DownloadTally()
        for _ in urls { tally.enter() }
        queue.sync {
            self.urls = urls
            expected = expectedByteCounts
            next = 0
            self.tally = tally
            for _ in 0..<min(concurrency, urls.count) { startNext() }
        }
        try tally.wait(expecting: urls.count)
    }

    /// On `queue`.
    private func startNext() {
        guard next < urls.count, let tally else { return }
        let index = next
        next += 1
        let client = Client(expected: expected[index], tally: tally) { [self] in startNext() }
        let context = Context(url: urls[index], client: client, queue: queue)
        provider.imageFetchDownload(with: context).start()
    }

    private final class Context: ImageFetchDownloadContext, @unchecked Sendable {
        let originalRequest: URLRequest
        var hydratedRequest: URLRequest? { originalRequest }
        var authorization: String? { nil }
        let client: any ImageFetchDownloadClient
        let downloadQueue: DispatchQueue

        init(url: URL, client: any ImageFetchDownloadClient, queue: DispatchQueue) {
            originalRequest = URLRequest(url: url)
            self.client = client
            downloadQueue = queue
        }
    }

    /// Counts one download's bytes (on the loop's queue) and reports it to the tally.
    private final class Client: ImageFetchDownloadClient, @unchecked Sendable {
        let expected: Int
        let tally: DownloadTally
        let done: () -> Void
        var status = 0
        var count = 0

        init(expected: Int, tally: DownloadTally, done: @escaping () -> Void) {
            self.expected = expected
            self.tally = tally
            self.done = done
        }

        func downloadDidStart(_ download: any ImageFetchDownload) {}
        func download(
            _ download: any ImageFetchDownload, hydrateRequest request: URLRequest,
            completion: @escaping @Sendable ((any Error)?) -> Void
        ) { completion(nil) }
        func download(
            _ download: any ImageFetchDownload, authorizeRequest request: URLRequest,
            completion: @escaping @Sendable ((any Error)?) -> Void
        ) { completion(nil) }
        func download(_ download: any ImageFetchDownload, didReceiveResponse response: HTTPURLResponse) {
            status = response.statusCode
        }
        func download(_ download: any ImageFetchDownload, didReceiveData data: Data) { count += data.count }
        func download(_ download: any ImageFetchDownload, didCompleteWithError error: (any Error)?) {
            if error == nil, status == 200, count == expected {
                tally.succeeded()
            } else {
                tally.failed("status \(status), \(count) of \(expected) bytes, error \(String(describing: error))")
            }
            download.discardContext()
            done()
        }
        func downloadWillRetry(_ download: any ImageFetchDownload) {}
    }
}
