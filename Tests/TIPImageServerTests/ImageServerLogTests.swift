import Foundation
import TIPImageServer
import Testing

#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

@Suite("Image server request log")
struct ImageServerLogTests {
    @Test("Method, path, headers, status and bytes of every request; counts; reset")
    func log() async throws {
        let server = try await TestData.startedServer()
        defer { server.stop() }
        server.setImage(TestData.bytes(700), at: "/a.jpg")
        _ = try await HTTPTestClient.fetch(server.url(for: "/a.jpg?size=big"), headers: ["X-Test": "one"])
        _ = try await HTTPTestClient.fetch(server.url(for: "/a.jpg"), headers: ["Range": "bytes=0-99"])
        _ = try await HTTPTestClient.fetch(server.url(for: "/a.jpg"), method: "HEAD")
        _ = try await HTTPTestClient.fetch(server.url(for: "/missing.jpg"))

        #expect(server.requestCount(for: "/a.jpg") == 3)
        #expect(server.requestCount(for: "a.jpg") == 3)
        #expect(server.requestCount(for: "/missing.jpg") == 1)
        #expect(server.requestCount(for: "/other.jpg") == 0)
        let records = server.requests(for: "/a.jpg")
        #expect(records.map(\.method) == ["GET", "GET", "HEAD"])
        #expect(records.map(\.status) == [200, 206, 200])
        #expect(records.map(\.bytesSent) == [700, 100, 0])
        #expect(records.allSatisfy { $0.isComplete })
        #expect(records[0].uri == "/a.jpg?size=big")
        #expect(records[0].header("x-test") == "one")
        #expect(records[0].headers.contains { $0.name == "X-Test" && $0.value == "one" })
        #expect(records[1].header("Range") == "bytes=0-99")
        #expect(server.requests(for: "/missing.jpg").first?.status == 404)
        #expect(server.allRequests.count == 4)

        // Incomplete responses are marked so; waitUntil sees the server catch up.
        server.setFault(.dropConnection(afterBodyBytes: 10), for: "/a.jpg")
        let connection = try RawHTTPConnection(port: server.port)
        try connection.sendRequest("GET", "/a.jpg")
        #expect(connection.readToEnd().closed)
        #expect(await server.waitUntil { $0.openConnectionCount == 0 })
        #expect(server.requests(for: "/a.jpg").last?.isComplete == false)
        #expect(server.requests(for: "/a.jpg").last?.bytesSent == 10)
        #expect(await server.waitUntil(timeout: .milliseconds(50)) { $0.requestCount(for: "/a.jpg") == 99 } == false)
        server.setFault(nil, for: "/a.jpg")

        server.resetLog()
        #expect(server.allRequests.isEmpty)
        #expect(server.requestCount(for: "/a.jpg") == 0)
        _ = try await HTTPTestClient.fetch(server.url(for: "/a.jpg"))
        #expect(server.requestCount(for: "/a.jpg") == 1)
        #expect(server.requests(for: "/a.jpg").first?.bytesSent == 700)
    }
}
