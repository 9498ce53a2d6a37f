import Foundation
import TIPImageServer
import Testing

#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

@Suite("Image server throttling")
struct ImageServerThrottleTests {
    private static func seconds(_ body: () async throws -> Void) async rethrows -> Double {
        let clock = ContinuousClock()
        let start = clock.now
        try await body()
        let elapsed = clock.now - start
        return Double(elapsed.components.seconds) + Double(elapsed.components.attoseconds) / 1e18
    }

    @Test("A per-path rate slows the body; other paths stay fast")
    func perPathRate() async throws {
        let server = try await TestData.startedServer()
        defer { server.stop() }
        let bytes = TestData.bytes(64 * 1024)
        server.setImage(bytes, at: "/slow.jpg")
        server.setImage(bytes, at: "/fast.jpg")
        // 2 s per body: the fast path's loopback fetch stays far below that even on a loaded machine.
        server.setThrottle(.init(bytesPerSecond: 32 * 1024, chunkSize: 8 * 1024), for: "/slow.jpg")

        // Timed on a raw socket, free of client overhead: 64 KiB at 32 KiB/s is 8 chunks, one every 0.25 s.
        func timedGet(_ path: String) throws -> Double {
            let connection = try RawHTTPConnection(port: server.port)
            let clock = ContinuousClock()
            let start = clock.now
            try connection.sendRequest("GET", path)
            let response = try connection.readResponse()
            let elapsed = clock.now - start
            #expect(response.body == bytes)
            return Double(elapsed.components.seconds) + Double(elapsed.components.attoseconds) / 1e18
        }
        let slow = try timedGet("/slow.jpg")
        let fast = try timedGet("/fast.jpg")
        #expect(slow >= 1.7)
        #expect(slow < 60)
        #expect(fast < slow)

        // The same through URLSession.
        var body = Data()
        let viaSession = try await Self.seconds {
            body = try await HTTPTestClient.fetch(server.url(for: "/slow.jpg")).body
        }
        #expect(body == bytes)
        #expect(viaSession >= 1.7)
    }

    @Test("The server-wide throttle and its latency; a path throttle overrides it")
    func serverRateAndLatency() async throws {
        let server = try await TestData.startedServer(
            .init(throttle: .init(bytesPerSecond: 1024 * 1024, chunkSize: 4096, latency: .seconds(2))))
        defer { server.stop() }
        let bytes = TestData.bytes(1000)
        server.setImage(bytes, at: "/a.png")
        server.setImage(bytes, at: "/b.png")
        server.setThrottle(.init(), for: "/b.png")
        var slowBody = Data()
        let slow = try await Self.seconds {
            slowBody = try await HTTPTestClient.fetch(server.url(for: "/a.png")).body
        }
        #expect(slowBody == bytes)
        #expect(slow >= 1.95)
        // With a server-wide latency of a minute, the path whose throttle overrides it (and, once the server-wide
        // throttle is gone, every path) answers long before: bounds no loaded machine comes near, rather than a
        // race between two timings.
        server.setDefaultThrottle(.init(bytesPerSecond: 1024 * 1024, chunkSize: 4096, latency: .seconds(60)))
        var fastBody = Data()
        let fast = try await Self.seconds {
            fastBody = try await HTTPTestClient.fetch(server.url(for: "/b.png"), timeout: 40).body
        }
        #expect(fastBody == bytes)
        #expect(fast < 30)
        server.setDefaultThrottle(nil)
        var unthrottledBody = Data()
        let unthrottled = try await Self.seconds {
            unthrottledBody = try await HTTPTestClient.fetch(server.url(for: "/a.png"), timeout: 40).body
        }
        #expect(unthrottledBody == bytes)
        #expect(unthrottled < 30)
    }

    @Test("Chunks arrive one at a time at the rate")
    func chunks() async throws {
        let server = try await TestData.startedServer()
        defer { server.stop() }
        server.setImage(TestData.bytes(3000), at: "/c.gif")
        // 1000-byte chunks at 500 B/s: the first chunk is due at 2 s, the second at 4 s, the last at 6 s, so the
        // test has 2 s to look at the server between the first and the second.
        server.setThrottle(.init(bytesPerSecond: 500, chunkSize: 1000), for: "/c.gif")
        let connection = try RawHTTPConnection(port: server.port)
        try connection.sendRequest("GET", "/c.gif")
        let head = try connection.readHead()
        #expect(head.status == 200)
        _ = try connection.readBytes(1000)
        let records = server.requests(for: "/c.gif")
        #expect(records.count == 1)
        #expect((records.first?.bytesSent ?? 0) < 3000)
        let rest = try connection.readBytes(2000)
        #expect(rest == TestData.bytes(3000).subdata(in: 1000..<3000))
        #expect(server.requests(for: "/c.gif").first?.bytesSent == 3000)
    }
}
