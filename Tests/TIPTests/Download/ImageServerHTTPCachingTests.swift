import Foundation
import TIPImageServer
import Testing

@testable import TIP

#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// HTTP caching over a real connection: the embedded image server with caching headers of the test's choice,
/// fetched with the shipped download providers (libcurl, the default, and URLSession), on the test's clock.
@Suite("HTTP caching against the embedded image server")
struct ImageServerHTTPCachingTests {
    struct Fixture {
        let clock = TestClock(Date(timeIntervalSince1970: 1_700_000_000))
        let configuration: GlobalConfiguration
        let root: URL
        let pipeline: ImagePipeline
        let server = TIPImageServer()

        /// `provider`: the shipped download provider the pipeline downloads with (nil: the default).
        init(_ name: String = #function, provider: ShippedDownloadProvider? = nil) async throws {
            (configuration, root) = try makeTestConfiguration(name, clock: clock)
            if let provider { configuration.imageFetchDownloadProvider = provider.make() }
            pipeline = try #require(ImagePipeline(identifier: "server-caching", configuration: configuration))
            pipeline.diskCache.waitUntilManifestLoaded()
            try await server.start()
        }

        /// Stops the server (the blocking form, as `defer` needs) and deletes the caches root.
        func tearDown() {
            server.stop()
            pipeline.diskCache.waitUntilManifestLoaded()
            try? FileManager.default.removeItem(at: root)
        }

        func fetch(_ path: String) async throws -> ImageFetchResult {
            let request = GenericImageFetchRequest(
                imageURL: server.url(for: path), identifier: nil,
                targetDimensions: CGSize(width: 80, height: 80), targetContentMode: .scaleAspectFit)
            return try await pipeline.fetchImage(for: request)
        }
    }

    @Test(
        "max-age and ETag: a 304 after expiry, a 200 once the image changed, each cached image renewed or replaced",
        arguments: ShippedDownloadProvider.allCases)
    func revalidation(_ provider: ShippedDownloadProvider) async throws {
        let f = try await Fixture(provider: provider)
        defer { f.tearDown() }
        let jpeg = try DownloaderTestEnvironment.jpeg(width: 320, height: 240, seed: 31)
        f.server.setImage(jpeg, at: "/a.jpg")
        f.server.setResponseHeaders([("Cache-Control", "public, max-age=30")], for: "/a.jpg")
        let identifier = f.server.url(for: "/a.jpg").absoluteString
        func storedTag() -> String? {
            f.pipeline.diskCache.entry(withIdentifier: identifier)?.complete?.metadata.entityTag
        }

        #expect(try await f.fetch("/a.jpg").imageSource == .network)
        let firstTag = try #require(storedTag())
        f.clock.advance(31)
        let revalidated = try await f.fetch("/a.jpg")
        #expect(revalidated.imageWasRevalidated && revalidated.imageSource == .diskCache)
        let records = f.server.requests(for: "/a.jpg")
        #expect(records.map(\.status) == [200, 304])
        #expect(records.last?.header("If-None-Match") == firstTag)
        #expect(records.last?.header("If-Modified-Since") != nil)
        #expect(records.last?.bytesSent == 0)

        f.clock.advance(31)
        f.server.changeValidator(at: "/a.jpg")
        let replaced = try await f.fetch("/a.jpg")
        #expect(replaced.imageSource == .network && !replaced.imageWasRevalidated)
        #expect(f.server.requests(for: "/a.jpg").map(\.status) == [200, 304, 200])
        #expect(f.server.requests(for: "/a.jpg").last?.header("If-None-Match") == firstTag)
        #expect(storedTag() != nil && storedTag() != firstTag)
    }

    @Test("no-store over the wire: every fetch downloads, nothing reaches the disk")
    func noStore() async throws {
        let f = try await Fixture()
        defer { f.tearDown() }
        f.server.setImage(try DownloaderTestEnvironment.jpeg(width: 160, height: 120, seed: 32), at: "/n.jpg")
        f.server.setResponseHeaders([("Cache-Control", "no-store")], for: "/n.jpg")
        for _ in 0..<2 { #expect(try await f.fetch("/n.jpg").imageSource == .network) }
        #expect(f.server.requests(for: "/n.jpg").map(\.status) == [200, 200])
        #expect(f.pipeline.diskCache.entry(withIdentifier: f.server.url(for: "/n.jpg").absoluteString) == nil)
    }

    @Test("Expires against the server's Date: the client's clock does not matter")
    func expiresAgainstDate() async throws {
        let f = try await Fixture()
        defer { f.tearDown() }
        f.server.setImage(try DownloaderTestEnvironment.jpeg(width: 160, height: 120, seed: 33), at: "/e.jpg")
        // The server's clock is a year ahead of the client's: only Expires − Date (120 s) counts.
        f.server.setResponseHeaders(
            [("Date", "Thu, 14 Nov 2024 22:13:20 GMT"), ("Expires", "Thu, 14 Nov 2024 22:15:20 GMT")],
            for: "/e.jpg")
        _ = try await f.fetch("/e.jpg")
        f.clock.advance(119)
        f.pipeline.clearMemoryCaches()
        #expect(try await f.fetch("/e.jpg").imageSource == .diskCache)
        f.clock.advance(2)
        #expect(try await f.fetch("/e.jpg").imageWasRevalidated)
        #expect(f.server.requests(for: "/e.jpg").map(\.status) == [200, 304])
    }
}
