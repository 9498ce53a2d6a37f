import Foundation
import TIPImageServer
import Testing

#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

@Suite("Image server stop and concurrency")
struct ImageServerLifecycleTests {
    @Test("Stop closes open connections and the listener; a second stop is harmless; restart works")
    func stop() throws {
        let server = TIPImageServer()
        try server.start()
        let port = server.port
        server.setImage(TestData.bytes(100_000), at: "/big.jpg")
        server.setThrottle(.init(bytesPerSecond: 10_000, chunkSize: 1000), for: "/big.jpg")

        let idle = try RawHTTPConnection(port: port, timeout: 5)
        try idle.sendRequest("GET", "/missing")
        #expect(try idle.readResponse().status == 404)
        let streaming = try RawHTTPConnection(port: port, timeout: 5)
        try streaming.sendRequest("GET", "/big.jpg")
        #expect(try streaming.readHead().status == 200)
        #expect(server.openConnectionCount == 2)

        let clock = ContinuousClock()
        let start = clock.now
        server.stop()
        #expect(clock.now - start < .seconds(3))
        #expect(idle.readToEnd().closed)
        let rest = streaming.readToEnd()
        #expect(rest.closed)
        #expect(rest.data.count < 100_000)
        #expect(server.openConnectionCount == 0)
        #expect(throws: (any Error).self) { _ = try RawHTTPConnection(port: port) }

        server.stop()
        try server.start()
        #expect(server.port > 0)
        let again = try RawHTTPConnection(port: server.port)
        try again.sendRequest("GET", "/missing")
        #expect(try again.readResponse().status == 404)
        server.stop()
    }

    @Test("A client that goes away mid-response stops the stream; the server keeps serving")
    func clientCancels() async throws {
        let server = try await TestData.startedServer()
        defer { server.stop() }
        server.setImage(TestData.bytes(100_000), at: "/long.jpg")
        server.setThrottle(.init(bytesPerSecond: 20_000, chunkSize: 1000), for: "/long.jpg")
        do {
            let connection = try RawHTTPConnection(port: server.port)
            try connection.sendRequest("GET", "/long.jpg")
            #expect(try connection.readHead().status == 200)
            _ = try connection.readBytes(1000)
        }
        #expect(await server.waitUntil { $0.openConnectionCount == 0 })
        let record = try #require(server.requests(for: "/long.jpg").first)
        #expect(!record.isComplete)
        #expect(record.bytesSent < 100_000)
        server.setThrottle(nil, for: "/long.jpg")
        let (response, body) = try await HTTPTestClient.fetch(server.url(for: "/long.jpg"))
        #expect(response.statusCode == 200)
        #expect(body == TestData.bytes(100_000))
    }

    @Test("Dropping a running server does not hang")
    func deinitStops() throws {
        var port = 0
        do {
            let server = TIPImageServer()
            try server.start()
            port = server.port
            server.setImage(Data([1]), at: "/x")
            let connection = try RawHTTPConnection(port: port)
            try connection.sendRequest("GET", "/x")
            #expect(try connection.readResponse().status == 200)
        }
        #expect(port > 0)
    }

    @Test("Fifty requests in parallel all succeed")
    func concurrent() async throws {
        let server = try await TestData.startedServer(.init(threadCount: 2))
        defer { server.stop() }
        let directory = try TestData.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: directory) }
        for index in 0..<5 {
            try TestData.bytes(20_000 + index, seed: UInt64(index + 1)).write(
                to: directory.appendingPathComponent("f\(index).jpg"))
        }
        server.serveDirectory(directory)
        for index in 0..<5 {
            server.setImage(TestData.bytes(30_000 + index, seed: UInt64(index + 100)), at: "/m\(index).png")
        }
        // Settings change on another path while the requests run.
        let churn = Task.detached {
            for round in 0..<200 {
                server.setImage(TestData.bytes(round + 1), at: "/churn.jpg")
                server.setFault(round % 2 == 0 ? .ignoreRange : nil, for: "/churn.jpg")
                server.setThrottle(round % 3 == 0 ? .init(chunkSize: 100) : nil, for: "/churn.jpg")
                _ = server.requestCount(for: "/m0.png")
            }
        }
        let results = try await withThrowingTaskGroup(of: Bool.self) { group in
            for request in 0..<50 {
                group.addTask {
                    let index = request % 5
                    let isFile = request % 2 == 0
                    let path = isFile ? "/f\(index).jpg" : "/m\(index).png"
                    let expected =
                        isFile
                        ? TestData.bytes(20_000 + index, seed: UInt64(index + 1))
                        : TestData.bytes(30_000 + index, seed: UInt64(index + 100))
                    let (response, body) = try await HTTPTestClient.fetch(server.url(for: path))
                    return response.statusCode == 200 && body == expected
                }
            }
            var all: [Bool] = []
            for try await result in group { all.append(result) }
            return all
        }
        await churn.value
        #expect(results.count == 50)
        #expect(results.allSatisfy { $0 })
        #expect(server.allRequests.count == 50)
        #expect(server.allRequests.allSatisfy { $0.status == 200 })
    }
}
