import Foundation
import TIPImageServer
import Testing

@testable import TIP

@Suite("Downloader: resumable downloads")
struct ImageDownloaderResumeTests {
    /// Downloads `path` once with the connection dropped after `dropAfter` bytes; returns the failing member.
    private func leavePartial(_ env: DownloaderTestEnvironment, _ path: String, dropAfter: Int) async throws
        -> DownloadTestMember
    {
        env.server.setFault(.dropConnection(afterBodyBytes: dropAfter), for: path)
        let member = env.start(env.request(path))
        #expect(await member.failure() != nil)
        env.server.setFault(nil, for: path)
        return member
    }

    @Test(
        """
        a dropped download leaves a partial on disk and in memory; the next one resumes with Range and If-Range, \
        byte-identical
        """
    )
    func resumesAfterDrop() async throws {
        let env = try await DownloaderTestEnvironment()
        let image = try DownloaderTestEnvironment.jpeg(width: 1200, height: 900, progressive: true)
        let path = "/resume.jpg"
        let identifier = env.server.url(for: path).absoluteString
        env.server.setImage(image, at: path)
        _ = try await leavePartial(env, path, dropAfter: image.count / 3)

        let partial = try #require(await waitForPartial(env, identifier))
        #expect(partial.byteCount > 0 && partial.byteCount < Int64(image.count))
        #expect(partial.metadata.expectedLength == Int64(image.count))
        #expect(partial.metadata.lastModified != nil)
        #expect(partial.metadata.width == 1200 && partial.metadata.height == 900)
        let memoryPartial = try #require(
            env.pipeline.memoryCache.entry(withIdentifier: identifier, touch: false)?.partial)
        #expect(memoryPartial.data == image.prefix(memoryPartial.data.count))

        env.server.resetLog()
        let resumer = env.start(env.request(path))
        let result = try #require(await resumer.success())
        #expect(result.wasResumed)
        #expect(SHA1.hexDigest(of: result.data) == SHA1.hexDigest(of: image))
        #expect(resumer.receivedByteCount == image.count)
        guard case .started(let resumed, let expected) = resumer.events.first else {
            Issue.record("no didStart first: \(resumer.events)")
            return
        }
        #expect(resumed == memoryPartial.data.count)
        #expect(expected == image.count)
        let record = try #require(env.server.requests(for: path).first)
        #expect(record.status == 206)
        #expect(record.header("Range") == "bytes=\(resumed)-")
        // The server sends both validators; the entity tag is the stronger one and goes into If-Range.
        #expect(record.header("If-Range") == memoryPartial.entityTag)
        #expect(env.server.requestCount(for: path) == 1)

        // The disk cache now has the complete file (byte-identical) and no partial.
        let entry = try #require(env.diskEntry(identifier))
        #expect(entry.partial == nil)
        let complete = try #require(entry.complete)
        #expect(try Data(contentsOf: complete.fileURL) == image)
        #expect(complete.metadata.width == 1200)
        await env.tearDown()
    }

    @Test("a disk-only partial (memory cleared) is resumed too, with Last-Modified when that is the only validator")
    func resumesFromDiskWithLastModified() async throws {
        let env = try await DownloaderTestEnvironment()
        let image = try DownloaderTestEnvironment.jpeg(width: 1000, height: 800)
        let path = "/disk.jpg"
        let identifier = env.server.url(for: path).absoluteString
        env.server.setImage(image, at: path)
        // Leave a partial, then rewrite it without its entity tag (as a server sending only Last-Modified would).
        _ = try await leavePartial(env, path, dropAfter: image.count / 2)
        let partial = try #require(await waitForPartial(env, identifier))
        let lastModified = try #require(partial.metadata.lastModified)
        let bytes = try Data(contentsOf: partial.fileURL)
        env.pipeline.memoryCache.clearAll()
        env.pipeline.diskCache.clearImage(withIdentifier: identifier)
        let file = try env.pipeline.diskCache.openTemporaryFile(forIdentifier: identifier)
        try file.append(bytes)
        var metadata = partial.metadata
        metadata.entityTag = nil
        #expect(file.finalize(metadata: metadata, complete: false))

        env.server.resetLog()
        let resumer = env.start(env.request(path))
        let result = try #require(await resumer.success())
        #expect(result.wasResumed)
        #expect(result.data == image)
        let record = try #require(env.server.requests(for: path).first)
        #expect(record.status == 206)
        #expect(record.header("Range") == "bytes=\(bytes.count)-")
        #expect(record.header("If-Range") == lastModified)
        await env.tearDown()
    }

    @Test("a server that ignores Range answers 200: the members are reset and the whole image arrives, uncorrupted")
    func serverIgnoresRange() async throws {
        let env = try await DownloaderTestEnvironment()
        let image = try DownloaderTestEnvironment.jpeg(width: 900, height: 700)
        let path = "/ignore.jpg"
        env.server.setImage(image, at: path)
        _ = try await leavePartial(env, path, dropAfter: image.count / 2)
        _ = try #require(await waitForPartial(env, env.server.url(for: path).absoluteString))
        env.server.setFault(.ignoreRange, for: path)
        env.server.resetLog()
        let member = env.start(env.request(path))
        let result = try #require(await member.success())
        #expect(!result.wasResumed)
        #expect(result.data == image)
        #expect(member.receivedByteCount == image.count)
        #expect(member.events.contains(.reset))
        #expect(env.server.requests(for: path).map(\.status) == [200])
        let complete = try #require(env.diskEntry(env.server.url(for: path).absoluteString)?.complete)
        #expect(try Data(contentsOf: complete.fileURL) == image)
        await env.tearDown()
    }

    @Test("validators that changed between attempts restart the download cleanly (new bytes only)")
    func validatorChanged() async throws {
        let env = try await DownloaderTestEnvironment()
        let old = try DownloaderTestEnvironment.jpeg(width: 900, height: 700, seed: 1)
        let new = try DownloaderTestEnvironment.jpeg(width: 900, height: 700, seed: 2)
        let path = "/changed.jpg"
        env.server.setImage(old, at: path, lastModified: Date(timeIntervalSince1970: 1_700_000_000))
        _ = try await leavePartial(env, path, dropAfter: old.count / 2)
        _ = try #require(await waitForPartial(env, env.server.url(for: path).absoluteString))
        env.server.setImage(new, at: path, lastModified: Date(timeIntervalSince1970: 1_700_000_500))
        env.server.resetLog()
        let member = env.start(env.request(path))
        let result = try #require(await member.success())
        #expect(result.data == new)
        #expect(member.receivedByteCount == new.count)
        #expect(member.events.contains(.reset))
        let record = try #require(env.server.requests(for: path).first)
        #expect(record.header("If-Range") != nil)
        #expect(record.status == 200)
        let complete = try #require(env.diskEntry(env.server.url(for: path).absoluteString)?.complete)
        #expect(try Data(contentsOf: complete.fileURL) == new)
        await env.tearDown()
    }

    @Test("416 for the range: one more request without a range, and the image arrives")
    func rangeNotSatisfiable() async throws {
        let env = try await DownloaderTestEnvironment()
        let image = try DownloaderTestEnvironment.jpeg(width: 400, height: 300)
        let path = "/416.jpg"
        let url = env.server.url(for: path)
        env.server.setImage(image, at: path)
        // A cached partial longer than the image now is: its range cannot be satisfied.
        let stale = image + Data(repeating: 0x55, count: 4096)
        // Larger than the image now is: the whole image would not replace it by size, so only the refusal drops it.
        let entry = MemoryCacheEntry(
            identifier: url.absoluteString,
            partial: MemoryCachePartialImage(
                data: stale, url: url, dimensions: CGSize(width: 800, height: 600), expectedLength: stale.count + 10,
                lastModified: "Mon, 01 Jan 2024 00:00:00 GMT", imageType: .jpeg))
        #expect(env.pipeline.memoryCache.updateEntry(entry))
        let member = env.start(env.request(path))
        let result = try #require(await member.success())
        #expect(result.data == image)
        #expect(!result.wasResumed)
        #expect(member.events.contains(.reset))
        let records = env.server.requests(for: path)
        #expect(records.map(\.status) == [416, 200])
        #expect(records.last?.header("Range") == nil)
        #expect(records.last?.header("If-Range") == nil)
        // The refused partial is gone: it is never asked for again.
        #expect(env.pipeline.memoryCache.entry(withIdentifier: url.absoluteString, touch: false)?.partial == nil)
        await env.tearDown()
    }

    @Test(
        """
        a partial of a larger, older version is dropped from both caches once the server sends the new, smaller \
        image whole: it would otherwise stay on disk beside it, resumed in vain
        """
    )
    func smallerNewVersionDropsOldPartial() async throws {
        let env = try await DownloaderTestEnvironment()
        let old = try DownloaderTestEnvironment.jpeg(width: 1200, height: 900, seed: 1)
        let new = try DownloaderTestEnvironment.jpeg(width: 400, height: 300, seed: 2)
        let path = "/shrunk.jpg"
        let identifier = env.server.url(for: path).absoluteString
        env.server.setImage(old, at: path, lastModified: Date(timeIntervalSince1970: 1_700_000_000))
        _ = try await leavePartial(env, path, dropAfter: old.count / 2)
        _ = try #require(await waitForPartial(env, identifier))
        env.server.setImage(new, at: path, lastModified: Date(timeIntervalSince1970: 1_700_000_500))
        env.server.resetLog()
        let result = try #require(await env.start(env.request(path)).success())
        #expect(result.data == new && !result.wasResumed)
        #expect(env.server.requests(for: path).map(\.status) == [200])
        #expect(await eventually { env.diskEntry(identifier)?.complete != nil })
        let entry = try #require(env.diskEntry(identifier))
        #expect(entry.partial == nil)
        #expect(try Data(contentsOf: try #require(entry.complete).fileURL) == new)
        #expect(env.pipeline.memoryCache.entry(withIdentifier: identifier, touch: false)?.partial == nil)
        await env.tearDown()
    }

    @Test("resume-only fetches: no partial, or a server restart, end with CouldNotLoadImage")
    func resumeOnly() async throws {
        let env = try await DownloaderTestEnvironment()
        let image = try DownloaderTestEnvironment.jpeg(width: 600, height: 400)
        let path = "/only.jpg"
        env.server.setImage(image, at: path)
        var request = env.request(path)
        request.allowsFullDownload = false
        let nothing = env.start(request)
        #expect((await nothing.failure() as? ImageFetchError)?.code == .couldNotLoadImage)
        #expect(env.server.requestCount(for: path) == 0)

        _ = try await leavePartial(env, path, dropAfter: image.count / 2)
        _ = try #require(await waitForPartial(env, env.server.url(for: path).absoluteString))
        env.server.setFault(.ignoreRange, for: path)
        let restarted = env.start(request)
        #expect((await restarted.failure() as? ImageFetchError)?.code == .couldNotLoadImage)

        env.server.setFault(nil, for: path)
        _ = try #require(await waitForPartial(env, env.server.url(for: path).absoluteString))
        let resumed = env.start(request)
        let outcome = await resumed.completion()
        if case .failure(let error) = outcome { Issue.record("the resume failed: \(error); events \(resumed.events)") }
        #expect((try? outcome?.get())?.data == image)
        await env.tearDown()
    }

    @Test("the last member leaving keeps the partial; no validator or a placeholder keeps nothing")
    func whatIsKept() async throws {
        let env = try SteppedPipelineEnvironment()
        defer { env.tearDown() }
        let image = try DownloaderTestEnvironment.jpeg(width: 1000, height: 800)
        let headers = SteppedPipelineEnvironment.resumableHeaders(length: image.count, entityTag: "\"k\"")
        let leaver = env.start(env.request("cancel.jpg"))
        let download = try await env.provider.next()
        download.respond(status: 200, headers: headers)
        download.send(image.prefix(40 * 1024), chunkSize: 8 * 1024)
        #expect(await eventually { leaver.receivedByteCount == 40 * 1024 })
        env.downloader.remove(leaver)
        #expect((await leaver.failure() as? ImageFetchError)?.code == .cancelled)
        #expect(await download.waitUntilCancelled())
        let cancelled = SteppedPipelineEnvironment.url("cancel.jpg").absoluteString
        #expect(env.diskEntry(cancelled)?.partial?.byteCount == Int64(40 * 1024))  // on disk before the member heard
        #expect(
            env.pipeline.memoryCache.entry(withIdentifier: cancelled, touch: false)?.partial?.data.count == 40 * 1024)

        // A placeholder's partial is never kept.
        var placeholder = env.request("placeholder.jpg")
        placeholder.isPlaceholder = true
        let placeholderMember = env.start(placeholder)
        let dropped = try await env.provider.next()
        dropped.respond(status: 200, headers: headers)
        dropped.send(image.prefix(image.count / 2))
        dropped.finish(URLError(.networkConnectionLost))
        #expect((await placeholderMember.failure() as? ImageFetchError)?.underlyingError is URLError)

        // Without a validator nothing can be resumed: a scripted server with no Last-Modified or ETag.
        env.configuration.imageFetchDownloadProvider = ScriptedDownloadProvider([
            .start, .hydrate, .authorize,
            .response(status: 200, headers: ["Content-Length": "\(image.count)", "Accept-Ranges": "bytes"]),
            .data(image.prefix(image.count / 2)), .complete(URLError(.networkConnectionLost)),
        ])
        #expect(
            (await env.start(env.request("novalidator.jpg")).failure() as? ImageFetchError)?.underlyingError is URLError
        )
        // The caches decided before the members heard of the failures.
        for name in ["placeholder.jpg", "novalidator.jpg"] {
            let identifier = SteppedPipelineEnvironment.url(name).absoluteString
            #expect(env.diskEntry(identifier) == nil, "\(name)")
            #expect(env.pipeline.memoryCache.entry(withIdentifier: identifier, touch: false) == nil, "\(name)")
        }
    }

    /// Waits for the disk cache's partial of `identifier`.
    private func waitForPartial(_ env: DownloaderTestEnvironment, _ identifier: String) async -> DiskCacheEntry.Part? {
        _ = await eventually { env.diskEntry(identifier)?.partial != nil }
        return env.diskEntry(identifier)?.partial
    }
}
