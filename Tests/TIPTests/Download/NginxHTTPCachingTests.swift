import Foundation
import TIPImageServer
import Testing

@testable import TIP

#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// HTTP caching against real servers: Debian's nginx with `expires` and its `ETag` / `Last-Modified` (a static
/// origin), and nginx's `proxy_cache` in front of the embedded image server (how a fleet of instances shares one
/// cache). The pipelines download with each shipped provider (the fleet with the default, libcurl); their clocks are
/// the tests', so an image goes stale when the test moves a clock, never by waiting. Skipped when nginx is not
/// installed (scripts/bootstrap installs it).
@Suite(
    "HTTP caching against nginx",
    .enabled(if: NginxTestServer.isAvailable, "nginx is not installed: run scripts/bootstrap (apt-get install nginx)"))
struct NginxHTTPCachingTests {
    static let modified = Date(timeIntervalSince1970: 1_715_000_000)

    /// One instance of a service: its own configuration, clock, caches root and pipeline.
    struct Instance {
        let clock = TestClock(Date())
        let configuration: GlobalConfiguration
        let root: URL
        let pipeline: ImagePipeline

        /// `provider`: the shipped download provider the instance downloads with (nil: the default).
        init(_ name: String, provider: ShippedDownloadProvider? = nil) throws {
            let (configuration, root) = try makeTestConfiguration(name, clock: clock)
            if let provider { configuration.imageFetchDownloadProvider = provider.make() }
            self.configuration = configuration
            self.root = root
            pipeline = try #require(ImagePipeline(identifier: "nginx-caching", configuration: configuration))
            pipeline.diskCache.waitUntilManifestLoaded()
        }

        /// Fetches `url` at 100x100 and returns the final result and the operation.
        func fetch(_ url: URL) async throws -> (result: ImageFetchResult, operation: ImageFetchOperation) {
            let request = GenericImageFetchRequest(
                imageURL: url, identifier: nil, targetDimensions: CGSize(width: 100, height: 100),
                targetContentMode: .scaleAspectFit)
            let outcome = Locked<(ImageFetchResult?, (any Error)?)>((nil, nil))
            let operation = pipeline.operation(with: request) { result, error in
                outcome.withLock { $0 = (result, error) }
            }
            pipeline.fetchImage(with: operation)
            #expect(await eventually { operation.isFinished })
            let (result, error) = outcome.withLock { $0 }
            guard let result else { throw error ?? ImageFetchError(.couldNotLoadImage, "no result") }
            return (result, operation)
        }

        func tearDown() {
            pipeline.diskCache.waitUntilManifestLoaded()
            try? FileManager.default.removeItem(at: root)
        }
    }

    @Test(
        "nginx `expires` and `etag`: fresh for max-age, then one If-None-Match answered 304, served from disk",
        arguments: ShippedDownloadProvider.allCases)
    func expiresAndEntityTag(_ provider: ShippedDownloadProvider) async throws {
        let server = try NginxTestServer(
            rateLimit: 64 * 1024 * 1024,
            serverDirectives: """
                location /expires/ { alias {root}; expires 60s; }
                location /expires-lm/ { alias {root}; etag off; expires 60s; }
                """)
        defer { server.stop() }
        let jpeg = try DownloaderTestEnvironment.jpeg(width: 320, height: 240, seed: 21)
        try server.setFile("e.jpg", data: jpeg, modified: Self.modified)
        try server.start()
        let instance = try Instance("nginx-expires-\(provider)", provider: provider)
        defer { instance.tearDown() }

        for (location, validatorHeader) in [("expires", "If-None-Match"), ("expires-lm", "If-Modified-Since")] {
            let url = server.baseURL.appendingPathComponent(location).appendingPathComponent("e.jpg")
            let first = try await instance.fetch(url)
            #expect(first.result.imageSource == .network)
            let stored = try #require(
                instance.pipeline.diskCache.entry(withIdentifier: url.absoluteString)?.complete?.metadata)
            #expect(stored.freshness?.serverLifetime == 60)
            instance.pipeline.clearMemoryCaches()
            instance.clock.advance(59)
            #expect(try await instance.fetch(url).result.imageSource == .diskCache)
            instance.clock.advance(2)
            let (revalidated, operation) = try await instance.fetch(url)
            #expect(revalidated.imageSource == .diskCache && revalidated.imageWasRevalidated, "\(location)")
            #expect(
                operation.metrics?.metricInfo(for: .network)?.networkRequest?.value(forHTTPHeaderField: validatorHeader)
                    != nil)
            let lines = server.accessLog().filter { $0.uri == url.path }
            #expect(lines.map(\.status) == [200, 304], "\(location)")
            if location == "expires" {
                #expect(
                    lines.last?.ifNoneMatch == NginxTestServer.entityTag(modified: Self.modified, length: jpeg.count))
            } else {
                #expect(lines.last?.ifNoneMatch == nil)
                #expect(lines.last?.ifModifiedSince == NginxTestServer.httpDate(Self.modified))
            }
            // Renewed for another 60 s.
            instance.clock.advance(59)
            #expect(try await instance.fetch(url).result.imageSource == .memoryCache)
            #expect(server.accessLog().filter { $0.uri == url.path }.count == 2)
        }
    }

    @Test(
        """
        a fleet behind nginx proxy_cache: one origin body; revalidations through the proxy are 304s, counted at \
        every hop
        """
    )
    func fleetBehindProxyCache() async throws {
        let origin = TIPImageServer()
        try await origin.start()
        defer { origin.stop() }
        let jpeg = try DownloaderTestEnvironment.jpeg(width: 320, height: 240, seed: 22)
        // Fresh at the proxy for an hour of real time (the proxy's clock is the machine's: an hour leaves any
        // loaded machine room); the other path expires at the proxy at once (X-Accel-Expires in the past), so the
        // proxy itself revalidates it with the origin on every request. The instances' clocks are the tests'.
        origin.setImage(jpeg, at: "/fresh.jpg")
        origin.setResponseHeaders([("Cache-Control", "max-age=3600")], for: "/fresh.jpg")
        origin.setImage(jpeg, at: "/revalidated.jpg")
        origin.setResponseHeaders(
            [("Cache-Control", "max-age=3600"), ("X-Accel-Expires", "@1")], for: "/revalidated.jpg")
        let proxy = try NginxTestServer(
            rateLimit: 64 * 1024 * 1024,
            httpDirectives: """
                proxy_cache_path {dir}/proxy_cache levels=1:2 keys_zone=tip:1m inactive=10m use_temp_path=off;
                """,
            serverDirectives: """
                location /proxy/ { proxy_pass http://127.0.0.1:\(origin.port)/; proxy_cache tip;
                    proxy_cache_revalidate on; }
                """)
        defer { proxy.stop() }
        try proxy.start()
        let a = try Instance("fleet-a")
        let b = try Instance("fleet-b")
        defer {
            a.tearDown()
            b.tearDown()
        }

        for path in ["fresh.jpg", "revalidated.jpg"] {
            let url = proxy.baseURL.appendingPathComponent("proxy").appendingPathComponent(path)
            #expect(try await a.fetch(url).result.imageSource == .network)
            #expect(try await b.fetch(url).result.imageSource == .network)  // from the proxy's cache
            a.clock.advance(3_601)
            let (revalidated, _) = try await a.fetch(url)
            #expect(revalidated.imageSource == .diskCache && revalidated.imageWasRevalidated, "\(path)")
            #expect(revalidated.imageContainer.dimensions == CGSize(width: 100, height: 75))

            let originStatuses = origin.requests(for: "/" + path).map(\.status)
            let proxyLines = proxy.accessLog().filter { $0.uri == url.path }
            #expect(proxyLines.map(\.status) == [200, 200, 304], "\(path)")
            #expect(proxyLines.last?.ifNoneMatch != nil, "the instance asked with its validator")
            #expect(
                originStatuses.filter { $0 == 200 }.count == 1,
                "one body from the origin for the fleet: \(originStatuses)")
            if path == "fresh.jpg" {
                // The proxy answered B and A's revalidation from its cache.
                #expect(originStatuses == [200])
                #expect(proxyLines.map(\.cacheStatus) == ["MISS", "HIT", "HIT"])
            } else {
                // The proxy revalidated its own copy with the origin each time: 304s all the way.
                #expect(originStatuses == [200, 304, 304])
                #expect(proxyLines.map(\.cacheStatus) == ["MISS", "REVALIDATED", "REVALIDATED"])
                let conditional = origin.requests(for: "/" + path).dropFirst()
                #expect(
                    conditional.allSatisfy {
                        $0.header("If-None-Match") != nil || $0.header("If-Modified-Since") != nil
                    })
            }
        }
    }
}
