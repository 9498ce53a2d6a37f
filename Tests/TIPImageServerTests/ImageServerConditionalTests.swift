import Foundation
import NIOHTTP1
import Testing

@testable import TIPImageServer

#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

@Suite("Image server conditional requests and caching headers")
struct ImageServerConditionalTests {
    static let lastModified = "Mon, 01 Jan 2024 00:00:00 GMT"

    @Test(
        "304 rules: If-None-Match (weak comparison, lists, *) first, else If-Modified-Since by date",
        arguments: [
            (["If-None-Match": "\"abc\""], true),
            (["If-None-Match": "W/\"abc\""], true),
            (["If-None-Match": "\"x\", \"abc\""], true),
            (["If-None-Match": "*"], true),
            (["If-None-Match": "\"x\""], false),
            (["If-None-Match": "\"x\"", "If-Modified-Since": lastModified], false),
            (["If-Modified-Since": lastModified], true),
            (["If-Modified-Since": "Tue, 02 Jan 2024 00:00:00 GMT"], true),
            (["If-Modified-Since": "Sun, 31 Dec 2023 23:59:59 GMT"], false),
            (["If-Modified-Since": "yesterday"], false),
            ([:], false),
        ])
    func rules(headers: [String: String], notModified: Bool) {
        let fields = HTTPHeaders(headers.map { ($0.key, $0.value) })
        #expect(ResponsePlan.isNotModified(fields, lastModified: Self.lastModified, etag: "\"abc\"") == notModified)
    }

    @Test(
        """
        over the wire: a matching validator gets 304 without a body, with the validators and the path's caching \
        headers
        """
    )
    func notModified() async throws {
        let server = try await TestData.startedServer()
        defer { server.stop() }
        let bytes = TestData.bytes(2_000)
        server.setImage(bytes, at: "/c.jpg")
        server.setResponseHeaders(
            [("Cache-Control", "max-age=60"), ("Date", "Mon, 01 Jan 2024 00:00:05 GMT")], for: "/c.jpg")
        let url = server.url(for: "/c.jpg")

        let (first, body) = try await HTTPTestClient.fetch(url)
        #expect(first.statusCode == 200 && body == bytes)
        #expect(first.header("Cache-Control") == "max-age=60")
        #expect(first.header("Date") == "Mon, 01 Jan 2024 00:00:05 GMT")
        let etag = try #require(first.header("ETag"))
        let lastModified = try #require(first.header("Last-Modified"))

        let (tagged, taggedBody) = try await HTTPTestClient.fetch(url, headers: ["If-None-Match": etag])
        #expect(tagged.statusCode == 304 && taggedBody.isEmpty)
        #expect(tagged.header("ETag") == etag && tagged.header("Last-Modified") == lastModified)
        #expect(tagged.header("Cache-Control") == "max-age=60")
        let (dated, _) = try await HTTPTestClient.fetch(url, headers: ["If-Modified-Since": lastModified])
        #expect(dated.statusCode == 304)

        server.changeValidator(at: "/c.jpg")
        let (changed, changedBody) = try await HTTPTestClient.fetch(url, headers: ["If-None-Match": etag])
        #expect(changed.statusCode == 200 && changedBody == bytes)
        #expect(server.requests(for: "/c.jpg").map(\.status) == [200, 304, 304, 200])

        server.setResponseHeaders([], for: "/c.jpg")
        let (plain, _) = try await HTTPTestClient.fetch(url)
        #expect(plain.header("Cache-Control") == nil)
    }

    @Test("caching headers go out with 206 responses too, and a conditional range request gets 304 when current")
    func rangesAndConditionals() async throws {
        let server = try await TestData.startedServer()
        defer { server.stop() }
        server.setImage(TestData.bytes(1_000), at: "/r.jpg")
        server.setResponseHeaders([("Cache-Control", "no-cache")], for: "/r.jpg")
        let url = server.url(for: "/r.jpg")
        let (whole, _) = try await HTTPTestClient.fetch(url)
        let etag = try #require(whole.header("ETag"))
        let (partial, _) = try await HTTPTestClient.fetch(url, headers: ["Range": "bytes=10-"])
        #expect(partial.statusCode == 206 && partial.header("Cache-Control") == "no-cache")
        let (both, _) = try await HTTPTestClient.fetch(
            url, headers: ["Range": "bytes=10-", "If-Range": etag, "If-None-Match": etag])
        #expect(both.statusCode == 304)
        let (other, _) = try await HTTPTestClient.fetch(
            url, headers: ["Range": "bytes=10-", "If-Range": etag, "If-None-Match": "\"old\""])
        #expect(other.statusCode == 206)
    }
}
