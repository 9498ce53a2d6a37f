import Foundation
import TIP

#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// A context whose client plays TIP for one download: hydration applies `hydrate`, authorization sets
/// `authorizationValue`, and every event is recorded in order (on the download queue).
final class RecordingDownloadContext: ImageFetchDownloadContext, @unchecked Sendable {
    // Written before the download starts or on `downloadQueue` only.
    let originalRequest: URLRequest
    private(set) var hydratedRequest: URLRequest?
    private(set) var authorization: String?
    var client: any ImageFetchDownloadClient { recorder }
    let downloadQueue = DispatchQueue(label: "tip.ahc-tests.download")
    let recorder: RecordingDownloadClient

    init(
        url: URL, hydrate: @escaping @Sendable (inout URLRequest) -> Void = { _ in },
        authorization: String? = nil,
        onData: @escaping @Sendable (any ImageFetchDownload, Int) -> Void = { _, _ in }
    ) {
        originalRequest = URLRequest(url: url)
        recorder = RecordingDownloadClient(onData: onData)
        recorder.hydrate = { [unowned self] request in
            var copy = request
            hydrate(&copy)
            self.hydratedRequest = copy
        }
        recorder.authorize = { [unowned self] in self.authorization = authorization }
    }

    /// Starts a download of this context from `provider` and waits for its completion (nil: none in 20 s),
    /// then a little longer to catch a stray late event.
    func run(_ provider: any ImageFetchDownloadProvider) -> (any ImageFetchDownload)? {
        let download = provider.imageFetchDownload(with: self)
        download.start()
        guard recorder.done.wait(timeout: .now() + 20) == .success else { return nil }
        downloadQueue.sync { Thread.sleep(forTimeInterval: 0.05) }
        return download
    }
}

/// Records a download's client calls, in order, as short names ("start", "hydrate", "authorize", "response",
/// "data", "complete").
final class RecordingDownloadClient: ImageFetchDownloadClient, @unchecked Sendable {
    // Touched on the download queue only (set up before the download starts).
    var hydrate: (URLRequest) -> Void = { _ in }
    var authorize: () -> Void = {}
    let onData: @Sendable (any ImageFetchDownload, Int) -> Void
    var events: [String] = []
    var response: HTTPURLResponse?
    var body = Data()
    var error: (any Error)?
    let done = DispatchSemaphore(value: 0)

    init(onData: @escaping @Sendable (any ImageFetchDownload, Int) -> Void) { self.onData = onData }

    /// The events with repeated "data" collapsed into one, for order checks.
    var eventOrder: [String] {
        events.reduce(into: []) { order, event in
            if event != "data" || order.last != "data" { order.append(event) }
        }
    }

    func downloadDidStart(_ download: any ImageFetchDownload) { events.append("start") }
    func download(
        _ download: any ImageFetchDownload, hydrateRequest request: URLRequest,
        completion: @escaping @Sendable ((any Error)?) -> Void
    ) {
        events.append("hydrate")
        hydrate(request)
        completion(nil)
    }
    func download(
        _ download: any ImageFetchDownload, authorizeRequest request: URLRequest,
        completion: @escaping @Sendable ((any Error)?) -> Void
    ) {
        events.append("authorize")
        authorize()
        completion(nil)
    }
    func download(_ download: any ImageFetchDownload, didReceiveResponse response: HTTPURLResponse) {
        events.append("response")
        self.response = response
    }
    func download(_ download: any ImageFetchDownload, didReceiveData data: Data) {
        events.append("data")
        body.append(data)
        onData(download, body.count)
    }
    func download(_ download: any ImageFetchDownload, didCompleteWithError error: (any Error)?) {
        events.append("complete")
        self.error = error
        done.signal()
    }
    func downloadWillRetry(_ download: any ImageFetchDownload) { events.append("retry") }
}
