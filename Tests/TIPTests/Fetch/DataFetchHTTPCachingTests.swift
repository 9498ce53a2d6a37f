import Foundation
import Testing

@testable import TIP

/// Data-only fetches follow HTTP caching as image fetches do: stale bytes are revalidated before they are handed
/// out, and bytes a data fetch copies from disk to memory keep their freshness.
@Suite("HTTP caching: data fetches")
struct DataFetchHTTPCachingTests {
    typealias Fixture = HTTPRevalidationTests.Fixture

    /// A data fetch of `name`; `answer` answers the download it makes (none when nil: it must not make one).
    static func fetchData(
        _ f: Fixture, _ name: String, answer: ((SteppedDownload) -> Void)? = nil
    ) async throws -> ImageDataFetchResult {
        async let fetched = f.pipeline.fetchImageData(for: Fixture.request(name))
        if let answer { answer(try await f.provider.next()) }
        return try await fetched
    }

    @Test("stale bytes in memory or on disk are revalidated before a data fetch gets them; a 304 serves them")
    func staleBytesAreRevalidated() async throws {
        let f = try Fixture()
        defer { f.tearDown() }
        _ = try await f.fetch(Fixture.request("a.jpg")) { f.serve($0, headers: ["Cache-Control": "max-age=60"]) }
        f.clock.advance(61)
        let fromMemory = try await Self.fetchData(f, "a.jpg") { download in
            #expect(download.header("If-None-Match") == "\"v1\"")
            f.notModified(download, headers: ["Cache-Control": "max-age=60"])
        }
        #expect(fromMemory.data == f.jpeg)
        #expect(f.provider.count == 2)

        f.pipeline.clearMemoryCaches()
        f.clock.advance(61)
        let fromDisk = try await Self.fetchData(f, "a.jpg") { download in
            #expect(download.header("If-None-Match") == "\"v1\"")
            f.notModified(download, headers: ["Cache-Control": "max-age=60"])
        }
        #expect(fromDisk.data == f.jpeg)
        #expect(f.provider.count == 3)
    }

    @Test("bytes a data fetch reads from disk keep their freshness in memory: an image fetch revalidates them later")
    func copiedBytesKeepTheirFreshness() async throws {
        let f = try Fixture()
        defer { f.tearDown() }
        _ = try await f.fetch(Fixture.request("b.jpg")) { f.serve($0, headers: ["Cache-Control": "max-age=60"]) }
        f.pipeline.clearMemoryCaches()
        f.clock.advance(30)
        let fresh = try await Self.fetchData(f, "b.jpg")  // fresh on disk: read, copied to memory, no request
        #expect(fresh.imageSource == .diskCache && f.provider.count == 1)
        f.clock.advance(31)  // stale: the memory copy must not answer as if it were fresh
        let revalidated = try await f.fetch(Fixture.request("b.jpg", size: 90)) { download in
            #expect(download.header("If-None-Match") == "\"v1\"")
            f.notModified(download, headers: ["Cache-Control": "max-age=60"])
        }
        #expect(revalidated.result?.imageWasRevalidated == true)
        #expect(f.provider.count == 2)
    }

    @Test("no-cache: every data fetch revalidates; stale bytes without a validator are downloaded again")
    func noCacheAndNoValidator() async throws {
        let f = try Fixture()
        defer { f.tearDown() }
        _ = try await f.fetch(Fixture.request("nc.jpg")) { f.serve($0, headers: ["Cache-Control": "no-cache"]) }
        for round in 0..<2 {
            let result = try await Self.fetchData(f, "nc.jpg") { download in
                #expect(download.header("If-None-Match") == "\"v1\"", "round \(round)")
                f.notModified(download, headers: ["Cache-Control": "no-cache"])
            }
            #expect(result.data == f.jpeg)
        }
        #expect(f.provider.count == 3)

        // No validator at all: once stale, the bytes are dropped and downloaded whole.
        _ = try await f.fetch(Fixture.request("plain.jpg")) { download in
            let headers = ["Content-Length": "\(f.jpeg.count)", "Cache-Control": "max-age=5"]
            download.respond(status: 200, headers: headers)
            download.send(f.jpeg)
            download.finish()
        }
        f.clock.advance(6)
        let again = try await Self.fetchData(f, "plain.jpg") { download in
            #expect(download.header("If-None-Match") == nil && download.header("If-Modified-Since") == nil)
            f.serve(download, headers: ["Cache-Control": "max-age=5"])
        }
        #expect(again.imageSource == .network)
    }

    @Test("another pipeline's stale file is not handed out by a data fetch, nor deleted by it")
    func otherPipelinesStaleFile() async throws {
        let f = try Fixture()
        defer { f.tearDown() }
        _ = try await f.fetch(Fixture.request("x.jpg")) { f.serve($0, headers: ["Cache-Control": "max-age=60"]) }
        f.clock.advance(61)
        let other = try ImagePipeline(
            checkedIdentifier: "other-\(UUID().uuidString)", configuration: f.env.configuration)
        var request = Fixture.request("x.jpg")
        request.loadingSources = [.memoryCache, .diskCache]
        await #expect(throws: ImageFetchError.self) { try await other.fetchImageData(for: request) }
        #expect(f.diskMetadata("x.jpg") != nil)
        withExtendedLifetime(other) {}
    }
}
