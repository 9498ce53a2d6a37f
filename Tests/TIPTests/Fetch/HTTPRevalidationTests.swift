import CoreMetrics
import Foundation
import MetricsTestKit
import Testing

@testable import TIP

#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// HTTP caching through whole fetches: freshness from the response, revalidation with `304`, `no-store`, and
/// how revalidation meets coalescing and resumption. The downloads are stepped by hand and the configuration's
/// clock is the test's, so expiry is a clock move, never a wait.
@Suite("HTTP caching: freshness and revalidation")
struct HTTPRevalidationTests {
    /// One isolated pipeline on a test clock, and one JPEG.
    final class Fixture: Sendable {
        let clock = TestClock(Date(timeIntervalSince1970: 1_700_000_000))
        let env: SteppedPipelineEnvironment
        let jpeg: Data
        let metrics = TestMetrics()

        init(_ name: String = #function) throws {
            env = try SteppedPipelineEnvironment(name, clock: clock)
            jpeg = try DownloaderTestEnvironment.jpeg(width: 320, height: 240, seed: 7)
            env.configuration.metricsFactory = metrics
        }

        func tearDown() { env.tearDown() }

        var pipeline: ImagePipeline { env.pipeline }
        var provider: SteppedDownloadProvider { env.provider }

        static func request(
            _ name: String, size: CGFloat = 100, sources: ImageFetchLoadingSources = .all,
            ttl: TimeInterval? = nil
        ) -> GenericImageFetchRequest {
            var request = GenericImageFetchRequest(
                imageURL: SteppedPipelineEnvironment.url(name), identifier: nil,
                targetDimensions: CGSize(width: size, height: size),
                targetContentMode: .scaleAspectFit)
            request.loadingSources = sources
            if let ttl { request.timeToLive = ttl }
            return request
        }

        /// Starts a fetch on the callback queue, where a rendered-cache hit is answered at once (a dirty one as a
        /// dirty preview). Keep the delegate: the operation holds it weakly.
        func startOnCallbackQueue(_ request: GenericImageFetchRequest) async
            -> (operation: ImageFetchOperation, delegate: RecordingFetchDelegate)
        {
            let delegate = RecordingFetchDelegate()
            let operation = pipeline.operation(with: request, delegate: delegate)
            await withCheckedContinuation { (continuation: CheckedContinuation<Void, Never>) in
                env.configuration.callbackQueue.async {
                    self.pipeline.fetchImage(with: operation)
                    continuation.resume()
                }
            }
            return (operation, delegate)
        }

        /// Starts a fetch; its outcome is read from the operation once it finished. Keep the delegate: the
        /// operation holds it weakly.
        func start(_ request: GenericImageFetchRequest, delegate: RecordingFetchDelegate = RecordingFetchDelegate())
            -> (operation: ImageFetchOperation, delegate: RecordingFetchDelegate)
        {
            let operation = pipeline.operation(with: request, delegate: delegate)
            pipeline.fetchImage(with: operation)
            return (operation, delegate)
        }

        /// Runs a fetch to its end; `answer` answers the download it makes, if any.
        func fetch(
            _ request: GenericImageFetchRequest,
            answer: ((SteppedDownload) -> Void)? = nil
        ) async throws -> (result: ImageFetchResult?, operation: ImageFetchOperation) {
            let (operation, delegate) = start(request)
            if let answer { answer(try await provider.next()) }
            #expect(await eventually { operation.isFinished })
            return (delegate.final.withLock { $0 }, operation)
        }

        /// Answers a download with `data` and the given extra headers (a resumable 200 with ETag `tag`).
        func serve(
            _ download: SteppedDownload, _ data: Data? = nil, tag: String = "\"v1\"", lastModified: String? = nil,
            headers extra: [String: String]
        ) {
            let body = data ?? jpeg
            var headers = SteppedPipelineEnvironment.resumableHeaders(length: body.count, entityTag: tag)
            if let lastModified { headers["Last-Modified"] = lastModified }
            headers.merge(extra) { _, new in new }
            download.respond(status: 200, headers: headers)
            download.send(body)
            download.finish()
        }

        func notModified(_ download: SteppedDownload, headers: [String: String] = [:]) {
            download.respond(status: 304, headers: headers)
            download.finish()
        }

        func diskMetadata(_ name: String) -> DiskCacheMetadata? {
            env.diskEntry(SteppedPipelineEnvironment.url(name).absoluteString)?.complete?.metadata
        }

        func counter(_ label: String, _ dimensions: [(String, String)]) -> Int64 {
            (try? metrics.expectCounter(label, dimensions).totalValue) ?? 0
        }
    }

    @Test(
        """
        max-age: fresh hits send nothing; once stale, If-None-Match goes out and a 304 serves the cached bytes, \
        renewed
        """
    )
    func maxAgeThenNotModified() async throws {
        let f = try Fixture()
        defer { f.tearDown() }
        let first = try await f.fetch(Fixture.request("a.jpg")) {
            f.serve($0, headers: ["Cache-Control": "max-age=60"])
        }
        #expect(first.result?.imageSource == .network)
        #expect(first.result?.imageWasRevalidated == false)
        let stored = try #require(f.diskMetadata("a.jpg"))
        #expect(stored.freshness == CacheFreshness(freshUntil: f.clock.date + 60, serverLifetime: 60))
        #expect(stored.entityTag == "\"v1\"")

        f.clock.advance(59)
        let fresh = try await f.fetch(Fixture.request("a.jpg"))  // the rendered cache answers, no download
        #expect(fresh.result?.imageSource == .memoryCache)
        f.pipeline.clearMemoryCaches()
        let fromDisk = try await f.fetch(Fixture.request("a.jpg", size: 90))
        #expect(fromDisk.result?.imageSource == .diskCache)
        #expect(f.provider.count == 1)

        f.clock.advance(2)  // 61 s: stale in every cache
        let revalidated = try await f.fetch(Fixture.request("a.jpg")) { download in
            #expect(download.header("If-None-Match") == "\"v1\"")
            #expect(download.header("Range") == nil)
            f.notModified(download, headers: ["Cache-Control": "max-age=60", "ETag": "\"v1\""])
        }
        let result = try #require(revalidated.result)
        #expect(result.imageSource == .diskCache && result.imageWasRevalidated)
        #expect(result.imageContainer.dimensions == CGSize(width: 100, height: 75))
        let network = try #require(revalidated.operation.metrics?.metricInfo(for: .network))
        #expect(network.wasRevalidated && network.result == .hitFinal)
        #expect(network.networkImageSizeInBytes == f.jpeg.count)
        #expect(network.networkRequest?.value(forHTTPHeaderField: "If-None-Match") == "\"v1\"")
        #expect(f.diskMetadata("a.jpg")?.freshness?.freshUntil == f.clock.date + 60)
        #expect(
            f.counter(
                "tip_fetches_total",
                [
                    ("pipeline", f.pipeline.identifier), ("source", "disk_revalidated"),
                    ("result", "success"),
                ]) == 1)
        #expect(f.counter("tip_revalidations_total", [("result", "not_modified")]) == 1)

        f.clock.advance(30)  // renewed: fresh again, in memory, on disk and rendered
        let renewed = try await f.fetch(Fixture.request("a.jpg"))
        #expect(renewed.result?.imageSource == .memoryCache && renewed.result?.imageWasRevalidated == false)
        #expect(f.provider.count == 2)
    }

    @Test("a stale image only in the memory cache is revalidated from there")
    func memoryOnlyRevalidation() async throws {
        let f = try Fixture()
        defer { f.tearDown() }
        _ = try await f.fetch(Fixture.request("m.jpg")) { f.serve($0, headers: ["Cache-Control": "max-age=10"]) }
        f.pipeline.clearDiskCache()
        #expect(await eventually { f.diskMetadata("m.jpg") == nil })
        f.clock.advance(11)
        let result = try await f.fetch(Fixture.request("m.jpg", size: 80)) { f.notModified($0) }.result
        #expect(result?.imageSource == .memoryCache && result?.imageWasRevalidated == true)
        // The 304 had no caching headers: the stored 10 s lifetime is renewed.
        let complete = try #require(
            f.pipeline.memoryCache.entry(
                withIdentifier: SteppedPipelineEnvironment.url("m.jpg").absoluteString,
                touch: false)?.complete)
        #expect(complete.freshness?.freshUntil == f.clock.date + 10)
    }

    @Test(
        """
        a cache the fetch may not read is never revalidated nor served: without disk reads the disk copy's \
        validators are not sent; without memory reads the memory copy is not served after a 304
        """
    )
    func revalidatesOnlyReadableCaches() async throws {
        let f = try Fixture()
        defer { f.tearDown() }
        _ = try await f.fetch(Fixture.request("d.jpg")) { f.serve($0, headers: ["Cache-Control": "max-age=10"]) }
        f.clock.advance(11)
        f.pipeline.clearMemoryCaches()
        let noDisk = try await f.fetch(Fixture.request("d.jpg", sources: .all.subtracting(.diskCache))) { download in
            #expect(download.header("If-None-Match") == nil)
            f.serve(download, headers: ["Cache-Control": "max-age=10"])
        }
        #expect(noDisk.result?.imageSource == .network && noDisk.result?.imageWasRevalidated == false)

        // Now in memory and on disk, stale; memory reads off: the disk copy is revalidated and served.
        f.clock.advance(11)
        let noMemory = try await f.fetch(Fixture.request("d.jpg", size: 90, sources: .all.subtracting(.memoryCache))) {
            download in
            #expect(download.header("If-None-Match") == "\"v1\"")
            f.notModified(download)
        }
        #expect(noMemory.result?.imageSource == .diskCache && noMemory.result?.imageWasRevalidated == true)

        // Only in memory, stale; memory reads off: nothing to revalidate, a whole download.
        f.clock.advance(11)
        f.pipeline.clearDiskCache()
        #expect(await eventually { f.diskMetadata("d.jpg") == nil })
        let onlyMemory = try await f.fetch(Fixture.request("d.jpg", size: 80, sources: .all.subtracting(.memoryCache)))
        {
            download in
            #expect(download.header("If-None-Match") == nil)
            f.serve(download, headers: ["Cache-Control": "max-age=10"])
        }
        #expect(onlyMemory.result?.imageSource == .network)
        #expect(f.provider.count == 4)
    }

    @Test("Last-Modified alone: If-Modified-Since goes out")
    func lastModifiedValidator() async throws {
        let f = try Fixture()
        defer { f.tearDown() }
        let date = "Tue, 14 Nov 2023 22:20:00 GMT"
        _ = try await f.fetch(Fixture.request("lm.jpg")) { download in
            download.respond(
                status: 200,
                headers: [
                    "Content-Length": "\(f.jpeg.count)", "Last-Modified": date,
                    "Cache-Control": "max-age=5", "Content-Type": "image/jpeg",
                ])
            download.send(f.jpeg)
            download.finish()
        }
        f.clock.advance(6)
        let result = try await f.fetch(Fixture.request("lm.jpg")) { download in
            #expect(download.header("If-Modified-Since") == date)
            #expect(download.header("If-None-Match") == nil)
            f.notModified(download)
        }.result
        #expect(result?.imageWasRevalidated == true)
    }

    @Test("a 200 to a revalidation replaces the cached image, same size or not")
    func modifiedReplaces() async throws {
        let f = try Fixture()
        defer { f.tearDown() }
        _ = try await f.fetch(Fixture.request("r.jpg")) { f.serve($0, headers: ["Cache-Control": "max-age=60"]) }
        let newer = try DownloaderTestEnvironment.jpeg(width: 320, height: 240, seed: 8)
        f.clock.advance(61)
        let replaced = try await f.fetch(Fixture.request("r.jpg")) { download in
            #expect(download.header("If-None-Match") == "\"v1\"")
            f.serve(download, newer, tag: "\"v2\"", headers: ["Cache-Control": "max-age=60"])
        }
        #expect(replaced.result?.imageSource == .network && replaced.result?.imageWasRevalidated == false)
        let entry = try #require(f.env.diskEntry(SteppedPipelineEnvironment.url("r.jpg").absoluteString)?.complete)
        #expect(entry.metadata.entityTag == "\"v2\"")
        #expect(try Data(contentsOf: entry.fileURL) == newer)
        #expect(f.counter("tip_revalidations_total", [("result", "modified")]) == 1)
        // The memory cache has the new bytes too: a fresh fetch at another size decodes them without a download.
        let next = try await f.fetch(Fixture.request("r.jpg", size: 64))
        #expect(next.result?.imageSource == .memoryCache && f.provider.count == 2)
        #expect(
            f.pipeline.memoryCache.entry(
                withIdentifier: SteppedPipelineEnvironment.url("r.jpg").absoluteString,
                touch: false)?.complete?.data == newer)
    }

    @Test("no-store: delivered, never written to disk nor kept in memory; the next fetch downloads again")
    func noStore() async throws {
        let f = try Fixture()
        defer { f.tearDown() }
        let first = try await f.fetch(Fixture.request("ns.jpg")) { f.serve($0, headers: ["Cache-Control": "no-store"]) }
        #expect(first.result?.imageSource == .network)
        #expect(f.env.diskEntry(SteppedPipelineEnvironment.url("ns.jpg").absoluteString) == nil)
        #expect(f.pipeline.memoryCache.count == 0 && f.pipeline.renderedCache.count == 0)
        let files = try FileManager.default.contentsOfDirectory(atPath: f.pipeline.diskCache.directory.path)
        #expect(files.isEmpty, "not even a temporary file: \(files)")
        let second = try await f.fetch(Fixture.request("ns.jpg")) { download in
            #expect(download.header("If-None-Match") == nil)
            f.serve(download, headers: ["Cache-Control": "no-store"])
        }
        #expect(second.result?.imageSource == .network && f.provider.count == 2)
    }

    @Test("no-store: a download cut short leaves no resumable partial")
    func noStoreNoPartial() async throws {
        let f = try Fixture()
        defer { f.tearDown() }
        let (operation, delegate) = f.start(Fixture.request("nsp.jpg"))
        let download = try await f.provider.next()
        download.respond(
            status: 200,
            headers: SteppedPipelineEnvironment.resumableHeaders(length: f.jpeg.count, entityTag: "\"p\"")
                .merging(["Cache-Control": "no-store"]) { _, new in new })
        download.send(f.jpeg.prefix(f.jpeg.count / 2))
        download.finish(URLError(.networkConnectionLost))
        #expect(await eventually { operation.isFinished })
        #expect(operation.state == .failed && delegate.failure.withLock { $0 } != nil)
        let identifier = SteppedPipelineEnvironment.url("nsp.jpg").absoluteString
        #expect(f.pipeline.memoryCache.entry(withIdentifier: identifier, touch: false) == nil)
        #expect(f.env.diskEntry(identifier) == nil)
        let next = try await f.fetch(Fixture.request("nsp.jpg")) { download in
            #expect(download.header("Range") == nil)
            f.serve(download, headers: [:])
        }
        #expect(next.result?.imageSource == .network)
    }

    @Test("no-cache with a validator: kept, but revalidated before every use")
    func noCache() async throws {
        let f = try Fixture()
        defer { f.tearDown() }
        _ = try await f.fetch(Fixture.request("nc.jpg")) { f.serve($0, headers: ["Cache-Control": "no-cache"]) }
        #expect(f.diskMetadata("nc.jpg") != nil)
        for _ in 0..<2 {
            let result = try await f.fetch(Fixture.request("nc.jpg")) { download in
                #expect(download.header("If-None-Match") == "\"v1\"")
                f.notModified(download, headers: ["Cache-Control": "no-cache"])
            }.result
            #expect(result?.imageWasRevalidated == true)
        }
        #expect(f.provider.count == 3)
    }

    @Test("no-cache without a validator: never kept")
    func noCacheWithoutValidator() async throws {
        let f = try Fixture()
        defer { f.tearDown() }
        _ = try await f.fetch(Fixture.request("ncv.jpg")) { download in
            download.respond(
                status: 200,
                headers: [
                    "Content-Length": "\(f.jpeg.count)", "Cache-Control": "no-cache",
                    "Content-Type": "image/jpeg",
                ])
            download.send(f.jpeg)
            download.finish()
        }
        #expect(f.diskMetadata("ncv.jpg") == nil)
        #expect(f.pipeline.memoryCache.count == 0)
    }

    @Test("without caching headers the request's TTL stands in: fresh that long after the download, then revalidated")
    func fallbackTimeToLive() async throws {
        let f = try Fixture()
        defer { f.tearDown() }
        _ = try await f.fetch(Fixture.request("t.jpg", ttl: 100)) { f.serve($0, headers: [:]) }
        #expect(
            f.diskMetadata("t.jpg")?.freshness == CacheFreshness(freshUntil: f.clock.date + 100, serverLifetime: nil))
        f.clock.advance(60)
        f.pipeline.clearMemoryCaches()
        // slides the TTL
        #expect(try await f.fetch(Fixture.request("t.jpg", ttl: 100)).result?.imageSource == .diskCache)
        f.clock.advance(41)  // 101 s after the download, 41 s after the last read: kept, but stale
        let result = try await f.fetch(Fixture.request("t.jpg", ttl: 100)) { f.notModified($0) }.result
        #expect(result?.imageWasRevalidated == true)
        #expect(
            f.diskMetadata("t.jpg")?.freshness == CacheFreshness(freshUntil: f.clock.date + 100, serverLifetime: nil))
    }

    @Test("a stale image without a validator is downloaded again")
    func staleWithoutValidator() async throws {
        let f = try Fixture()
        defer { f.tearDown() }
        _ = try await f.fetch(Fixture.request("nv.jpg")) { download in
            download.respond(
                status: 200,
                headers: [
                    "Content-Length": "\(f.jpeg.count)", "Cache-Control": "max-age=5",
                    "Content-Type": "image/jpeg",
                ])
            download.send(f.jpeg)
            download.finish()
        }
        f.clock.advance(6)
        let again = try await f.fetch(Fixture.request("nv.jpg")) { download in
            #expect(download.header("If-None-Match") == nil && download.header("If-Modified-Since") == nil)
            f.serve(download, headers: ["Cache-Control": "max-age=5"])
        }
        #expect(again.result?.imageSource == .network)
    }

    @Test("Expires against Date; the maximum freshness lifetime caps what the server says")
    func expiresAndMaximum() async throws {
        let f = try Fixture()
        defer { f.tearDown() }
        f.env.configuration.maximumHTTPFreshnessLifetime = 100
        // The server's clock is an hour off: only Expires − Date counts (600 s), then the cap (100 s).
        _ = try await f.fetch(Fixture.request("e.jpg")) {
            f.serve($0, headers: ["Date": "Tue, 14 Nov 2023 23:20:00 GMT", "Expires": "Tue, 14 Nov 2023 23:30:00 GMT"])
        }
        #expect(
            f.diskMetadata("e.jpg")?.freshness == CacheFreshness(freshUntil: f.clock.date + 100, serverLifetime: 100))
        f.env.configuration.maximumHTTPFreshnessLifetime = GlobalConfiguration.defaultMaximumHTTPFreshnessLifetime
        _ = try await f.fetch(Fixture.request("e2.jpg")) {
            f.serve($0, headers: ["Date": "Tue, 14 Nov 2023 23:20:00 GMT", "Expires": "Tue, 14 Nov 2023 23:30:00 GMT"])
        }
        #expect(
            f.diskMetadata("e2.jpg")?.freshness == CacheFreshness(freshUntil: f.clock.date + 600, serverLifetime: 600))
        f.clock.advance(101)
        let result = try await f.fetch(Fixture.request("e.jpg")) { f.notModified($0) }.result
        #expect(result?.imageWasRevalidated == true)
    }

    @Test("followsHTTPCachingHeaders off: TIP's fixed TTL, nothing revalidated, no-store cached")
    func switchedOff() async throws {
        let f = try Fixture()
        defer { f.tearDown() }
        f.env.configuration.followsHTTPCachingHeaders = false
        _ = try await f.fetch(Fixture.request("off.jpg")) {
            f.serve($0, headers: ["Cache-Control": "no-store, max-age=0"])
        }
        #expect(f.diskMetadata("off.jpg")?.freshness == nil)
        f.clock.advance(3_600)
        f.pipeline.clearMemoryCaches()
        #expect(try await f.fetch(Fixture.request("off.jpg")).result?.imageSource == .diskCache)
        #expect(f.provider.count == 1)
    }

    @Test("switched off after images were stored with a freshness: every cache serves them as TIP would, unasked")
    func switchedOffLater() async throws {
        let f = try Fixture()
        defer { f.tearDown() }
        _ = try await f.fetch(Fixture.request("late.jpg")) { f.serve($0, headers: ["Cache-Control": "max-age=10"]) }
        f.env.configuration.followsHTTPCachingHeaders = false
        f.clock.advance(11)
        let (rendered, delegate) = await f.startOnCallbackQueue(Fixture.request("late.jpg"))
        #expect(rendered.isFinished, "a clean synchronous rendered hit, not a dirty preview")
        #expect(!delegate.events.withLock { $0.contains(.dirtyPreview) })
        #expect(try await f.fetch(Fixture.request("late.jpg", size: 90)).result?.imageSource == .memoryCache)
        f.pipeline.clearMemoryCaches()
        #expect(try await f.fetch(Fixture.request("late.jpg", size: 80)).result?.imageSource == .diskCache)
        #expect(f.provider.count == 1)
    }

    @Test("a stale image in the rendered cache is a dirty preview until the revalidation answers")
    func staleRenderedImage() async throws {
        let f = try Fixture()
        defer { f.tearDown() }
        _ = try await f.fetch(Fixture.request("p.jpg")) { f.serve($0, headers: ["Cache-Control": "max-age=10"]) }
        f.clock.advance(11)
        let (operation, delegate) = await f.startOnCallbackQueue(Fixture.request("p.jpg"))
        #expect(delegate.events.withLock { $0.first } == .dirtyPreview)
        let download = try await f.provider.next()
        f.notModified(download)
        #expect(await eventually { operation.isFinished })
        #expect(delegate.final.withLock { $0 }?.imageWasRevalidated == true)
        // Renewed in the rendered cache too: the next fetch is a clean synchronous hit.
        let (next, nextDelegate) = await f.startOnCallbackQueue(Fixture.request("p.jpg"))
        #expect(next.isFinished && nextDelegate.final.withLock { $0 }?.imageSource == .memoryCache)
        #expect(next.metrics?.metricInfo(for: .memoryCache)?.wasLoadedSynchronously == true)
        #expect(f.provider.count == 2)
    }

    @Test("concurrent fetches of a stale image send one conditional request and all get the revalidated image")
    func coalescedRevalidation() async throws {
        let f = try Fixture()
        defer { f.tearDown() }
        _ = try await f.fetch(Fixture.request("c.jpg")) { f.serve($0, headers: ["Cache-Control": "max-age=10"]) }
        f.clock.advance(11)
        let fetches = [60, 70, 80, 90].map { f.start(Fixture.request("c.jpg", size: CGFloat($0))) }
        let download = try await f.provider.next()
        // Every fetch joined the download before it is answered: each heard it start.
        #expect(await eventually { fetches.allSatisfy { $0.delegate.events.withLock { $0.contains(.progress) } } })
        #expect(download.header("If-None-Match") == "\"v1\"")
        f.notModified(download)
        for fetch in fetches {
            #expect(await eventually { fetch.operation.isFinished })
            #expect(fetch.delegate.final.withLock { $0 }?.imageWasRevalidated == true)
        }
        #expect(f.provider.count == 2)
        #expect(f.counter("tip_revalidations_total", [("result", "not_modified")]) == 1)
    }

    @Test("the cached image leaves the caches while the server is asked: a 304 is followed by one whole download")
    func evictedDuringRevalidation() async throws {
        let f = try Fixture()
        defer { f.tearDown() }
        _ = try await f.fetch(Fixture.request("x.jpg")) { f.serve($0, headers: ["Cache-Control": "max-age=10"]) }
        f.clock.advance(11)
        let (operation, delegate) = f.start(Fixture.request("x.jpg"))
        let conditional = try await f.provider.next()
        f.pipeline.clearMemoryCaches()
        f.pipeline.clearDiskCache()
        #expect(await eventually { f.diskMetadata("x.jpg") == nil })
        f.notModified(conditional)
        let whole = try await f.provider.next()
        #expect(whole.header("If-None-Match") == nil)
        f.serve(whole, headers: ["Cache-Control": "max-age=10"])
        #expect(await eventually { operation.isFinished })
        #expect(delegate.final.withLock { $0 }?.imageSource == .network)
    }

    @Test("a revalidation answered with another version that breaks off leaves a partial the next fetch resumes")
    func modifiedThenResumed() async throws {
        let f = try Fixture()
        defer { f.tearDown() }
        _ = try await f.fetch(Fixture.request("rs.jpg")) { f.serve($0, headers: ["Cache-Control": "max-age=10"]) }
        let newer = try DownloaderTestEnvironment.jpeg(width: 320, height: 240, seed: 9)
        f.clock.advance(11)
        let (operation, delegate) = f.start(Fixture.request("rs.jpg"))
        let download = try await f.provider.next()
        #expect(download.header("If-None-Match") == "\"v1\"")
        download.respond(
            status: 200,
            headers: SteppedPipelineEnvironment.resumableHeaders(length: newer.count, entityTag: "\"v2\"")
                .merging(["Cache-Control": "max-age=10"]) { _, new in new })
        let half = newer.count / 2
        download.send(newer.prefix(half))
        download.finish(URLError(.networkConnectionLost))
        #expect(await eventually { operation.isFinished })
        #expect(delegate.failure.withLock { $0 } != nil)
        let identifier = SteppedPipelineEnvironment.url("rs.jpg").absoluteString
        #expect(await eventually { f.env.diskEntry(identifier)?.partial != nil })
        #expect(f.env.diskEntry(identifier)?.complete == nil, "the outdated image went when the new version began")

        let (resuming, resumingDelegate) = f.start(Fixture.request("rs.jpg"))
        let download2 = try await f.provider.next()
        #expect(download2.header("Range") == "bytes=\(half)-")
        #expect(download2.header("If-Range") == "\"v2\"")
        #expect(download2.header("If-None-Match") == nil)
        download2.respond(
            status: 206,
            headers: SteppedPipelineEnvironment.rangeHeaders(from: half, length: newer.count, entityTag: "\"v2\"")
                .merging(["Cache-Control": "max-age=10"]) { _, new in new })
        download2.send(newer.suffix(from: half))
        download2.finish()
        #expect(await eventually { resuming.isFinished })
        #expect(resumingDelegate.final.withLock { $0 }?.imageSource == .networkResumed)
        // As TIP: a fetch with a partial to resume jumps to the network, reported as networkResumed, and skips
        // the additional caches.
        let attempts = resumingDelegate.events.withLock { $0 }.compactMap { event -> ImageLoadSource? in
            if case .attempt(let source) = event { return source }
            return nil
        }
        #expect(attempts.last == .networkResumed && !attempts.contains(.additionalCache), "\(attempts)")
        let complete = try #require(f.env.diskEntry(identifier)?.complete)
        #expect(try Data(contentsOf: complete.fileURL) == newer)
        #expect(complete.metadata.freshness?.serverLifetime == 10)
    }

    @Test("a stale image and a resumable partial of a newer version: one request with If-None-Match and Range")
    func revalidationWithRange() async throws {
        let f = try Fixture()
        defer { f.tearDown() }
        let url = SteppedPipelineEnvironment.url("both.jpg")
        let identifier = url.absoluteString
        let small = try DownloaderTestEnvironment.jpeg(width: 160, height: 120, seed: 3)
        let large = f.jpeg  // 320x240: a partial beats a complete image only when larger
        let now = f.clock.date
        f.pipeline.memoryCache.updateEntry(
            MemoryCacheEntry(
                identifier: identifier,
                complete: MemoryCacheCompleteImage(
                    data: small, imageType: .jpeg, url: url, dimensions: CGSize(width: 160, height: 120),
                    freshness: CacheFreshness(freshUntil: now - 1, serverLifetime: 10), entityTag: "\"old\""),
                partial: MemoryCachePartialImage(
                    data: large.prefix(large.count / 2), url: url, dimensions: CGSize(width: 320, height: 240),
                    expectedLength: large.count, entityTag: "\"new\"", imageType: .jpeg)))
        // The server still has the old version: the 304 answers, the partial stays for later.
        let confirmed = try await f.fetch(Fixture.request("both.jpg", size: 40)) { download in
            #expect(download.header("If-None-Match") == "\"old\"")
            #expect(download.header("Range") == "bytes=\(large.count / 2)-")
            #expect(download.header("If-Range") == "\"new\"")
            f.notModified(download)
        }
        #expect(confirmed.result?.imageWasRevalidated == true)
        #expect(confirmed.result?.imageContainer.dimensions == CGSize(width: 40, height: 30))
        #expect(f.pipeline.memoryCache.entry(withIdentifier: identifier, touch: false)?.partial != nil)
        // Now it has the new one: the 206 completes the partial, which replaces the outdated image.
        f.clock.advance(11)
        let completed = try await f.fetch(Fixture.request("both.jpg", size: 40)) { download in
            #expect(download.header("If-None-Match") == "\"old\"")
            download.respond(
                status: 206,
                headers: SteppedPipelineEnvironment.rangeHeaders(
                    from: large.count / 2, length: large.count,
                    entityTag: "\"new\""))
            download.send(large.suffix(from: large.count / 2))
            download.finish()
        }
        #expect(completed.result?.imageSource == .networkResumed)
        #expect(f.pipeline.memoryCache.entry(withIdentifier: identifier, touch: false)?.complete?.data == large)
    }
}
