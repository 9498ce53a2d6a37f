import Foundation
import TIP
import Testing

@testable import ThumbnailService

#if canImport(Glibc)
import Glibc
#endif

/// The service over real HTTP: nginx as the origin, the Hummingbird application in this process on a free
/// port, URLSession as the client. Serialized: TIP's download settings are process-wide.
@Suite(
    .serialized,
    .enabled(
        if: OriginServer.executable != nil,
        "needs nginx (scripts/bootstrap)"))
final class ThumbnailServiceIntegrationTests: Sendable {
    static let root = FileManager.default.temporaryDirectory.appendingPathComponent("tip-thumbnails-tests-\(getpid())")
    let origin: OriginServer
    /// File names unique to this test, so that TIP's caches never answer for another test.
    let prefix = UUID().uuidString.prefix(8)

    init() throws {
        origin = try OriginServer()
        for name in Fixtures.names {
            try origin.setFile("\(prefix)-\(name)", data: Fixtures.data(name))
        }
        try origin.setFile("\(prefix)-not-an-image.jpg", data: Data("<html>hello</html>".utf8))
        // A PNG cut short and closed with an IEND chunk, as a broken upload looks: it decodes only partly.
        let png = try Fixtures.data("someAlpha.png")
        let iend: [UInt8] = [0, 0, 0, 0, 0x49, 0x45, 0x4E, 0x44, 0xAE, 0x42, 0x60, 0x82]
        try origin.setFile("\(prefix)-damaged.png", data: png.prefix(png.count * 2 / 5) + Data(iend))
        try origin.start()
    }

    deinit {
        origin.stop()
        // This test's pipeline folder (`<root>/TIPImagePipeline/<identifier>`); the root is shared by the suite.
        let pipelineFolder = Self.root.appendingPathComponent("TIPImagePipeline/thumbnails-\(prefix)")
        try? FileManager.default.removeItem(at: pipelineFolder)
    }

    func configuration(timeLimit: TimeInterval = 120, privateHosts: [String] = []) -> ThumbnailServiceConfiguration {
        var configuration = ThumbnailServiceConfiguration(
            hostPolicy: HostPolicy(
                allowedHosts: ["localhost", "images.example.com"],
                privateHosts: ["127.0.0.1"] + privateHosts),
            cachesRoot: Self.root)
        configuration.pipelineIdentifier = "thumbnails-\(prefix)"
        configuration.maxSourceByteCount = Fixtures.largeByteCount  // carnival.jpg is over it
        configuration.maxSourcePixelCount = 1_000_000  // carnival.pjpg (1880x1253) is over it
        configuration.timeLimit = timeLimit
        return configuration
    }

    func withService(
        timeLimit: TimeInterval = 120, privateHosts: [String] = [],
        _ body: (RunningService) async throws -> Void
    ) async throws {
        let running = try await RunningService.start(configuration(timeLimit: timeLimit, privateHosts: privateHosts))
        do {
            try await body(running)
        } catch {
            await running.stop()
            throw error
        }
        await running.stop()
    }

    func query(_ name: String, w: Int, h: Int, fit: String? = nil, format: String? = nil) -> [(String, String)] {
        var query = [("url", origin.url("\(prefix)-\(name)")), ("w", "\(w)"), ("h", "\(h)")]
        if let fit { query.append(("fit", fit)) }
        if let format { query.append(("format", format)) }
        return query
    }

    func decoded(_ body: Data) throws -> (dimensions: CGSize, type: ImageType) {
        let (container, type) = try CodecCatalogue.shared.decodeImage(body)
        return (container.dimensions, type)
    }

    @Test(
        arguments: [
            ("crop", "jpeg", 200, 200, CGSize(width: 200, height: 200), ImageType.jpeg, "image/jpeg"),
            ("fit", "jpeg", 200, 200, CGSize(width: 200, height: 113), .jpeg, "image/jpeg"),
            ("crop", "png", 120, 300, CGSize(width: 120, height: 300), .png, "image/png"),
            ("fit", "webp", 512, 100, CGSize(width: 178, height: 100), .webp, "image/webp"),
        ] as [(String, String, Int, Int, CGSize, ImageType, String)])
    func thumbnails(fit: String, format: String, w: Int, h: Int, expected: CGSize, type: ImageType, mime: String)
        async throws
    {
        try await withService { service in
            let response = try await service.get(query("twitterfied.jpg", w: w, h: h, fit: fit, format: format))
            #expect(response.status == 200)
            #expect(response.headers["content-type"] == mime)
            #expect(response.headers["cache-control"] == "public, max-age=86400")
            #expect(response.headers["etag"] == EntityTag.of(response.body))
            let image = try decoded(response.body)
            #expect(image.dimensions == expected)
            #expect(image.type == type)
        }
    }

    @Test func fitNeverEnlarges() async throws {
        try await withService { service in
            let response = try await service.get(query("someAlpha.png", w: 600, h: 600, fit: "fit", format: "png"))
            #expect(response.status == 200)
            #expect(try decoded(response.body).dimensions == CGSize(width: 60, height: 60))
        }
    }

    @Test func matchingIfNoneMatchGets304AndAWarmRequestCostsNoFetch() async throws {
        try await withService { service in
            let first = try await service.get(query("pink_outfit.jpg", w: 100, h: 100))
            let tag = try #require(first.headers["etag"])
            #expect(service.service.counts.made == 1)

            let again = try await service.get(query("pink_outfit.jpg", w: 100, h: 100, fit: "crop", format: "jpeg"))
            #expect(again.status == 200 && again.body == first.body && again.headers["etag"] == tag)
            #expect(service.service.counts == ThumbnailCounters(memoryHits: 1, joined: 0, made: 1))

            for condition in [tag, "W/\(tag)", "\"other\", \(tag)", "*"] {
                let notModified = try await service.get(
                    query("pink_outfit.jpg", w: 100, h: 100),
                    headers: ["If-None-Match": condition])
                #expect(notModified.status == 304, "\(condition)")
                #expect(notModified.body.isEmpty)
                #expect(notModified.headers["etag"] == tag)
            }
            let changed = try await service.get(
                query("pink_outfit.jpg", w: 100, h: 100),
                headers: ["If-None-Match": "\"something-else\""])
            #expect(changed.status == 200 && changed.body == first.body)
            #expect(origin.originHits("\(prefix)-pink_outfit.jpg") == 1)
        }
    }

    @Test func concurrentIdenticalRequestsMakeOneOriginRequest() async throws {
        try await withService { service in
            let results = try await withThrowingTaskGroup(of: (Int, Data).self) { group in
                for _ in 0..<12 {
                    group.addTask {
                        let response = try await service.get(self.query("twitterfied.jpg", w: 64, h: 48, format: "png"))
                        return (response.status, response.body)
                    }
                }
                return try await group.reduce(into: []) { $0.append($1) }
            }
            #expect(results.count == 12)
            #expect(results.allSatisfy { $0.0 == 200 && $0.1 == results[0].1 })
            #expect(origin.originHits("\(prefix)-twitterfied.jpg") == 1)
            #expect(service.service.counts.made == 1)
        }
    }

    @Test(
        arguments: [
            ([("w", "10"), ("h", "10")], "url"),
            ([("url", "http://127.0.0.1/a.jpg"), ("w", "0"), ("h", "10")], "w"),
            ([("url", "http://127.0.0.1/a.jpg"), ("w", "10"), ("h", "5000")], "h"),
            ([("url", "http://127.0.0.1/a.jpg"), ("w", "10"), ("h", "10"), ("fit", "fill")], "fit"),
            ([("url", "http://127.0.0.1/a.jpg"), ("w", "10"), ("h", "10"), ("format", "bmp")], "format"),
            ([("url", "file:///etc/passwd"), ("w", "10"), ("h", "10")], "url"),
        ] as [([(String, String)], String)])
    func badParametersAre400(_ query: [(String, String)], parameter: String) async throws {
        try await withService { service in
            let response = try await service.get(query)
            #expect(response.status == 400)
            #expect(response.headers["content-type"] == "application/json")
            let body = try JSONSerialization.jsonObject(with: response.body) as? [String: String]
            #expect(body?["parameter"] == parameter)
            #expect(body?["error"] == "bad_parameter")
        }
    }

    @Test func hostsNotAllowedAndPrivateAddressesAre403() async throws {
        try await withService { service in
            let name = "\(prefix)-twitterfied.jpg"
            for url in [
                "http://example.org/a.jpg", "http://localhost:\(origin.port)/\(name)",
                "http://[::1]:\(origin.port)/\(name)", "http://127.0.0.2:\(origin.port)/\(name)",
            ] {
                let response = try await service.get([("url", url), ("w", "10"), ("h", "10")])
                #expect(response.status == 403, "\(url)")
                let body = try JSONSerialization.jsonObject(with: response.body) as? [String: String]
                #expect(body?["error"] == "host_not_allowed")
            }
            #expect(origin.originHits(name) == 0)
            #expect(service.service.counts.made == 1)  // localhost was resolved (to loopback) and refused
        }
    }

    /// A name allowed on private addresses is resolved by the service, and the download, sent to the checked
    /// address (pinned with the provider's `connectAddress`: `HostPolicyTests.pinnedAddressesPerHost`, and the
    /// library's `CurlImageFetchDownloadProviderTests.connectAddress`), carries the name in `Host`.
    /// nginx listens on 127.0.0.1 only: where localhost also resolves to `::1` first, that refused connection
    /// falls back to the next checked address.
    @Test func downloadsConnectToTheCheckedAddressWithTheHostHeader() async throws {
        try await withService(privateHosts: ["localhost"]) { service in
            let name = "\(prefix)-pink_outfit.jpg"
            let response = try await service.get([
                ("url", "http://localhost:\(origin.port)/\(name)"), ("w", "50"), ("h", "50"),
            ])
            #expect(response.status == 200)
            #expect(origin.hostHeaders(name) == ["localhost:\(origin.port)"])
        }
    }

    @Test func tooManyBytesAndTooManyPixelsAre413() async throws {
        try await withService { service in
            let bytes = try await service.get(query("carnival.jpg", w: 100, h: 100))
            #expect(bytes.status == 413)
            let pixels = try await service.get(query("carnival.pjpg", w: 100, h: 100))
            #expect(pixels.status == 413)
            for response in [bytes, pixels] {
                let body = try JSONSerialization.jsonObject(with: response.body) as? [String: String]
                #expect(body?["error"] == "too_large")
                // Words for the client: no library setting to raise.
                #expect(body?["message"]?.contains("GlobalConfiguration") == false, "\(body ?? [:])")
                #expect(body?["message"]?.contains("service") == true, "\(body ?? [:])")
            }
        }
    }

    @Test func originFailuresAre502() async throws {
        try await withService { service in
            let urls = [
                origin.url("\(prefix)-missing.jpg"), origin.url("fail"),
                origin.url("redirect/\(prefix)-twitterfied.jpg"), origin.url("\(prefix)-not-an-image.jpg"),
                origin.url("\(prefix)-damaged.png"),
                "http://127.0.0.1:\(try LoopbackSocket.freePort())/refused.jpg",
            ]
            for url in urls {
                let response = try await service.get([("url", url), ("w", "10"), ("h", "10")])
                #expect(response.status == 502, "\(url)")
                let body = try JSONSerialization.jsonObject(with: response.body) as? [String: String]
                #expect(body?["error"] == "origin_failed", "\(url)")
                #expect(response.headers["cache-control"] == "no-store")
            }
            // The redirect was not followed.
            #expect(origin.originHits("\(prefix)-twitterfied.jpg") == 0)
        }
    }

    @Test func aStalledOriginIs504() async throws {
        let stalled = try LoopbackSocket.listening()
        defer { close(stalled.descriptor) }
        let global = GlobalConfiguration.shared
        let (duration, provider) = (global.maxImageDownloadDuration, global.imageFetchDownloadProvider)
        defer {
            global.maxImageDownloadDuration = duration
            global.imageFetchDownloadProvider = provider
        }
        try await withService(timeLimit: 1) { service in
            let url = "http://127.0.0.1:\(stalled.port)/never.jpg"
            let response = try await service.get([("url", url), ("w", "10"), ("h", "10")])
            #expect(response.status == 504)
            let body = try JSONSerialization.jsonObject(with: response.body) as? [String: String]
            #expect(body?["error"] == "timed_out")
        }
    }
}
