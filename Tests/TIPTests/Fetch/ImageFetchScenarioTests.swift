import Foundation
import Testing
@testable import TIP
import TIPImageServer

/// End-to-end fetch scenarios through the embedded server: single-chunk bodies, shared downloads, servers
/// that ignore `Range`, renamed identifiers and errors after the last byte.
@Suite("Fetch scenarios")
struct ImageFetchScenarioTests {
    private func request(_ url: URL, identifier: String? = nil, sources: ImageFetchLoadingSources = .all) -> GenericImageFetchRequest {
        var request = GenericImageFetchRequest(imageURL: url, identifier: identifier, targetDimensions: HarnessImage.target,
                                               targetContentMode: .scaleAspectFit)
        request.loadingSources = sources
        return request
    }

    @Test("a progressive JPEG arriving in one chunk: no scan without opting in, never a scan at 100% with it")
    func progressiveInOneChunk() async throws {
        let env = try await DownloaderTestEnvironment()
        let image = try HarnessImage.make(.progressiveJPEG)
        for path in ["/one-in.jpg", "/one-out.jpg"] {
            env.server.setImage(image.data, at: path)
            env.server.setThrottle(.init(bytesPerSecond: 100_000_000, chunkSize: image.data.count), for: path)
        }
        for (path, optIn) in [("/one-in.jpg", true), ("/one-out.jpg", false)] {
            let (operation, delegate) = await env.pipeline.harnessFetch(request(env.server.url(for: path)), wantsScans: optIn)
            delegate.checkContract()  // the delegate also checks every scan has 0 < progress < 1
            #expect(operation.finalResult?.imageSource == .network)
            image.check(try #require(operation.finalResult).imageContainer, "one chunk")
            if !optIn { #expect(!delegate.events.withLock { $0 }.contains(.scan)) }
        }
        await env.tearDown()
    }

    @Test("two identical fetches share one download; cancelling one leaves the other to finish")
    func sharedDownload() async throws {
        let env = try await DownloaderTestEnvironment()
        let image = try HarnessImage.make(.jpeg)
        env.server.setImage(image.data, at: "/shared.jpg")
        env.server.setThrottle(.init(bytesPerSecond: image.data.count, chunkSize: 8 * 1024), for: "/shared.jpg")
        let request = request(env.server.url(for: "/shared.jpg"))
        let leaving = HarnessFetchDelegate(wantsScans: false, cancelAtProgress: 0.1)
        let staying = HarnessFetchDelegate(wantsScans: false)
        let first = env.pipeline.operation(with: request, delegate: leaving)
        let second = env.pipeline.operation(with: request, delegate: staying)
        env.pipeline.fetchImage(with: first)
        env.pipeline.fetchImage(with: second)
        #expect(await eventually { first.isFinished && second.isFinished })
        #expect(first.state == .cancelled)
        #expect(second.state == .succeeded)
        leaving.checkContract()
        staying.checkContract()
        image.check(try #require(second.finalResult).imageContainer, "shared")
        #expect(env.server.requestCount(for: "/shared.jpg") == 1)
        await env.tearDown()
    }

    @Test("a server that ignores Range: the fetch restarts from byte 0 and delivers the right image from network")
    func serverIgnoresRange() async throws {
        let env = try await DownloaderTestEnvironment()
        let image = try HarnessImage.make(.jpeg)
        let path = "/ignore-range.jpg"
        env.server.setImage(image.data, at: path)
        env.server.setFault(.stall(afterBodyBytes: image.data.count / 2), for: path)
        let url = env.server.url(for: path)
        let cancelling = HarnessFetchDelegate(wantsScans: false, cancelAtProgress: 0.3)
        let first = env.pipeline.operation(with: request(url), delegate: cancelling)
        env.pipeline.fetchImage(with: first)
        #expect(await eventually { first.isFinished })
        #expect(await eventually { env.diskEntry(url.absoluteString)?.partial != nil })

        env.server.setFault(.ignoreRange, for: path)
        let (second, delegate) = await env.pipeline.harnessFetch(request(url), wantsScans: false)
        #expect(second.finalResult?.imageSource == .network)
        image.check(try #require(second.finalResult).imageContainer, "after 200")
        #expect(env.server.requests(for: path).last?.header("Range") != nil)  // it asked; the server said 200
        #expect(second.metrics?.metricInfo(for: .network)?.networkImageSizeInBytes == image.data.count)
        // Progress went back to 0 exactly once, when the body restarted.
        let progress = delegate.progress.withLock { $0 }
        let drops = zip(progress, progress.dropFirst()).filter { $0 > $1 }
        #expect(drops.count <= 1 && drops.allSatisfy { $0.1 == 0 }, "\(progress)")
        #expect(await eventually { env.diskEntry(url.absoluteString)?.partial == nil })
        let file = try #require(env.diskEntry(url.absoluteString)?.complete?.fileURL)
        #expect(try Data(contentsOf: file) == image.data)
        await env.tearDown()
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
        let (after, _) = await env.pipeline.harnessFetch(request(url, identifier: "after", sources: cachesOnly), wantsScans: false)
        #expect(after.finalResult?.imageSource == .diskCache)
        image.check(try #require(after.finalResult).imageContainer, "renamed")
        let (before, beforeDelegate) = await env.pipeline.harnessFetch(request(url, identifier: "before", sources: cachesOnly), wantsScans: false)
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
            .response(status: 200, headers: ["Content-Length": "\(image.data.count)", "Last-Modified": "Mon, 01 Jan 2024 00:00:00 GMT"]),
            .data(image.data.prefix(1000)), .data(image.data.dropFirst(1000)), .complete(URLError(.networkConnectionLost)),
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
