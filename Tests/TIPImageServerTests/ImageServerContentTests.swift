import Foundation
import Testing

@testable import TIPImageServer

#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

@Suite("Image server content")
struct ImageServerContentTests {
    @Test("Start exposes an ephemeral port and base URL; stop resets them")
    func lifecycle() async throws {
        let server = try await TestData.startedServer()
        #expect(server.port > 0)
        #expect(server.isRunning)
        #expect(server.baseURL.absoluteString == "http://127.0.0.1:\(server.port)/")
        #expect(server.url(for: "a.jpg").absoluteString == "http://127.0.0.1:\(server.port)/a.jpg")
        await #expect(throws: TIPImageServer.ServerError.alreadyRunning) { try await server.start() }
        await server.stop()
        #expect(server.port == 0)
        #expect(!server.isRunning)
    }

    @Test("An in-memory image comes with every header")
    func inMemoryImage() async throws {
        let server = try await TestData.startedServer()
        defer { server.stop() }
        let bytes = TestData.bytes(10_000)
        server.setImage(bytes, at: "/photo.jpg")
        let (response, body) = try await HTTPTestClient.fetch(server.url(for: "/photo.jpg"))
        #expect(response.statusCode == 200)
        #expect(body == bytes)
        #expect(response.header("Content-Length") == "10000")
        #expect(response.header("Content-Type") == "image/jpeg")
        #expect(response.header("Accept-Ranges") == "bytes")
        #expect(response.header("Last-Modified") == "Mon, 01 Jan 2024 00:00:00 GMT")
        let etag = try #require(response.header("ETag"))
        #expect(etag.hasPrefix("\"") && etag.hasSuffix("\"") && etag.count > 2)

        // Same bytes elsewhere: same tag. Other bytes: another tag. Given type and date are used.
        server.setImage(
            bytes, at: "copy.bin", contentType: "image/x-custom",
            lastModified: Date(timeIntervalSince1970: 784_111_777.5))
        let (copy, _) = try await HTTPTestClient.fetch(server.url(for: "/copy.bin"))
        #expect(copy.header("ETag") == etag)
        #expect(copy.header("Content-Type") == "image/x-custom")
        #expect(copy.header("Last-Modified") == "Sun, 06 Nov 1994 08:49:37 GMT")
        server.setImage(TestData.bytes(10_000, seed: 7), at: "/photo.jpg")
        let (changed, _) = try await HTTPTestClient.fetch(server.url(for: "/photo.jpg"))
        #expect(changed.header("ETag") != etag)

        server.removeImage(at: "/photo.jpg")
        let (removed, _) = try await HTTPTestClient.fetch(server.url(for: "/photo.jpg"))
        #expect(removed.statusCode == 404)
    }

    @Test("The configured default Last-Modified is used for in-memory images")
    func configuredDate() async throws {
        let server = try await TestData.startedServer(.init(defaultLastModified: Date(timeIntervalSince1970: 0)))
        defer { server.stop() }
        server.setImage(Data([1, 2, 3]), at: "/x.png")
        let (response, _) = try await HTTPTestClient.fetch(server.url(for: "/x.png"))
        #expect(response.header("Last-Modified") == "Thu, 01 Jan 1970 00:00:00 GMT")
        #expect(response.header("Content-Type") == "image/png")
    }

    @Test("Files of the served directory, nested too, with their modification date")
    func files() async throws {
        let directory = try TestData.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: directory) }
        let bytes = TestData.bytes(5_000)
        try FileManager.default.createDirectory(
            at: directory.appendingPathComponent("sub"),
            withIntermediateDirectories: true)
        let file = directory.appendingPathComponent("sub/pic one.gif")
        try bytes.write(to: file)
        let date = Date(timeIntervalSince1970: 1_600_000_000)
        try FileManager.default.setAttributes([.modificationDate: date], ofItemAtPath: file.path)

        let server = try await TestData.startedServer()
        defer { server.stop() }
        server.serveDirectory(directory)
        let (response, body) = try await HTTPTestClient.fetch(server.url(for: "/sub/pic%20one.gif"))
        #expect(response.statusCode == 200)
        #expect(body == bytes)
        #expect(response.header("Content-Type") == "image/gif")
        #expect(response.header("Last-Modified") == "Sun, 13 Sep 2020 12:26:40 GMT")
        #expect(response.header("Accept-Ranges") == "bytes")
        #expect(response.header("ETag") != nil)

        // An in-memory image at the same path wins.
        server.setImage(Data([9]), at: "/sub/pic%20one.gif")
        let (memory, memoryBody) = try await HTTPTestClient.fetch(server.url(for: "/sub/pic%20one.gif"))
        #expect(memory.statusCode == 200)
        #expect(memoryBody == Data([9]))

        server.serveDirectory(nil)
        let (gone, _) = try await HTTPTestClient.fetch(server.url(for: "/sub/x.gif"))
        #expect(gone.statusCode == 404)
    }

    @Test("Empty bodies and a large file")
    func emptyAndLarge() async throws {
        let directory = try TestData.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: directory) }
        let large = TestData.bytes(3 * 1024 * 1024 + 17)
        try large.write(to: directory.appendingPathComponent("large.jpg"))
        try Data().write(to: directory.appendingPathComponent("empty.jpg"))
        let server = try await TestData.startedServer()
        defer { server.stop() }
        server.serveDirectory(directory)
        server.setImage(Data(), at: "/empty.png")

        let (largeResponse, largeBody) = try await HTTPTestClient.fetch(server.url(for: "/large.jpg"))
        #expect(largeResponse.statusCode == 200)
        #expect(largeBody == large)
        let (tail, tailBody) = try await HTTPTestClient.fetch(
            server.url(for: "/large.jpg"), headers: ["Range": "bytes=-17"])
        #expect(tail.statusCode == 206)
        #expect(tailBody == large.suffix(17))
        for path in ["/empty.jpg", "/empty.png"] {
            let (response, body) = try await HTTPTestClient.fetch(server.url(for: path))
            #expect(response.statusCode == 200)
            #expect(body.isEmpty)
            #expect(response.header("Content-Length") == "0")
            let (ranged, _) = try await HTTPTestClient.fetch(server.url(for: path), headers: ["Range": "bytes=0-"])
            #expect(ranged.statusCode == 416)
            #expect(ranged.header("Content-Range") == "bytes */0")
        }
    }

    @Test("HEAD sends the headers of GET and no body, and the connection stays usable")
    func head() async throws {
        let server = try await TestData.startedServer()
        defer { server.stop() }
        server.setImage(TestData.bytes(1234), at: "/h.jpg")
        let connection = try RawHTTPConnection(port: server.port)
        try connection.sendRequest("HEAD", "/h.jpg")
        let head = try connection.readResponse(isHead: true)
        #expect(head.status == 200)
        #expect(head.header("Content-Length") == "1234")
        #expect(head.header("ETag") != nil)
        #expect(head.header("Last-Modified") != nil)
        try connection.sendRequest("GET", "/h.jpg")
        let get = try connection.readResponse()
        #expect(get.status == 200)
        #expect(get.body == TestData.bytes(1234))
        #expect(get.header("ETag") == head.header("ETag"))
        #expect(server.allRequests.map(\.method) == ["HEAD", "GET"])

        let (viaSession, body) = try await HTTPTestClient.fetch(server.url(for: "/h.jpg"), method: "HEAD")
        #expect(viaSession.statusCode == 200)
        #expect(body.isEmpty)
    }

    @Test("Keep-alive: several requests on one connection")
    func keepAlive() async throws {
        let server = try await TestData.startedServer()
        defer { server.stop() }
        server.setImage(TestData.bytes(100), at: "/k.png")
        let connection = try RawHTTPConnection(port: server.port)
        for _ in 0..<5 {
            try connection.sendRequest("GET", "/k.png")
            let response = try connection.readResponse()
            #expect(response.status == 200)
            #expect(response.body.count == 100)
        }
        try connection.sendRequest("GET", "/missing")
        #expect(try connection.readResponse().status == 404)
        try connection.sendRequest("GET", "/k.png", headers: ["Connection: close"])
        let last = try connection.readResponse()
        #expect(last.status == 200)
        #expect(connection.readToEnd().closed)
    }

    @Test("Other methods get 405 with Allow")
    func methodNotAllowed() async throws {
        let server = try await TestData.startedServer()
        defer { server.stop() }
        server.setImage(TestData.bytes(10), at: "/m.jpg")
        for method in ["POST", "PUT", "DELETE", "OPTIONS"] {
            let connection = try RawHTTPConnection(port: server.port)
            try connection.sendRequest(method, "/m.jpg", headers: ["Content-Length: 0"])
            let response = try connection.readResponse()
            #expect(response.status == 405, "\(method)")
            #expect(response.header("Allow") == "GET, HEAD")
        }
        let (response, _) = try await HTTPTestClient.fetch(server.url(for: "/m.jpg"), method: "POST")
        #expect(response.statusCode == 405)
    }
}
