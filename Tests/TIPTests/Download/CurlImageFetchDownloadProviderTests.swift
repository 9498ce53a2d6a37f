import Foundation
import TIPImageServer
import Testing

@testable import TIP

#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// What only the libcurl provider does (the contract both providers share is in
/// URLSessionImageFetchDownloadProviderTests): connection reuse, flow control, header caps, header bytes,
/// priorities, metrics, and its thread's lifetime.
@Suite("CurlImageFetchDownloadProvider")
struct CurlImageFetchDownloadProviderTests {
    typealias Shared = URLSessionImageFetchDownloadProviderTests

    @Test("priority maps TIP's -8...8 onto HTTP/2 stream weights 1...256, normal being HTTP/2's default 16")
    func streamWeights() {
        let weights = [Operation.QueuePriority.veryLow, .low, .normal, .high, .veryHigh].map(
            CurlImageFetchDownload.streamWeight)
        #expect(weights == [1, 4, 16, 64, 256])
    }

    @Test("downloads in a row reuse one keep-alive connection; metrics tell the protocol, the status and the bytes")
    func keepAliveReuse() throws {
        let server = TIPImageServer()
        try server.start()
        defer { server.stop() }
        let body = Data((0..<50_000).map { UInt8(truncatingIfNeeded: $0 &* 7) })
        server.setImage(body, at: "/k.jpg")
        let provider = CurlImageFetchDownloadProvider()
        var metrics: [CurlImageFetchDownloadMetrics] = []
        for _ in 0..<3 {
            let context = TestDownloadContext(url: server.url(for: "/k.jpg"))
            let download = provider.imageFetchDownload(with: context)
            download.start()
            #expect(context.recorder.done.wait(timeout: .now() + 20) == .success)
            context.downloadQueue.sync {
                #expect(context.recorder.error == nil)
                #expect(context.recorder.body == body)
            }
            metrics.append(try #require(download.downloadMetrics as? CurlImageFetchDownloadMetrics))
        }
        #expect(metrics.map(\.reusedConnection) == [false, true, true])
        #expect(
            metrics.allSatisfy { $0.httpVersion == "HTTP/1.1" && $0.statusCode == 200 && $0.byteCount == body.count })
        #expect(
            metrics.allSatisfy {
                ($0.totalTime ?? -1) >= ($0.firstByteTime ?? 0) && $0.requestStart != nil && $0.end != nil
            })
        #expect(server.allRequests.count == 3)
    }

    @Test("downloads to one plain-http host run side by side: a slow response does not hold up the next one")
    func plainHTTPDoesNotWaitToMultiplex() async throws {
        let server = TIPImageServer()
        try await server.start()
        defer { server.stop() }
        let body = Data((0..<5_000).map { UInt8(truncatingIfNeeded: $0 &* 13) })
        server.setImage(body, at: "/slow.jpg")
        server.setImage(body, at: "/fast.jpg")
        // Its head never comes; the server drops it when it stops.
        server.setFault(.withholdResponse, for: "/slow.jpg")
        let provider = CurlImageFetchDownloadProvider()
        let slowContext = TestDownloadContext(url: server.url(for: "/slow.jpg"))
        let slow = provider.imageFetchDownload(with: slowContext)
        slow.start()
        #expect(await server.waitUntil(timeout: .seconds(20)) { $0.requestCount(for: "/slow.jpg") == 1 })
        let fastContext = TestDownloadContext(url: server.url(for: "/fast.jpg"))
        provider.imageFetchDownload(with: fastContext).start()
        #expect(fastContext.recorder.done.wait(timeout: .now() + 30) == .success)
        fastContext.downloadQueue.sync { #expect(fastContext.recorder.body == body) }
        // The slow response has not even begun: the fast one went on a connection of its own.
        #expect(server.requests(for: "/slow.jpg").first?.status == 0)
        slow.cancel(description: "done")
        #expect(slowContext.recorder.done.wait(timeout: .now() + 20) == .success)
    }

    @Test("a client slower than the network: the transfer pauses and resumes, and every byte arrives in order")
    func slowClientFlowControl() throws {
        let payload = (0..<2_000_000).map { UInt8(truncatingIfNeeded: $0 &* 13 &+ $0 >> 9) }
        let server = try LoopbackHTTPServer { _ in .init(status: 200, body: payload) }
        defer { server.stop() }
        let last = Locked(0), largest = Locked(0)
        let result = Shared.download(
            server, "big", provider: CurlImageFetchDownloadProvider(),
            onData: { _, total in
                let chunk = last.withLock { last in
                    defer { last = total }; return total - last
                }
                largest.withLock { $0 = max($0, chunk) }
                // Holding the download queue makes libcurl's buffers fill: the transfer must pause, not run ahead.
                Thread.sleep(forTimeInterval: 0.002)
            })
        let (client, _) = try #require(result)
        #expect(client.error == nil)
        #expect(client.body == Data(payload))
        let bound = 2 * CurlImageFetchDownloadProvider.bufferSize
        #expect(largest.withLock { $0 } <= bound, "no delivery may hold more than two buffers")
    }

    @Test(
        """
        the header cap counts status lines, fields and blank lines: at the cap the download succeeds, one below \
        it fails
        """
    )
    func headerCaps() throws {
        let server = try LoopbackHTTPServer(handler: Shared.serve)
        defer { server.stop() }
        // LoopbackHTTPServer's 404: status line, Content-Length, Connection, blank line = 4 lines, 59 bytes.
        let atCap = CurlImageFetchDownloadProvider(maxResponseHeaderCount: 4)
        let allowed = try #require(Shared.download(server, "missing", provider: atCap)).0
        #expect(allowed.error == nil && allowed.response?.statusCode == 404)
        let belowCap = CurlImageFetchDownloadProvider(maxResponseHeaderCount: 3)
        let refused = try #require(Shared.download(server, "missing", provider: belowCap)).0
        #expect((refused.error as? URLError)?.code == .badServerResponse)
        #expect(refused.response == nil && refused.completions == 1)
        let fewBytes = CurlImageFetchDownloadProvider(maxResponseHeaderByteCount: 40)
        let tooLong = try #require(Shared.download(server, "missing", provider: fewBytes)).0
        #expect((tooLong.error as? URLError)?.code == .badServerResponse)
        #expect((tooLong.error as? URLError)?.localizedDescription.contains("40 bytes") == true)
    }

    @Test(
        """
        a Latin-1 header value keeps its byte as U+00E9; a trailer field is not taken as a header; repeated \
        fields join
        """
    )
    func headerBytes() throws {
        let payload = Array("not an image, but every byte counts".utf8)
        let server = try LoopbackHTTPServer { _ in
            .init(
                status: 0,
                script: { send in
                    var head = Array("HTTP/1.1 200 OK\r\nContent-Disposition: inline; filename=\"caf".utf8) + [0xE9]
                    head += Array(
                        """
                        .jpg\"\r\nX-Repeated: a\r\nX-Repeated: b\r\nTransfer-Encoding: chunked\r\nConnection: \
                        close\r\n\r\n
                        """
                        .utf8)
                    head += Array("\(String(payload.count, radix: 16))\r\n".utf8) + payload
                    head += Array("\r\n0\r\nX-Checksum: trailer\r\n\r\n".utf8)
                    _ = send(head[...])
                })
        }
        defer { server.stop() }
        let client = try #require(Shared.download(server, "latin1", provider: CurlImageFetchDownloadProvider())).0
        #expect(client.error == nil)
        #expect(client.body == Data(payload))
        #expect(
            client.response?.value(forHTTPHeaderField: "Content-Disposition") == "inline; filename=\"caf\u{E9}.jpg\"")
        #expect(client.response?.value(forHTTPHeaderField: "X-Repeated") == "a, b")
        #expect(client.response?.value(forHTTPHeaderField: "X-Checksum") == nil)
    }

    @Test("a redirect chain longer than maxRedirectCount fails with URLError.httpTooManyRedirects")
    func tooManyRedirects() throws {
        let server = try LoopbackHTTPServer { request in
            let hop = Int(request.path.dropFirst("/hop".count)) ?? 0
            return .init(status: 302, headers: [("Location", "/hop\(hop + 1)")])
        }
        defer { server.stop() }
        let client = try #require(
            Shared.download(server, "hop0", provider: CurlImageFetchDownloadProvider(maxRedirectCount: 3))
        ).0
        #expect((client.error as? URLError)?.code == .httpTooManyRedirects)
        #expect(client.error?.localizedDescription.contains("redirects") == true)
        // The last redirect is not reported as the response: the downloader would take it for one it could not
        // follow (no usable Location) and report that instead.
        #expect(client.response == nil)
        #expect(server.requests.withLock { $0.count } == 4)
    }

    @Test(
        """
        Authorization goes to the origin and follows a redirect within it, but not one to another origin (another \
        port here), as the provider's documentation says
        """
    )
    func authorizationStaysWithTheOrigin() throws {
        let other = try LoopbackHTTPServer { _ in .init(status: 200, body: Array("elsewhere".utf8)) }
        defer { other.stop() }
        let away = other.baseURL.appendingPathComponent("there").absoluteString
        let origin = try LoopbackHTTPServer { request in
            switch request.path {
            case "/here": return .init(status: 200, body: Array("here".utf8))
            case "/moved": return .init(status: 302, headers: [("Location", "/here")])
            default: return .init(status: 302, headers: [("Location", away)])
            }
        }
        defer { origin.stop() }
        let secret = "Bearer s3cret"
        for path in ["moved", "away"] {
            let client = try #require(
                Shared.download(origin, path, provider: CurlImageFetchDownloadProvider(), authorization: secret)
            ).0
            #expect(client.error == nil, "\(path)")
        }
        let asked = origin.requests.withLock { $0.map { ($0.path, $0.headers["authorization"]) } }
        #expect(asked.map(\.0) == ["/moved", "/here", "/away"])
        #expect(asked.allSatisfy { $0.1 == secret }, "\(asked)")
        let forwarded = other.requests.withLock { $0.map { $0.headers["authorization"] } }
        #expect(forwarded.count == 1 && forwarded.first == .some(nil), "\(forwarded)")
    }

    /// Without `connectAddress` the same name does not resolve; a value that is not an IP address fails the
    /// download instead of resolving the name.
    @Test("connectAddress sends a host's connections to the given address, keeping the URL's name in Host")
    func connectAddress() throws {
        let server = TIPImageServer()
        try server.start()
        defer { server.stop() }
        let body = Data((0..<5_000).map { UInt8(truncatingIfNeeded: $0 &* 3) })
        server.setImage(body, at: "/p.jpg")
        // `.invalid` never resolves (RFC 6761): only the pinned address can answer.
        let url = URL(string: "http://pinned.invalid:\(server.port)/p.jpg")!
        let asked = Locked<[URL]>([])
        let pinned = CurlImageFetchDownloadProvider(connectAddress: { url in
            asked.withLock { $0.append(url) }
            return "127.0.0.1"
        })
        func load(_ provider: CurlImageFetchDownloadProvider) -> (error: (any Error)?, body: Data) {
            let context = TestDownloadContext(url: url)
            provider.imageFetchDownload(with: context).start()
            #expect(context.recorder.done.wait(timeout: .now() + 20) == .success)
            return context.downloadQueue.sync { (context.recorder.error, context.recorder.body) }
        }
        let loaded = load(pinned)
        #expect(loaded.error == nil)
        #expect(loaded.body == body)
        #expect(asked.withLock { $0 } == [url])
        #expect(server.requests(for: "/p.jpg").first?.header("Host") == "pinned.invalid:\(server.port)")

        #expect(load(CurlImageFetchDownloadProvider()).error != nil)
        let unusable = load(CurlImageFetchDownloadProvider(connectAddress: { _ in "localhost" }))
        #expect((unusable.error as? URLError)?.code == .cannotConnectToHost)
        #expect(server.requests(for: "/p.jpg").count == 1)

        #expect(
            CurlTransfer.connectToEntry(url: URL(string: "https://a.example/x")!, address: "::1")
                == "a.example:443:[::1]:443")
        #expect(
            CurlTransfer.connectToEntry(url: URL(string: "http://[2001:db8::1]:8080/x")!, address: "[2001:db8::2]")
                == "[2001:db8::1]:8080:[2001:db8::2]:8080")
        #expect(CurlTransfer.connectToEntry(url: URL(string: "http://a.example/x")!, address: "a.example") == nil)
    }

    @Test("a refused connection is URLError.cannotConnectToHost with libcurl's code and message")
    func connectionRefused() throws {
        let (listener, port) = try LoopbackListener.open()
        close(listener)  // nothing listens on the port any more
        let context = TestDownloadContext(url: URL(string: "http://127.0.0.1:\(port)/x.jpg")!)
        let download = CurlImageFetchDownloadProvider().imageFetchDownload(with: context)
        download.start()
        #expect(context.recorder.done.wait(timeout: .now() + 20) == .success)
        context.downloadQueue.sync {
            let error = context.recorder.error as? URLError
            #expect(error?.code == .cannotConnectToHost)
            #expect(error?.userInfo[CurlTransferError.curlCodeKey] as? Int == 7)
            #expect(context.recorder.completions == 1)
        }
    }

    @Test(
        """
        priority changes while downloads run, and cancels from other threads at random moments: each download \
        completes once
        """
    )
    func prioritiesAndCancelStorm() throws {
        let server = try LoopbackHTTPServer(handler: Shared.serve)
        defer { server.stop() }
        let provider = CurlImageFetchDownloadProvider()
        // Even: a whole image, never cancelled. Odd: a body that stalls, cancelled from another thread.
        let contexts = (0..<40).map { index in
            TestDownloadContext(url: server.baseURL.appendingPathComponent(index % 2 == 0 ? "image" : "slow"))
        }
        let downloads = contexts.map { provider.imageFetchDownload(with: $0) }
        downloads.forEach { $0.start() }
        DispatchQueue.concurrentPerform(iterations: downloads.count) { index in
            downloads[index].priority = index % 3 == 0 ? .veryHigh : .low
            if index % 2 == 1 { downloads[index].cancel(description: "storm \(index)") }
        }
        for (index, context) in contexts.enumerated() {
            #expect(context.recorder.done.wait(timeout: .now() + 20) == .success)
            context.downloadQueue.sync {
                #expect(context.recorder.completions == 1)
                if index % 2 == 1 {
                    #expect((context.recorder.error as? ImageFetchError)?.code == .cancelled)
                } else {
                    #expect(context.recorder.error == nil && context.recorder.body == Data(Shared.payload))
                }
            }
        }
    }

    @Test(
        "a started download completes even when nobody keeps a reference to it",
        arguments: ShippedDownloadProvider.allCases)
    func unreferencedDownload(_ kind: ShippedDownloadProvider) throws {
        let server = try LoopbackHTTPServer(handler: Shared.serve)
        defer { server.stop() }
        let provider = kind.make()
        let context = TestDownloadContext(url: server.baseURL.appendingPathComponent("image"))
        provider.imageFetchDownload(with: context).start()
        #expect(context.recorder.done.wait(timeout: .now() + 20) == .success)
        context.downloadQueue.sync {
            #expect(context.recorder.error == nil)
            #expect(context.recorder.body == Data(Shared.payload))
        }
    }

    @Test("a provider that never downloads starts no thread; once it and its downloads are gone, its thread ends")
    func threadLifetime() throws {
        let server = try LoopbackHTTPServer(handler: Shared.serve)
        defer { server.stop() }
        #expect(CurlImageFetchDownloadProvider().currentSession == nil)
        final class WeakLoop: @unchecked Sendable { weak var loop: CurlMultiLoop? }
        let watched = WeakLoop()
        do {
            let provider = CurlImageFetchDownloadProvider()
            let context = TestDownloadContext(url: server.baseURL.appendingPathComponent("image"))
            let download = provider.imageFetchDownload(with: context)
            watched.loop = provider.currentSession?.loop
            #expect(watched.loop != nil)
            download.start()
            #expect(context.recorder.done.wait(timeout: .now() + 20) == .success)
        }
        // The thread holds its loop until it has ended.
        let deadline = Date(timeIntervalSinceNow: 10)
        while watched.loop != nil, Date() < deadline { Thread.sleep(forTimeInterval: 0.01) }
        #expect(watched.loop == nil, "the loop (and its thread) should be gone")
    }
}
