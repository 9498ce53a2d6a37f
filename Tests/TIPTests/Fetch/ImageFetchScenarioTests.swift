import Foundation
import TIPImageServer
import Testing

@testable import TIP

/// End-to-end fetch scenarios: single-chunk bodies, shared downloads and servers that ignore `Range` (downloads
/// the test steps by hand), renamed identifiers (the embedded server) and errors after the last byte (a script).
@Suite("Fetch scenarios")
struct ImageFetchScenarioTests {
    private func request(_ url: URL, identifier: String? = nil, sources: ImageFetchLoadingSources = .all)
        -> GenericImageFetchRequest
    {
        var request = GenericImageFetchRequest(
            imageURL: url, identifier: identifier, targetDimensions: HarnessImage.target,
            targetContentMode: .scaleAspectFit)
        request.loadingSources = sources
        return request
    }

    @Test("a progressive JPEG arriving in one chunk: no scan without opting in, never a scan at 100% with it")
    func progressiveInOneChunk() async throws {
        let env = try SteppedPipelineEnvironment()
        defer { env.tearDown() }
        let image = try HarnessImage.make(.progressiveJPEG)
        for (name, optIn) in [("one-in.jpg", true), ("one-out.jpg", false)] {
            let (operation, delegate) = try await env.harnessFetch(
                request(SteppedPipelineEnvironment.url(name)), wantsScans: optIn
            ) { download, _, _ in
                download.serve(image.data, type: image.mimeType)  // the whole body in one chunk
            }
            delegate.checkContract()  // the delegate also checks every scan has 0 < progress < 1
            #expect(operation.finalResult?.imageSource == .network)
            image.check(try #require(operation.finalResult).imageContainer, "one chunk")
            if !optIn { #expect(!delegate.events.withLock { $0 }.contains(.scan)) }
        }
        #expect(env.provider.count == 2)
    }

    @Test("two identical fetches share one download; cancelling one leaves the other to finish")
    func sharedDownload() async throws {
        let env = try SteppedPipelineEnvironment()
        defer { env.tearDown() }
        let image = try HarnessImage.make(.jpeg)
        let request = request(SteppedPipelineEnvironment.url("shared.jpg"))
        let leaving = HarnessFetchDelegate(wantsScans: false, cancelAtProgress: 0.1)
        let staying = HarnessFetchDelegate(wantsScans: false)
        let first = env.pipeline.operation(with: request, delegate: leaving)
        let second = env.pipeline.operation(with: request, delegate: staying)
        env.pipeline.fetchImage(with: first)
        env.pipeline.fetchImage(with: second)
        let download = try await env.provider.next()
        // Both joined: each heard the download start (progress 0).
        #expect(
            await eventually { !leaving.progress.withLock { $0 }.isEmpty && !staying.progress.withLock { $0 }.isEmpty })
        download.respond(
            status: 200,
            headers: SteppedPipelineEnvironment.resumableHeaders(length: image.data.count, entityTag: "\"s\""))
        let fifth = image.data.count / 5
        download.send(image.data.prefix(fifth), chunkSize: 8 * 1024)
        #expect(await eventually { first.isFinished })
        #expect(first.state == .cancelled)
        #expect(!download.isCancelled)  // the other fetch still wants it
        download.send(image.data.suffix(from: fifth), chunkSize: 8 * 1024)
        download.finish()
        #expect(await eventually { second.isFinished })
        #expect(second.state == .succeeded)
        leaving.checkContract()
        staying.checkContract()
        image.check(try #require(second.finalResult).imageContainer, "shared")
        #expect(env.provider.count == 1)
    }

    @Test("a server that ignores Range: the fetch restarts from byte 0 and delivers the right image from network")
    func serverIgnoresRange() async throws {
        let env = try SteppedPipelineEnvironment()
        defer { env.tearDown() }
        let image = try HarnessImage.make(.jpeg)
        let url = SteppedPipelineEnvironment.url("ignore-range.jpg")
        let tag = "\"i\""
        let cancelling = HarnessFetchDelegate(wantsScans: false, cancelAtProgress: 0.3)
        let first = env.pipeline.operation(with: request(url), delegate: cancelling)
        env.pipeline.fetchImage(with: first)
        let download = try await env.provider.next()
        download.respond(
            status: 200, headers: SteppedPipelineEnvironment.resumableHeaders(length: image.data.count, entityTag: tag))
        download.send(image.data.prefix(image.data.count / 2), chunkSize: 8 * 1024)  // and nothing more
        #expect(await eventually { first.isFinished })
        #expect(first.state == .cancelled)
        #expect(await eventually { env.diskEntry(url.absoluteString)?.partial != nil })
        let kept = try #require(env.diskEntry(url.absoluteString)?.partial?.byteCount)

        // The next fetch asks for the rest; the server answers 200 with the whole image.
        let (second, delegate) = try await env.harnessFetch(request(url), wantsScans: false) { resumed, _, _ in
            #expect(resumed.header("Range") == "bytes=\(kept)-")
            #expect(resumed.header("If-Range") == tag)
            resumed.serve(image.data, entityTag: tag, chunkSize: 8 * 1024)
        }
        #expect(second.finalResult?.imageSource == .network)
        image.check(try #require(second.finalResult).imageContainer, "after 200")
        #expect(second.metrics?.metricInfo(for: .network)?.networkImageSizeInBytes == image.data.count)
        // Progress went back to 0 exactly once, when the body restarted.
        let progress = delegate.progress.withLock { $0 }
        let drops = zip(progress, progress.dropFirst()).filter { $0 > $1 }
        #expect(drops.count <= 1 && drops.allSatisfy { $0.1 == 0 }, "\(progress)")
        #expect(await eventually { env.diskEntry(url.absoluteString)?.partial == nil })
        let file = try #require(env.diskEntry(url.absoluteString)?.complete?.fileURL)
        #expect(try Data(contentsOf: file) == image.data)
        #expect(env.provider.count == 2)
    }

    @Test("renaming an identifier: the new one hits the caches, the old one is gone")
    func renameIdentifier() async throws {
        let env = try await DownloaderTestEnvironment()
        let image = try HarnessImage.make(.png)
        env.server.setImage(image.data, at: "/renamed.png")
        let url = env.server.url(for: "/renamed.png")
        let (first, _) = await env.pipeline.harnessFetch(request(url, identifier: "before"), wantsScans: false)
        #expect(first.finalResult?.imageSource == .network)
        #expect(await eventually { env.diskEntry("before")?.complete != nil })

        let renamed = Locked<(done: Bool, error: String?)>((false, nil))
        env.pipeline.changeIdentifierForImage(withIdentifier: "before", toIdentifier: "after") { error in
            renamed.withLock { $0 = (true, error.map { "\($0)" }) }
        }
        #expect(await eventually { renamed.withLock { $0.done } })
        #expect(renamed.withLock { $0.error } == nil)

        let cachesOnly: ImageFetchLoadingSources = [.memoryCache, .diskCache]
        let (after, _) = await env.pipeline.harnessFetch(
            request(url, identifier: "after", sources: cachesOnly), wantsScans: false)
        // The memory entry moved with the file (the rename is in every cache); the file answers once memory is gone.
        #expect(after.finalResult?.imageSource == .memoryCache)
        image.check(try #require(after.finalResult).imageContainer, "renamed")
        env.pipeline.clearMemoryCaches()
        let (fromDisk, _) = await env.pipeline.harnessFetch(
            request(url, identifier: "after", sources: cachesOnly), wantsScans: false)
        #expect(fromDisk.finalResult?.imageSource == .diskCache)
        image.check(try #require(fromDisk.finalResult).imageContainer, "renamed, from disk")
        let (before, beforeDelegate) = await env.pipeline.harnessFetch(
            request(url, identifier: "before", sources: cachesOnly), wantsScans: false)
        #expect(before.state == .failed)
        #expect(beforeDelegate.events.withLock { $0 }.last == .failure(ImageFetchError.Code.couldNotLoadImage.rawValue))
        #expect(env.server.requestCount(for: "/renamed.png") == 1)
        await env.tearDown()
    }

    @Test("an error after the complete body is forgiven: the image is delivered, cached, and the problem reported")
    func errorAfterCompleteBody() async throws {
        let env = try await DownloaderTestEnvironment()
        let recorder = RecordingProblemObserver()
        env.configuration.problemObserver = recorder
        let image = try HarnessImage.make(.gif)
        env.configuration.imageFetchDownloadProvider = ScriptedDownloadProvider([
            .start, .hydrate, .authorize,
            .response(
                status: 200,
                headers: ["Content-Length": "\(image.data.count)", "Last-Modified": "Mon, 01 Jan 2024 00:00:00 GMT"]),
            .data(image.data.prefix(1000)), .data(image.data.dropFirst(1000)),
            .complete(URLError(.networkConnectionLost)),
        ])
        let url = URL(string: "https://scripted.tip.invalid/late-error.gif")!
        let (operation, delegate) = await env.pipeline.harnessFetch(request(url), wantsScans: false)
        delegate.checkContract()
        #expect(operation.finalResult?.imageSource == .network)
        image.check(try #require(operation.finalResult).imageContainer, "late error")
        #expect(recorder.all.contains(.imageDownloadedWithUnnecessaryError))
        #expect(await eventually { env.diskEntry(url.absoluteString)?.complete != nil })
        env.pipeline.clearMemoryCaches()
        let (again, _) = await env.pipeline.harnessFetch(request(url), wantsScans: false)
        #expect(again.finalResult?.imageSource == .diskCache)
        image.check(try #require(again.finalResult).imageContainer, "late error, from disk")
        await env.tearDown()
    }
}
