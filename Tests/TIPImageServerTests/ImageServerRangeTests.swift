import Foundation
import Testing

@testable import TIPImageServer

#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

@Suite("Image server ranges")
struct ImageServerRangeTests {
    @Test(
        "Range header parsing",
        arguments: [
            ("bytes=10-", ByteRange.partial(lower: 10, upper: 99)),
            ("bytes=10-19", .partial(lower: 10, upper: 19)),
            ("bytes=-10", .partial(lower: 90, upper: 99)),
            ("bytes=-1000", .partial(lower: 0, upper: 99)),
            ("bytes=0-0", .partial(lower: 0, upper: 0)),
            ("bytes=5-1000", .partial(lower: 5, upper: 99)),
            ("Bytes = 1-2 ", .whole),
            (" bytes=1-2", .partial(lower: 1, upper: 2)),
            ("bytes=100-", .unsatisfiable),
            ("bytes=100-200", .unsatisfiable),
            ("bytes=-0", .unsatisfiable),
            ("bytes=0-1,5-6", .whole),
            ("bytes=5-1", .whole),
            ("bytes=a-b", .whole),
            ("items=0-1", .whole),
            ("bytes=-", .whole),
            ("bytes=99999999999999999999999-", .unsatisfiable),
        ])
    func parse(header: String, expected: ByteRange) {
        #expect(ByteRange.parse(header, length: 100) == expected)
    }

    @Test("206, 416 and ignored multi-ranges over the wire")
    func ranges() async throws {
        let server = try await TestData.startedServer()
        defer { server.stop() }
        let bytes = TestData.bytes(1000)
        server.setImage(bytes, at: "/r.jpg")
        let url = server.url(for: "/r.jpg")

        let cases: [(String, Int, Range<Int>?, String?)] = [
            ("bytes=100-", 206, 100..<1000, "bytes 100-999/1000"),
            ("bytes=100-199", 206, 100..<200, "bytes 100-199/1000"),
            ("bytes=-300", 206, 700..<1000, "bytes 700-999/1000"),
            ("bytes=990-5000", 206, 990..<1000, "bytes 990-999/1000"),
            ("bytes=1000-", 416, nil, "bytes */1000"),
            ("bytes=-0", 416, nil, "bytes */1000"),
            ("bytes=0-1,5-9", 200, 0..<1000, nil),
            ("nonsense", 200, 0..<1000, nil),
        ]
        for (range, status, slice, contentRange) in cases {
            let (response, body) = try await HTTPTestClient.fetch(url, headers: ["Range": range])
            #expect(response.statusCode == status, "\(range)")
            #expect(response.header("Content-Range") == contentRange, "\(range)")
            if let slice {
                #expect(body == bytes.subdata(in: slice), "\(range)")
                #expect(response.header("Content-Length") == String(slice.count))
            } else {
                #expect(body.isEmpty)
            }
        }
    }

    @Test("If-Range with the date or the strong tag honours Range; a stale or weak one gets 200")
    func ifRange() async throws {
        let server = try await TestData.startedServer()
        defer { server.stop() }
        let bytes = TestData.bytes(500)
        server.setImage(bytes, at: "/i.png")
        let url = server.url(for: "/i.png")
        let (first, _) = try await HTTPTestClient.fetch(url)
        let etag = try #require(first.header("ETag"))
        let date = try #require(first.header("Last-Modified"))

        let honoured = [date, etag]
        for validator in honoured {
            let (response, body) = try await HTTPTestClient.fetch(
                url, headers: ["Range": "bytes=200-", "If-Range": validator])
            #expect(response.statusCode == 206, "\(validator)")
            #expect(body == bytes.subdata(in: 200..<500))
        }
        let stale = ["Tue, 02 Jan 2024 00:00:00 GMT", "\"other\"", "W/\(etag)", "Mon, 01 Jan 2024 00:00:01 GMT"]
        for validator in stale {
            let (response, body) = try await HTTPTestClient.fetch(
                url, headers: ["Range": "bytes=200-", "If-Range": validator])
            #expect(response.statusCode == 200, "\(validator)")
            #expect(body == bytes)
        }

        // After a validator change the old ones are stale.
        server.changeValidator(at: "/i.png")
        let (changed, changedBody) = try await HTTPTestClient.fetch(
            url, headers: ["Range": "bytes=200-", "If-Range": etag])
        #expect(changed.statusCode == 200)
        #expect(changedBody == bytes)
        #expect(changed.header("ETag") != etag)
        #expect(changed.header("Last-Modified") == "Mon, 01 Jan 2024 00:00:01 GMT")
        let (again, _) = try await HTTPTestClient.fetch(
            url, headers: ["Range": "bytes=200-", "If-Range": try #require(changed.header("ETag"))])
        #expect(again.statusCode == 206)
    }
}
