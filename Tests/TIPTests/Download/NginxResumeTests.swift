import Foundation
import Testing

@testable import TIP

#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// Where two byte strings first differ ("offset N", or the lengths), nil when equal. Compared this way
/// because `#expect(data == other)` on failure makes Swift Testing diff two ~340 KB collections, which
/// takes minutes in a debug build.
private func mismatch<A: DataProtocol, B: DataProtocol>(_ actual: A, _ expected: B) -> String? {
    let lhs = Array(actual), rhs = Array(expected)
    if lhs == rhs { return nil }
    let common = (0..<min(lhs.count, rhs.count)).first { lhs[$0] != rhs[$0] } ?? min(lhs.count, rhs.count)
    return "\(lhs.count) bytes against \(rhs.count) expected; first difference at offset \(common)"
}

/// Resumable downloads against a real server: Debian's nginx on a loopback port (NginxTestServer),
/// through the process-wide downloader and each shipped provider (libcurl, URLSession), with the
/// pipeline's caches keeping the partial.
///
/// Each test: member A downloads a throttled JPEG and is removed once 64 KiB arrived, which cancels the
/// download and leaves a partial (with nginx's validators) in the caches; member B then downloads the
/// same URL and must resume it with `Range` + `If-Range` (206), or, when the file changed meanwhile,
/// start over (nginx answers 200 to a stale `If-Range`) without mixing old and new bytes.
/// The suite skips when nginx is not installed (scripts/bootstrap installs it).
/// Serialized: with both providers there are eight cases, each with its own nginx; one at a time keeps them
/// inside their time limits on a loaded machine.
@Suite(
    "Resume against nginx", .serialized,
    .enabled(if: NginxTestServer.isAvailable, "nginx is not installed: run scripts/bootstrap (apt-get install nginx)"))
struct NginxResumeTests {
    enum Location: String, CustomTestStringConvertible, Sendable {
        /// `etag off`: Last-Modified is the only validator.
        case lastModified
        /// ETag and Last-Modified; the downloader sends the ETag in `If-Range`.
        case entityTag
        var testDescription: String { rawValue }
    }

    /// The served file's modification time (whole seconds), then the rewritten file's.
    static let modified = Date(timeIntervalSince1970: 1_715_000_000)
    static let rewritten = Date(timeIntervalSince1970: 1_715_086_400)
    static let fileName = "photo.jpg"
    /// Bytes A receives before it leaves the download.
    static let cancelAfter = 64 * 1024

    /// Two different photos of the same size class (~340 KB each, ~1.7 s at the rate limit): the original
    /// and the replacement.
    static let images: (original: Data, replacement: Data)? = {
        guard let original = try? JPEGTestSupport.jpeg(width: 1000, height: 750, quality: 0.9, seed: 11).data,
            let replacement = try? JPEGTestSupport.jpeg(width: 1000, height: 750, quality: 0.9, seed: 12).data
        else { return nil }
        return (original, replacement)
    }()

    /// What one test sets up: its configuration, server and pipeline.
    struct Fixture {
        let configuration: GlobalConfiguration
        let root: URL
        let server: NginxTestServer
        let pipeline: ImagePipeline
        let url: URL
        var identifier: String { url.absoluteString }

        func tearDown() {
            server.stop()
            pipeline.diskCache.waitUntilManifestLoaded()
            try? FileManager.default.removeItem(at: root)
        }
    }

    private func makeFixture(
        _ location: Location, _ kind: ShippedDownloadProvider, pipelineIdentifier: String,
        image: Data, name: String = #function
    ) throws -> Fixture {
        let (configuration, root) = try makeTestConfiguration(name)
        configuration.imageFetchDownloadProvider = kind.make()
        // A's whole download crawls past 96 KiB, so its leave at 64 KiB lands mid-body however late it runs.
        let server = try NginxTestServer(rateLimit: 200 * 1024, crawlAfter: 96 * 1024)
        do {
            try server.setFile(Self.fileName, data: image, modified: Self.modified)
            try server.start()
        } catch {
            server.stop()
            throw error
        }
        let pipeline = try #require(ImagePipeline(identifier: pipelineIdentifier, configuration: configuration))
        pipeline.diskCache.waitUntilManifestLoaded()
        let url = location == .entityTag ? server.eTagURL(Self.fileName) : server.lastModifiedURL(Self.fileName)
        return Fixture(configuration: configuration, root: root, server: server, pipeline: pipeline, url: url)
    }

    /// Member A downloads until `cancelAfter` bytes arrived, then leaves; returns the partial the
    /// cancelled download left on disk.
    private func leavePartial(_ fixture: Fixture, image: Data) async throws -> DiskCacheEntry.Part {
        let downloader = fixture.configuration.downloader
        let left = Locked(false)
        let a = DownloadTestMember(ImageDownloadRequest(url: fixture.url, pipeline: fixture.pipeline)) {
            member, update in
            guard update.totalByteCount >= Self.cancelAfter,
                left.withLock({ done in
                    defer { done = true }; return !done
                })
            else { return }
            downloader.remove(member, reason: "test: leave a partial behind")
        }
        downloader.add(a)
        let error = try #require(await a.failure(), "A should be cancelled, not finish")
        #expect((error as? ImageFetchError)?.code == .cancelled)
        #expect(
            a.receivedByteCount >= Self.cancelAfter && a.receivedByteCount < image.count,
            "the cancel should land mid-body (limit_rate)")

        let pipeline = fixture.pipeline, identifier = fixture.identifier
        let appeared = await eventually(timeout: .seconds(5)) {
            pipeline.diskCache.entry(withIdentifier: identifier, includeComplete: false)?.partial != nil
        }
        #expect(appeared, "the cancelled download should leave a partial in the disk cache")
        let partial = try #require(
            pipeline.diskCache.entry(withIdentifier: identifier, includeComplete: false)?.partial)
        #expect(
            pipeline.diskCache.entry(withIdentifier: identifier, includePartial: false) == nil, "no complete file yet")
        #expect(partial.metadata.url == fixture.url)
        #expect(partial.metadata.expectedLength == Int64(image.count))
        #expect(partial.byteCount >= Int64(Self.cancelAfter) && partial.byteCount < Int64(image.count))
        let bytes = try Data(contentsOf: partial.fileURL)
        #expect(bytes.count == Int(partial.byteCount))
        #expect(mismatch(bytes, image.prefix(bytes.count)) == nil, "the partial holds the first bytes of the image")
        return partial
    }

    /// The disk cache holds `expected` as the complete file and no partial any more.
    private func expectDiskHolds(_ expected: Data, _ fixture: Fixture, formerPartial: DiskCacheEntry.Part) throws {
        let entry = try #require(fixture.pipeline.diskCache.entry(withIdentifier: fixture.identifier))
        #expect(entry.partial == nil, "the partial must be gone once the image is complete")
        #expect(!FileManager.default.fileExists(atPath: formerPartial.fileURL.path), "the partial's file is deleted")
        let complete = try #require(entry.complete)
        #expect(
            mismatch(try Data(contentsOf: complete.fileURL), expected) == nil, "the complete file in the disk cache")
    }

    /// The access-log line of the resume request (the one that carried `Range`), once nginx wrote it.
    private func rangeRequest(_ fixture: Fixture) async throws -> NginxTestServer.LogLine {
        let server = fixture.server
        let logged = await eventually(timeout: .seconds(5)) { server.accessLog().contains { $0.range != nil } }
        #expect(logged, "nginx should log the range request")
        let lines = server.accessLog()
        #expect(lines.filter { $0.range != nil }.count == 1, "exactly one range request: \(lines)")
        #expect(lines.count == 2, "A's request and B's: \(lines)")
        return try #require(lines.first { $0.range != nil })
    }

    @Test("The test server starts on a free port, serves the file with both validators, and stop() ends nginx promptly")
    func serverLifecycle() async throws {
        let server = try NginxTestServer(rateLimit: 1024 * 1024)
        defer { server.stop() }
        let body = Data("not an image".utf8)
        try server.setFile("a.txt", data: body, modified: Self.modified)
        try server.start()
        let pid = try #require(server.processIdentifier)
        #expect(NginxTestServer.accepts(port: server.port))
        let (data, response) = try await URLSession.shared.data(from: server.eTagURL("a.txt"))
        let http = try #require(response as? HTTPURLResponse)
        #expect(http.statusCode == 200 && data == body)
        #expect(
            http.value(forHTTPHeaderField: "ETag")
                == NginxTestServer.entityTag(modified: Self.modified, length: body.count))
        #expect(http.value(forHTTPHeaderField: "Last-Modified") == NginxTestServer.httpDate(Self.modified))
        #expect(http.value(forHTTPHeaderField: "Accept-Ranges") == "bytes")

        let clock = ContinuousClock()
        let elapsed = clock.measure { server.stop() }
        // SIGTERM must work (a child spawned from a Dispatch thread would inherit a mask blocking it and
        // be killed only after the 3 s grace period).
        #expect(elapsed < .seconds(1))
        #expect(kill(pid, 0) == -1 && errno == ESRCH, "nginx must be gone")
        #expect(server.processIdentifier == nil)
        #expect(!NginxTestServer.accepts(port: server.port))
        #expect(!FileManager.default.fileExists(atPath: server.directory.path))
    }

    @Test("With crawlAfter, a whole response crawls past it while a Range response keeps the rate")
    func crawlingWholeResponses() async throws {
        let server = try NginxTestServer(rateLimit: 1024 * 1024, crawlAfter: 16 * 1024)
        defer { server.stop() }
        let body = Data(repeating: 7, count: 32 * 1024)
        try server.setFile("c.bin", data: body, modified: Self.modified)
        try server.start()
        var ranged = URLRequest(url: server.eTagURL("c.bin"))
        ranged.setValue("bytes=1000-", forHTTPHeaderField: "Range")
        let (rangedData, rangedResponse) = try await URLSession.shared.data(for: ranged)
        #expect((rangedResponse as? HTTPURLResponse)?.statusCode == 206 && rangedData.count == body.count - 1000)
        // The last 16 KiB of a whole body crawl for 4 s (30 ms at the plain rate). Timed from URLSession's own
        // queue, so a slow test thread cannot shorten it.
        let clock = ContinuousClock()
        let started = clock.now
        let ended = Locked<(ContinuousClock.Instant, Int)?>(nil)
        let task = URLSession.shared.dataTask(with: server.eTagURL("c.bin")) { data, _, _ in
            ended.withLock { $0 = (clock.now, data?.count ?? -1) }
        }
        task.resume()
        #expect(await eventually(timeout: .seconds(60)) { ended.withLock { $0 } != nil })
        let (end, count) = try #require(ended.withLock { $0 })
        #expect(count == body.count)
        #expect(end - started >= .seconds(2), "a whole response must crawl past crawlAfter")
    }

    @Test(
        "Resume with Last-Modified only: 206 for Range + If-Range: <date>, from the disk partial",
        .timeLimit(.minutes(1)), arguments: ShippedDownloadProvider.allCases)
    func resumeWithLastModified(_ kind: ShippedDownloadProvider) async throws {
        let image = try #require(Self.images?.original)
        let fixture = try makeFixture(.lastModified, kind, pipelineIdentifier: "nginx-resume-lm-\(kind)", image: image)
        defer { fixture.tearDown() }

        let partial = try await leavePartial(fixture, image: image)
        let lastModified = NginxTestServer.httpDate(Self.modified)
        #expect(partial.metadata.lastModified == lastModified)
        #expect(partial.metadata.entityTag == nil, "etag off: no entity tag")
        let resumedCount = Int(partial.byteCount)
        // The memory cache keeps the same partial and is looked at first: drop it so B reads the disk.
        fixture.pipeline.memoryCache.clearImage(withIdentifier: fixture.identifier)

        let b = DownloadTestMember(ImageDownloadRequest(url: fixture.url, pipeline: fixture.pipeline))
        fixture.configuration.downloader.add(b)
        let result = try #require(await b.success(), "B failed: \(String(describing: b.result))")
        #expect(result.wasResumed)
        #expect(result.response?.statusCode == 206)
        #expect(result.wasStoredOnDisk)
        #expect(mismatch(result.data, image) == nil)
        #expect(b.events.first == .started(resumed: resumedCount, expected: image.count))
        #expect(!b.events.contains(.reset))
        #expect(b.receivedByteCount == image.count, "the partial first, then the rest")

        let line = try await rangeRequest(fixture)
        #expect(line.status == 206)
        #expect(line.range == "bytes=\(resumedCount)-")
        #expect(line.ifRange == lastModified)
        #expect(line.bodyBytesSent == image.count - resumedCount)
        try expectDiskHolds(image, fixture, formerPartial: partial)
    }

    @Test(
        "Resume with ETag: 206 for Range + If-Range: <entity tag>", .timeLimit(.minutes(1)),
        arguments: ShippedDownloadProvider.allCases)
    func resumeWithETag(_ kind: ShippedDownloadProvider) async throws {
        let image = try #require(Self.images?.original)
        let fixture = try makeFixture(.entityTag, kind, pipelineIdentifier: "nginx-resume-etag-\(kind)", image: image)
        defer { fixture.tearDown() }

        let partial = try await leavePartial(fixture, image: image)
        let entityTag = NginxTestServer.entityTag(modified: Self.modified, length: image.count)
        #expect(partial.metadata.entityTag == entityTag)
        #expect(partial.metadata.lastModified == NginxTestServer.httpDate(Self.modified))
        let resumedCount = Int(partial.byteCount)
        // The memory partial (the same bytes) is left in place: this resume may come from either cache.

        let b = DownloadTestMember(ImageDownloadRequest(url: fixture.url, pipeline: fixture.pipeline))
        fixture.configuration.downloader.add(b)
        let result = try #require(await b.success(), "B failed: \(String(describing: b.result))")
        #expect(result.wasResumed)
        #expect(result.response?.statusCode == 206)
        #expect(mismatch(result.data, image) == nil)
        #expect(b.events.first == .started(resumed: resumedCount, expected: image.count))
        #expect(!b.events.contains(.reset))
        #expect(b.receivedByteCount == image.count, "the partial first, then the rest")

        let line = try await rangeRequest(fixture)
        #expect(line.status == 206)
        #expect(line.range == "bytes=\(resumedCount)-")
        #expect(line.ifRange == entityTag, "the entity tag is preferred over the date")
        #expect(line.bodyBytesSent == image.count - resumedCount)
        try expectDiskHolds(image, fixture, formerPartial: partial)
    }

    @Test(
        "The file changed after the partial was left: nginx answers 200, B starts over with only the new bytes",
        .timeLimit(.minutes(1)), arguments: [Location.lastModified, .entityTag], ShippedDownloadProvider.allCases)
    func validatorChanged(location: Location, _ kind: ShippedDownloadProvider) async throws {
        let images = try #require(Self.images)
        let (original, replacement) = images
        #expect(mismatch(original, replacement) != nil)
        let fixture = try makeFixture(
            location, kind, pipelineIdentifier: "nginx-changed-\(location.rawValue)-\(kind)",
            image: original)
        defer { fixture.tearDown() }

        let partial = try await leavePartial(fixture, image: original)
        let staleValidator =
            location == .entityTag
            ? NginxTestServer.entityTag(modified: Self.modified, length: original.count)
            : NginxTestServer.httpDate(Self.modified)
        #expect((partial.metadata.entityTag ?? partial.metadata.lastModified) == staleValidator)
        let resumedCount = Int(partial.byteCount)

        // New content and a new mtime: both of nginx's validators change.
        try fixture.server.setFile(Self.fileName, data: replacement, modified: Self.rewritten)

        let b = DownloadTestMember(ImageDownloadRequest(url: fixture.url, pipeline: fixture.pipeline))
        fixture.configuration.downloader.add(b)
        let result = try #require(await b.success(), "B failed: \(String(describing: b.result))")
        #expect(!result.wasResumed)
        #expect(result.response?.statusCode == 200)
        #expect(mismatch(result.data, replacement) == nil, "only the new file's bytes, none of the stale partial")
        #expect(b.events.first == .started(resumed: resumedCount, expected: original.count), "B tried to resume")
        #expect(b.events.contains(.reset), "the 200 restarts the body")
        #expect(b.receivedByteCount == replacement.count)

        let line = try await rangeRequest(fixture)
        #expect(line.status == 200, "nginx ignores a Range whose If-Range is stale")
        #expect(line.range == "bytes=\(resumedCount)-")
        #expect(line.ifRange == staleValidator)
        #expect(line.bodyBytesSent == replacement.count)
        try expectDiskHolds(replacement, fixture, formerPartial: partial)
        let complete = try #require(fixture.pipeline.diskCache.entry(withIdentifier: fixture.identifier)?.complete)
        if location == .entityTag {
            #expect(
                complete.metadata.entityTag
                    == NginxTestServer.entityTag(modified: Self.rewritten, length: replacement.count))
        }
        #expect(complete.metadata.lastModified == NginxTestServer.httpDate(Self.rewritten))
    }
}
