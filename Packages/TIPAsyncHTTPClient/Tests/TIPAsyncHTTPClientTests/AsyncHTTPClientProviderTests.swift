import AsyncHTTPClient
import Foundation
import NIOCore
import NIOPosix
import Synchronization
import TIP
import TIPAsyncHTTPClient
import TIPImageServer
import Testing

#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// The download contract, against the embedded image server on loopback: event order, the request sent, the
/// body, failures as `URLError`s, cancellation, the idle timeout and flow control.
@Suite("AsyncHTTPClientImageFetchDownloadProvider", .serialized)
struct AsyncHTTPClientProviderTests {
    static let payload = Data((0..<300_000).map { UInt8(truncatingIfNeeded: $0 &* 31 &+ $0 >> 8) })

    /// A running server with `payload` at /image.
    static func server() throws -> TIPImageServer {
        let server = TIPImageServer()
        try server.start()
        server.setImage(payload, at: "/image", contentType: "image/jpeg")
        return server
    }

    @Test("a download makes the client calls in contract order and sends the hydrated, authorized request")
    func contractOrderAndRequest() throws {
        let server = try Self.server()
        defer { server.stop() }
        let provider = AsyncHTTPClientImageFetchDownloadProvider()
        let context = RecordingDownloadContext(
            url: server.url(for: "/image"), hydrate: { $0.setValue("hydrated", forHTTPHeaderField: "X-Hydrated") },
            authorization: "Bearer token")
        let download = try #require(context.run(provider))
        let recorder = context.recorder
        try context.downloadQueue.sync {
            #expect(recorder.eventOrder == ["start", "hydrate", "authorize", "response", "data", "complete"])
            #expect(recorder.error == nil)
            #expect(recorder.body == Self.payload)
            let response = try #require(recorder.response)
            #expect(response.statusCode == 200)
            #expect(response.url == server.url(for: "/image"))
            #expect(response.value(forHTTPHeaderField: "content-length") == "\(Self.payload.count)")
        }
        let sent = try #require(server.requests(for: "/image").first)
        #expect(sent.header("X-Hydrated") == "hydrated")
        #expect(sent.header("Authorization") == "Bearer token")
        #expect(sent.header("Accept-Encoding") == "identity")
        #expect(sent.header("User-Agent") == AsyncHTTPClientImageFetchDownloadProvider.defaultUserAgent)
        #expect(download.finalURLRequest?.url == server.url(for: "/image"))
        let metrics = try #require(download.downloadMetrics as? AsyncHTTPClientImageFetchDownloadMetrics)
        #expect(metrics.statusCode == 200 && metrics.httpVersion == "HTTP/1.1")
        #expect(metrics.byteCount == Self.payload.count && metrics.redirectCount == 0)
        #expect(metrics.requestStart != nil && metrics.responseStart != nil && metrics.end != nil)
    }

    @Test("any status is the client's to judge: a 404 arrives as a response with its body, and no error")
    func statusIsDelivered() throws {
        let server = try Self.server()
        defer { server.stop() }
        server.setFault(.status(404, body: Data("gone".utf8)), for: "/image")
        let context = RecordingDownloadContext(url: server.url(for: "/image"))
        _ = try #require(context.run(AsyncHTTPClientImageFetchDownloadProvider()))
        context.downloadQueue.sync {
            #expect(context.recorder.response?.statusCode == 404)
            #expect(context.recorder.body == Data("gone".utf8))
            #expect(context.recorder.error == nil)
        }
    }

    @Test("a redirect within http is followed (the response names the final URL); one to file:// is not")
    func redirects() throws {
        let server = try Self.server()
        defer { server.stop() }
        server.setFault(.redirect(status: 302, location: "/image"), for: "/moved")
        let context = RecordingDownloadContext(url: server.url(for: "/moved"))
        let download = try #require(context.run(AsyncHTTPClientImageFetchDownloadProvider()))
        context.downloadQueue.sync {
            #expect(context.recorder.response?.statusCode == 200)
            #expect(context.recorder.response?.url == server.url(for: "/image"))
            #expect(context.recorder.body == Self.payload)
        }
        #expect((download.downloadMetrics as? AsyncHTTPClientImageFetchDownloadMetrics)?.redirectCount == 1)

        server.setFault(.redirect(status: 302, location: "file:///etc/passwd"), for: "/to-file")
        let elsewhere = RecordingDownloadContext(url: server.url(for: "/to-file"))
        _ = try #require(elsewhere.run(AsyncHTTPClientImageFetchDownloadProvider()))
        elsewhere.downloadQueue.sync {
            #expect(elsewhere.recorder.response?.statusCode == 302)
            #expect(!elsewhere.recorder.body.starts(with: Data("root:".utf8)))
        }
    }

    @Test("a redirect cycle and a chain past the limit fail at once with httpTooManyRedirects (they hung)")
    func redirectLoops() throws {
        let server = try Self.server()
        defer { server.stop() }
        server.setFault(.redirect(status: 302, location: "/loop"), for: "/loop")
        for hop in 0..<20 {
            server.setFault(.redirect(status: 302, location: "/chain\(hop + 1)"), for: "/chain\(hop)")
        }
        // An idle timeout far beyond the wait: only the failure itself can end these downloads in time.
        let provider = AsyncHTTPClientImageFetchDownloadProvider(requestTimeout: 600, maxRedirectCount: 5)
        for path in ["/loop", "/chain0"] {
            let context = RecordingDownloadContext(url: server.url(for: path))
            _ = try #require(context.run(provider), "\(path) did not end")
            context.downloadQueue.sync {
                #expect((context.recorder.error as? URLError)?.code == .httpTooManyRedirects, "\(path)")
                #expect(context.recorder.events.filter { $0 == "complete" }.count == 1)
            }
        }
    }

    @Test("a client shut down under a download ends it at once with networkConnectionLost (it was unknown)")
    func clientShutDownMidDownload() throws {
        let server = try Self.server()
        defer { server.stop() }
        server.setThrottle(.init(latency: .seconds(600)), for: "/image")
        let client = HTTPClient(eventLoopGroup: HTTPClient.defaultEventLoopGroup)
        let provider = AsyncHTTPClientImageFetchDownloadProvider(httpClient: client, requestTimeout: 600)
        let context = RecordingDownloadContext(url: server.url(for: "/image"))
        provider.imageFetchDownload(with: context).start()
        var requested = false
        for _ in 0..<2_000 where !requested {
            requested = server.requestCount(for: "/image") == 1
            if !requested { Thread.sleep(forTimeInterval: 0.01) }
        }
        #expect(requested)
        try client.syncShutdown()
        #expect(context.recorder.done.wait(timeout: .now() + 20) == .success)
        context.downloadQueue.sync {
            #expect((context.recorder.error as? URLError)?.code == .networkConnectionLost)
            #expect(context.recorder.events.filter { $0 == "complete" }.count == 1)
        }
    }

    @Test("a connection dropped mid-body fails with networkConnectionLost after the bytes that arrived")
    func droppedConnection() throws {
        let server = try Self.server()
        defer { server.stop() }
        server.setFault(.dropConnection(afterBodyBytes: 100_000), for: "/image")
        let context = RecordingDownloadContext(url: server.url(for: "/image"))
        _ = try #require(context.run(AsyncHTTPClientImageFetchDownloadProvider()))
        context.downloadQueue.sync {
            #expect((context.recorder.error as? URLError)?.code == .networkConnectionLost)
            #expect(context.recorder.body == Self.payload.prefix(context.recorder.body.count))
            #expect(context.recorder.body.count <= 100_000)
            #expect(context.recorder.events.filter { $0 == "complete" }.count == 1)
        }
    }

    @Test("a refused connection fails at once with cannotConnectToHost")
    func refusedConnection() throws {
        let server = try Self.server()
        let url = server.url(for: "/image")
        server.stop()
        let context = RecordingDownloadContext(url: url)
        _ = try #require(context.run(AsyncHTTPClientImageFetchDownloadProvider(connectTimeout: 10)))
        context.downloadQueue.sync {
            #expect((context.recorder.error as? URLError)?.code == .cannotConnectToHost)
            #expect(context.recorder.eventOrder == ["start", "hydrate", "authorize", "complete"])
        }
    }

    @Test("a request that is not http fails with invalidRequest before anything is sent")
    func nonHTTPRequest() throws {
        let context = RecordingDownloadContext(url: URL(fileURLWithPath: "/etc/passwd"))
        _ = try #require(context.run(AsyncHTTPClientImageFetchDownloadProvider()))
        context.downloadQueue.sync {
            #expect((context.recorder.error as? ImageFetchError)?.code == .invalidRequest)
            #expect(context.recorder.body.isEmpty)
        }
    }

    @Test("a server that stops sending fails the download with timedOut after requestTimeout")
    func idleTimeout() throws {
        let server = try Self.server()
        defer { server.stop() }
        server.setFault(.stall(afterBodyBytes: 50_000), for: "/image")
        let context = RecordingDownloadContext(url: server.url(for: "/image"))
        _ = try #require(context.run(AsyncHTTPClientImageFetchDownloadProvider(requestTimeout: 0.5)))
        context.downloadQueue.sync {
            #expect((context.recorder.error as? URLError)?.code == .timedOut)
            #expect(context.recorder.body == Self.payload.prefix(context.recorder.body.count))
            #expect(context.recorder.events.filter { $0 == "complete" }.count == 1)
        }
    }

    @Test("a client that holds the data longer than requestTimeout is not an idle server: the download completes")
    func slowClientIsNotIdle() throws {
        let server = try Self.server()
        defer { server.stop() }
        let held = Mutex(false)
        let provider = AsyncHTTPClientImageFetchDownloadProvider(requestTimeout: 0.3, maxBufferedByteCount: 16 * 1024)
        let context = RecordingDownloadContext(
            url: server.url(for: "/image"),
            onData: { _, _ in
                // The first delivery holds the download queue for three timeouts: reading pauses meanwhile.
                guard
                    held.withLock({ held in
                        defer { held = true }; return !held
                    })
                else { return }
                Thread.sleep(forTimeInterval: 0.9)
            })
        _ = try #require(context.run(provider))
        context.downloadQueue.sync {
            #expect(context.recorder.error == nil)
            #expect(context.recorder.body == Self.payload)
        }
    }

    @Test("cancelling mid-body ends with one cancelled completion and nothing after it")
    func cancellation() throws {
        let server = try Self.server()
        defer { server.stop() }
        server.setFault(.stall(afterBodyBytes: 50_000), for: "/image")
        let context = RecordingDownloadContext(
            url: server.url(for: "/image"),
            onData: { download, _ in download.cancel(description: "test") })
        _ = try #require(context.run(AsyncHTTPClientImageFetchDownloadProvider()))
        context.downloadQueue.sync {
            #expect((context.recorder.error as? ImageFetchError)?.code == .cancelled)
            #expect(context.recorder.events.last == "complete")
            #expect(context.recorder.events.filter { $0 == "complete" }.count == 1)
        }
    }

    @Test("cancelling before start ends with one cancelled completion and sends nothing")
    func cancellationBeforeStart() throws {
        let server = try Self.server()
        defer { server.stop() }
        let context = RecordingDownloadContext(url: server.url(for: "/image"))
        let download = AsyncHTTPClientImageFetchDownloadProvider().imageFetchDownload(with: context)
        download.cancel(description: "early")
        download.start()
        #expect(context.recorder.done.wait(timeout: .now() + 20) == .success)
        context.downloadQueue.sync {
            #expect((context.recorder.error as? ImageFetchError)?.code == .cancelled)
            #expect(context.recorder.events == ["complete"])
        }
        #expect(server.requests(for: "/image").isEmpty)
    }

    @Test("a client slower than the network: reading pauses at the read-ahead cap, resumes, and every byte arrives")
    func flowControl() throws {
        let server = try Self.server()
        defer { server.stop() }
        let provider = AsyncHTTPClientImageFetchDownloadProvider(maxBufferedByteCount: 16 * 1024)
        let context = RecordingDownloadContext(
            url: server.url(for: "/image"),
            // Holding the download queue makes the chunks queue up past the cap: the load must pause reading
            // and resume once they are delivered (a lost resumption would hang the download).
            onData: { _, _ in Thread.sleep(forTimeInterval: 0.002) })
        let download = try #require(context.run(provider))
        context.downloadQueue.sync {
            #expect(context.recorder.error == nil)
            #expect(context.recorder.body == Self.payload)
        }
        let metrics = try #require(download.downloadMetrics as? AsyncHTTPClientImageFetchDownloadMetrics)
        #expect(metrics.readPauseCount > 0)
    }

    @Test("transport errors map to the URLError codes the shipped providers use")
    func errorMapping() {
        let code = AsyncHTTPClientDownloadError.urlErrorCode
        #expect(code(HTTPClientError.readTimeout) == .timedOut)
        #expect(code(HTTPClientError.connectTimeout) == .timedOut)
        #expect(code(HTTPClientError.remoteConnectionClosed) == .networkConnectionLost)
        #expect(code(HTTPClientError.redirectLimitReached) == .httpTooManyRedirects)
        #expect(code(HTTPClientError.redirectCycleDetected) == .httpTooManyRedirects)
        #expect(code(HTTPClientError.invalidURL) == .badURL)
        #expect(code(HTTPClientError.unsupportedScheme("gopher")) == .unsupportedURL)
        #expect(code(IOError(errnoCode: ECONNREFUSED, reason: "connect")) == .cannotConnectToHost)
        #expect(code(IOError(errnoCode: ECONNRESET, reason: "read")) == .networkConnectionLost)
        #expect(code(ChannelError.eof) == .networkConnectionLost)
        #expect(code(URLError(.cannotFindHost)) == .cannotFindHost)
        let url = URL(string: "http://example.invalid/a.jpg")!
        let error = AsyncHTTPClientDownloadError.urlError(HTTPClientError.readTimeout, url: url)
        #expect(error.failingURL == url)
        #expect((error.userInfo[NSUnderlyingErrorKey] as? NSError) != nil)
    }
}
