import Foundation
import Testing

@testable import TIP

#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// A context whose client plays TIP: hydration applies `hydrate`, authorization sets `authorizationValue`.
final class TestDownloadContext: ImageFetchDownloadContext, @unchecked Sendable {
    // `hydrated` and `authorized` are written and read on `downloadQueue` only.
    let originalRequest: URLRequest
    var hydratedRequest: URLRequest? { hydrated }
    var authorization: String? { authorized }
    let client: any ImageFetchDownloadClient
    let downloadQueue = DispatchQueue(label: "test.download")
    let recorder: TestDownloadClient
    private var hydrated: URLRequest?
    private var authorized: String?
    /// Tells the client whether a call runs on `downloadQueue`.
    private static let queueKey = DispatchSpecificKey<ObjectIdentifier>()

    init(
        url: URL, hydrate: @escaping @Sendable (inout URLRequest) -> Void = { _ in },
        authorization: String? = nil,
        onData: @escaping @Sendable (any ImageFetchDownload, Int) -> Void = { _, _ in }
    ) {
        originalRequest = URLRequest(url: url)
        let queue = downloadQueue
        queue.setSpecific(key: Self.queueKey, value: ObjectIdentifier(queue))
        let recorder = TestDownloadClient(onData: onData) {
            DispatchQueue.getSpecific(key: Self.queueKey) == ObjectIdentifier(queue)
        }
        self.recorder = recorder
        client = recorder
        recorder.hydrate = { [unowned self] request in
            var copy = request
            hydrate(&copy)
            self.hydrated = copy
        }
        recorder.authorize = { [unowned self] _ in self.authorized = authorization }
    }
}

/// Records what the download reports, checking each event against TIP's download contract (a violation is
/// recorded, never forwarded); signals `done` on completion.
final class TestDownloadClient: ImageFetchDownloadClient, @unchecked Sendable {
    // Everything below is touched on the download queue only (set up before the download starts).
    var contract = ImageDownloadContract()
    var violations: [ImageFetchError.Code] = []
    var hydrate: (URLRequest) -> Void = { _ in }
    var authorize: (URLRequest) -> Void = { _ in }
    var hydrationError: (any Error)?
    let onData: @Sendable (any ImageFetchDownload, Int) -> Void
    var response: HTTPURLResponse?
    var body = Data()
    var chunks = 0
    var error: (any Error)?
    var completions = 0
    /// Calls made off the context's download queue (the contract allows none).
    var callsOffQueue = 0
    let done = DispatchSemaphore(value: 0)
    private let isOnDownloadQueue: @Sendable () -> Bool

    init(
        onData: @escaping @Sendable (any ImageFetchDownload, Int) -> Void,
        isOnDownloadQueue: @escaping @Sendable () -> Bool
    ) {
        self.onData = onData
        self.isOnDownloadQueue = isOnDownloadQueue
    }

    /// Whether `event` keeps to the contract (a violation is recorded).
    private func admits(_ event: ImageDownloadContract.Event) -> Bool {
        if !isOnDownloadQueue() { callsOffQueue += 1 }
        switch contract.apply(event) {
        case .forward: return true
        case .drop: return false
        case .violation(let code):
            violations.append(code)
            return false
        }
    }

    func downloadDidStart(_ download: any ImageFetchDownload) { _ = admits(.start) }
    func download(
        _ download: any ImageFetchDownload, hydrateRequest request: URLRequest,
        completion: @escaping @Sendable ((any Error)?) -> Void
    ) {
        guard admits(.hydrate) else { return }
        hydrate(request)
        completion(hydrationError)
    }
    func download(
        _ download: any ImageFetchDownload, authorizeRequest request: URLRequest,
        completion: @escaping @Sendable ((any Error)?) -> Void
    ) {
        guard admits(.authorize) else { return }
        authorize(request)
        completion(nil)
    }
    func download(_ download: any ImageFetchDownload, didReceiveResponse response: HTTPURLResponse) {
        if admits(.response) { self.response = response }
    }
    func download(_ download: any ImageFetchDownload, didReceiveData data: Data) {
        guard admits(.data) else { return }
        body.append(data)
        chunks += 1
        onData(download, body.count)
    }
    func download(_ download: any ImageFetchDownload, didCompleteWithError error: (any Error)?) {
        _ = admits(.complete(failed: error != nil))
        self.error = error
        completions += 1
        done.signal()
    }
    func downloadWillRetry(_ download: any ImageFetchDownload) { _ = admits(.retry) }
}

/// The provider contract, for each shipped provider (URLSession and libcurl).
@Suite("Shipped download providers: URLSession and libcurl", .serialized)
struct URLSessionImageFetchDownloadProviderTests {
    static let payload: [UInt8] = (0..<200_000).map { UInt8(truncatingIfNeeded: $0 &* 31 &+ $0 >> 8) }

    /// Runs one download of `path` to completion; nil when it timed out.
    static func download(
        _ server: LoopbackHTTPServer, _ path: String, provider: any ImageFetchDownloadProvider,
        hydrate: @escaping @Sendable (inout URLRequest) -> Void = { _ in }, authorization: String? = nil,
        onData: @escaping @Sendable (any ImageFetchDownload, Int) -> Void = { _, _ in }
    ) -> (TestDownloadClient, any ImageFetchDownload)? {
        let context = TestDownloadContext(
            url: server.baseURL.appendingPathComponent(path), hydrate: hydrate, authorization: authorization,
            onData: onData)
        let download = provider.imageFetchDownload(with: context)
        #expect(download.context === context)
        download.start()
        guard context.recorder.done.wait(timeout: .now() + 20) == .success else { return nil }
        // Let any stray late event arrive before reading the recorder.
        return context.downloadQueue.sync {
            Thread.sleep(forTimeInterval: 0.05); return (context.recorder, download)
        }
    }

    static func serve(_ request: LoopbackHTTPServer.Request) -> LoopbackHTTPServer.Response {
        switch request.path {
        case "/image":
            if let range = request.headers["range"], range.hasPrefix("bytes="),
                let start = Int(range.dropFirst(6).prefix { $0 != "-" }), start < payload.count
            {
                return .init(
                    status: 206, headers: [("Content-Range", "bytes \(start)-\(payload.count - 1)/\(payload.count)")],
                    body: Array(payload[start...]))
            }
            return .init(status: 200, headers: [("Accept-Ranges", "bytes")], body: payload)
        case "/slow":
            return .init(status: 200, body: payload, stallAfter: 40_000)
        case "/moved":
            return .init(status: 302, headers: [("Location", "/image")])
        case "/to-file":
            return .init(status: 302, headers: [("Location", "file:///etc/passwd")], body: Array("moved".utf8))
        default:
            return .init(status: 404, body: Array("not here".utf8))
        }
    }

    @Test(
        "a 200 download streams every byte, with the Authorization header set",
        arguments: ShippedDownloadProvider.allCases)
    func fullDownload(_ kind: ShippedDownloadProvider) throws {
        let server = try LoopbackHTTPServer(handler: Self.serve)
        defer { server.stop() }
        let provider = kind.make()
        let result = try #require(Self.download(server, "image", provider: provider, authorization: "Bearer abc"))
        let client = result.0
        #expect(client.error == nil)
        #expect(client.completions == 1)
        #expect(client.violations.isEmpty)
        #expect(client.response?.statusCode == 200)
        #expect(client.body == Data(Self.payload))
        #expect(client.chunks > 1, "the body should arrive in several chunks")
        #expect(server.requests.withLock { $0.first?.headers["authorization"] } == "Bearer abc")
        #expect(result.1.finalURLRequest?.value(forHTTPHeaderField: "Authorization") == "Bearer abc")
        if kind == .urlSession {
            let metrics = try #require(result.1.downloadMetrics as? URLSessionImageFetchDownloadMetrics)
            #expect(metrics.byteCount == Self.payload.count && metrics.statusCode == 200)
        } else {
            let metrics = try #require(result.1.downloadMetrics as? CurlImageFetchDownloadMetrics)
            #expect(metrics.byteCount == Self.payload.count && metrics.statusCode == 200)
        }
        result.1.discardContext()
        #expect(result.1.context == nil)
    }

    @Test(
        "Range and If-Range from hydration are sent and a 206 delivers the tail",
        arguments: ShippedDownloadProvider.allCases)
    func rangeRequest(_ kind: ShippedDownloadProvider) throws {
        let server = try LoopbackHTTPServer(handler: Self.serve)
        defer { server.stop() }
        let provider = kind.make()
        let outcome = Self.download(
            server, "image", provider: provider,
            hydrate: { request in
                request.setValue("bytes=150000-", forHTTPHeaderField: "Range")
                request.setValue("Wed, 21 Oct 2015 07:28:00 GMT", forHTTPHeaderField: "If-Range")
            })
        let result = try #require(outcome)
        #expect(result.0.error == nil)
        #expect(result.0.response?.statusCode == 206)
        #expect(result.0.body == Data(Self.payload[150_000...]))
        let sent = server.requests.withLock { $0.first?.headers }
        #expect(sent?["range"] == "bytes=150000-")
        #expect(sent?["if-range"] == "Wed, 21 Oct 2015 07:28:00 GMT")
    }

    @Test("a 404 is reported as a response with that status, then success", arguments: ShippedDownloadProvider.allCases)
    func notFound(_ kind: ShippedDownloadProvider) throws {
        let server = try LoopbackHTTPServer(handler: Self.serve)
        defer { server.stop() }
        let provider = kind.make()
        let result = try #require(Self.download(server, "missing", provider: provider))
        #expect(result.0.response?.statusCode == 404)
        #expect(result.0.error == nil)
        #expect(result.0.completions == 1)
    }

    @Test("cancelling mid-body completes once with a cancelled error", arguments: ShippedDownloadProvider.allCases)
    func cancelMidBody(_ kind: ShippedDownloadProvider) throws {
        let server = try LoopbackHTTPServer(handler: Self.serve)
        defer { server.stop() }
        let provider = kind.make()
        let outcome = Self.download(
            server, "slow", provider: provider,
            onData: { download, _ in
                download.cancel(description: "test cancel")
            })
        let result = try #require(outcome)
        let error = try #require(result.0.error as? ImageFetchError)
        #expect(error.code == .cancelled)
        #expect(error.message.contains("test cancel"))
        #expect(result.0.completions == 1)
        #expect(result.0.body.count < Self.payload.count)
    }

    @Test("cancelling before start still completes with a cancelled error", arguments: ShippedDownloadProvider.allCases)
    func cancelBeforeStart(_ kind: ShippedDownloadProvider) throws {
        let provider = kind.make()
        let context = TestDownloadContext(url: URL(string: "http://127.0.0.1:9/never")!)
        let download = provider.imageFetchDownload(with: context)
        download.cancel(description: "early")
        download.start()
        #expect(context.recorder.done.wait(timeout: .now() + 5) == .success)
        context.downloadQueue.sync {
            #expect((context.recorder.error as? ImageFetchError)?.code == .cancelled)
            #expect(context.recorder.completions == 1)
        }
    }

    @Test("an http redirect is followed", arguments: ShippedDownloadProvider.allCases)
    func redirectFollowed(_ kind: ShippedDownloadProvider) throws {
        let server = try LoopbackHTTPServer(handler: Self.serve)
        defer { server.stop() }
        let provider = kind.make()
        let result = try #require(Self.download(server, "moved", provider: provider))
        #expect(result.0.error == nil)
        #expect(result.0.response?.statusCode == 200)
        #expect(result.0.body == Data(Self.payload))
    }

    @Test("a redirect to file:///etc/passwd is refused", arguments: ShippedDownloadProvider.allCases)
    func redirectToFileRefused(_ kind: ShippedDownloadProvider) throws {
        let server = try LoopbackHTTPServer(handler: Self.serve)
        defer { server.stop() }
        let provider = kind.make()
        let result = try #require(Self.download(server, "to-file", provider: provider))
        let error = try #require(result.0.error as? ImageFetchError)
        #expect(error.code == .httpTransactionError)
        #expect(error.httpStatusCode == 302)
        #expect(!String(decoding: result.0.body, as: UTF8.self).contains("root:"))
        #expect(server.requests.withLock { $0.map(\.path) } == ["/to-file"])
    }

    @Test("non-HTTP URLs are rejected before loading", arguments: ShippedDownloadProvider.allCases)
    func fileURLRejected(_ kind: ShippedDownloadProvider) throws {
        let provider = kind.make()
        let context = TestDownloadContext(url: URL(fileURLWithPath: "/etc/passwd"))
        let download = provider.imageFetchDownload(with: context)
        download.start()
        #expect(context.recorder.done.wait(timeout: .now() + 5) == .success)
        context.downloadQueue.sync {
            #expect((context.recorder.error as? ImageFetchError)?.code == .invalidRequest)
            #expect(context.recorder.body.isEmpty)
        }
    }

    @Test(
        "concurrent downloads through one provider each get their own bytes",
        arguments: ShippedDownloadProvider.allCases)
    func concurrentDownloads(_ kind: ShippedDownloadProvider) throws {
        let server = try LoopbackHTTPServer(handler: Self.serve)
        defer { server.stop() }
        let provider = kind.make()
        let contexts = (0..<12).map { index in
            TestDownloadContext(url: server.baseURL.appendingPathComponent(index % 3 == 2 ? "missing" : "image"))
        }
        let downloads = contexts.map { provider.imageFetchDownload(with: $0) }
        downloads.forEach { $0.start() }
        for (index, context) in contexts.enumerated() {
            #expect(context.recorder.done.wait(timeout: .now() + 20) == .success)
            context.downloadQueue.sync {
                #expect(context.recorder.error == nil)
                #expect(context.recorder.completions == 1)
                #expect(context.recorder.callsOffQueue == 0)
                if index % 3 == 2 {
                    #expect(context.recorder.response?.statusCode == 404)
                } else {
                    #expect(context.recorder.body == Data(Self.payload))
                }
            }
        }
    }

    @Test(
        "a cancel racing with start or the load always ends in exactly one completion",
        arguments: ShippedDownloadProvider.allCases)
    func cancelRaces(_ kind: ShippedDownloadProvider) throws {
        let server = try LoopbackHTTPServer(handler: Self.serve)
        defer { server.stop() }
        let provider = kind.make()
        for round in 0..<40 {
            let context = TestDownloadContext(url: server.baseURL.appendingPathComponent("slow"))
            let download = provider.imageFetchDownload(with: context)
            download.start()
            if round % 2 == 1 { Thread.sleep(forTimeInterval: 0.002) }
            download.cancel(description: "race \(round)")
            #expect(context.recorder.done.wait(timeout: .now() + 20) == .success)
            context.downloadQueue.sync {
                Thread.sleep(forTimeInterval: 0.01)
                #expect(context.recorder.completions == 1)
                #expect((context.recorder.error as? ImageFetchError)?.code == .cancelled)
            }
        }
    }

    @Test("a download keeps working after its provider is released", arguments: ShippedDownloadProvider.allCases)
    func outlivesProvider(_ kind: ShippedDownloadProvider) throws {
        let server = try LoopbackHTTPServer(handler: Self.serve)
        defer { server.stop() }
        let context = TestDownloadContext(url: server.baseURL.appendingPathComponent("image"))
        let download = kind.make().imageFetchDownload(with: context)
        download.start()
        #expect(context.recorder.done.wait(timeout: .now() + 20) == .success)
        context.downloadQueue.sync {
            #expect(context.recorder.error == nil)
            #expect(context.recorder.body == Data(Self.payload))
        }
    }

    @Test(
        "a hydration failure ends the download with that error and loads nothing",
        arguments: ShippedDownloadProvider.allCases)
    func hydrationFailure(_ kind: ShippedDownloadProvider) throws {
        let server = try LoopbackHTTPServer(handler: Self.serve)
        defer { server.stop() }
        let context = TestDownloadContext(url: server.baseURL.appendingPathComponent("image"))
        context.recorder.hydrationError = ImageFetchError.illegalModification(
            originalHTTPMethod: "GET", modifiedHTTPMethod: "POST")
        let download = kind.make().imageFetchDownload(with: context)
        download.start()
        #expect(context.recorder.done.wait(timeout: .now() + 20) == .success)
        context.downloadQueue.sync {
            #expect((context.recorder.error as? ImageFetchError)?.code == .illegalModificationByHydrationBlock)
            #expect(context.recorder.response == nil)
        }
        #expect(server.requests.withLock { $0.isEmpty })
    }

    @Test("after discardContext a running download tells nobody anything", arguments: ShippedDownloadProvider.allCases)
    func discardWhileRunning(_ kind: ShippedDownloadProvider) throws {
        let server = try LoopbackHTTPServer(handler: Self.serve)
        defer { server.stop() }
        let context = TestDownloadContext(
            url: server.baseURL.appendingPathComponent("slow"),
            onData: { download, _ in
                download.discardContext()
            })
        let download = kind.make().imageFetchDownload(with: context)
        download.start()
        let waited = context.recorder.done.wait(timeout: .now() + 1)
        // What ended it, should it end: the report names the error.
        let error = context.downloadQueue.sync { context.recorder.error.map { String(describing: $0) } }
        #expect(waited == .timedOut, "completed with \(error ?? "no error")")
        #expect(download.context == nil)
        context.downloadQueue.sync {
            #expect(context.recorder.completions == 0)
            #expect(context.recorder.chunks == 1)
        }
    }

    @Test("priority maps TIP's -8...8 onto 0...1")
    func priorityMapping() {
        #expect(URLSessionImageFetchDownload.taskPriority(.veryLow) == 0)
        #expect(URLSessionImageFetchDownload.taskPriority(.normal) == 0.5)
        #expect(URLSessionImageFetchDownload.taskPriority(.veryHigh) == 1)
    }
}
