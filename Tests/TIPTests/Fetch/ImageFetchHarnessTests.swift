import Foundation
import Testing

@testable import TIP

/// TIP's fetch harness, per format, through every tier of a real pipeline: downloads the test steps by hand (so
/// scans, first frames and cancellations land mid-body on any machine), and stubbed downloads (a resumable stub
/// with TIP's fixed Last-Modified validator).
@Suite("Fetch harness: every format through every tier")
struct ImageFetchHarnessTests {
    /// A pipeline whose downloads come from a counting stub provider.
    private func environment(_ name: String = #function) async throws -> (
        DownloaderTestEnvironment, CountingStubProvider
    ) {
        let env = try await DownloaderTestEnvironment(name)
        let provider = CountingStubProvider()
        env.configuration.imageFetchDownloadProvider = provider
        return (env, provider)
    }

    private func request(_ url: URL) -> GenericImageFetchRequest {
        GenericImageFetchRequest(
            imageURL: url, identifier: nil, targetDimensions: HarnessImage.target,
            targetContentMode: .scaleAspectFit)
    }

    @Test(
        "network, then memory, then rendered, then disk: sources, metrics, sizes and frame durations",
        arguments: HarnessImage.Kind.allCases)
    func everyTier(_ kind: HarnessImage.Kind) async throws {
        let env = try SteppedPipelineEnvironment()
        defer { env.tearDown() }
        let image = try HarnessImage.make(kind)
        let url = SteppedPipelineEnvironment.url("tiers/\(kind.rawValue)")
        let request = request(url)

        // Network: half the body, then (once the half was taken in, and any scan or first frame shown) the rest.
        let (network, networkDelegate) = try await env.harnessFetch(request, wantsScans: image.wantsScans) {
            download, operation, delegate in
            download.respond(
                status: 200,
                headers: SteppedPipelineEnvironment.resumableHeaders(
                    length: image.data.count, entityTag: "\"t\"",
                    type: image.mimeType))
            let half = image.data.count / 2
            download.send(image.data.prefix(half), chunkSize: 4 * 1024)
            let shown: HarnessFetchDelegate.Event? = image.wantsScans ? .scan : (kind == .gif ? .firstFrame : nil)
            let midway = await eventually {
                guard operation.progress >= 0.45 else { return false }
                guard let shown else { return true }
                return delegate.events.withLock { $0 }.contains(shown)
            }
            #expect(midway, "\(kind): \(delegate.events.withLock { $0 }) at \(operation.progress)")
            download.send(image.data.suffix(from: half), chunkSize: 4 * 1024)
            download.finish()
        }
        networkDelegate.checkContract()
        let networkResult = try #require(
            networkDelegate.final.withLock { $0 },
            """
            \(kind): \(network.state) \(network.progress) \(networkDelegate.progress.withLock { $0 }) \
            \(image.data.count)
            """
        )
        #expect(networkResult.imageSource == .network)
        #expect(networkResult.imageOriginalDimensions == image.original)
        image.check(networkResult.imageContainer, "network")
        #expect(
            networkResult.imageContainer.frames[0] == (try image.directDecode().frames[0]),
            "\(kind): same pixels as a direct decode")
        let events = networkDelegate.events.withLock { $0 }
        #expect(events.first == .start)
        #expect(events.contains(.scan) == image.wantsScans, "\(kind): \(events)")
        #expect(events.contains(.firstFrame) == (kind == .gif), "\(kind): \(events)")
        #expect(network.networkLoadImageType == image.type)
        #expect(network.networkImageOriginalDimensions == image.original)
        // Scans, or frames decoded while the bytes arrived: GIF's, and PNG's one frame (PNG is
        // animation-capable, as in TIP, so a delegate that takes first frames gets a partial image for it).
        #expect((network.progressiveFrameCount > 0) == (image.wantsScans || kind == .gif || kind == .png))
        let info = try #require(network.metrics?.metricInfo(for: .network))
        #expect(info.result == .hitFinal)
        #expect(info.networkImageSizeInBytes == image.data.count)
        #expect(info.networkImageType == image.type)
        #expect(info.networkImageDimensions == image.original)
        #expect(info.networkRequest?.url == url)
        #expect(info.totalNetworkLoadDuration > 0 && info.totalNetworkLoadDuration <= info.loadDuration)
        #expect((info.firstProgressiveFrameNetworkLoadDuration > 0) == (image.wantsScans || kind == .gif))
        #expect(info.networkImagePixelsPerByte > 0)
        #expect(network.metrics?.metricInfo(for: .memoryCache)?.result == .miss)
        #expect(network.metrics?.metricInfo(for: .diskCache)?.result == .miss)

        // Memory: the encoded bytes, decoded again at the target.
        env.pipeline.renderedCache.clearAll()
        let (memory, memoryDelegate) = await env.pipeline.harnessFetch(request, wantsScans: image.wantsScans)
        memoryDelegate.checkContract()
        #expect(memoryDelegate.events.withLock { $0 } == [.start, .final(.memoryCache)])
        image.check(try #require(memory.finalResult).imageContainer, "memory")
        #expect(
            memory.finalResult?.imageOriginalDimensions == image.original, "the variant's own size, not the target's")
        #expect(memory.metrics?.metricInfo(for: .memoryCache)?.result == .hitFinal)
        #expect(memory.metrics?.metricInfo(for: .network) == nil)

        // Rendered: synchronous on the callback queue.
        let renderedDelegate = HarnessFetchDelegate(wantsScans: image.wantsScans)
        let rendered = env.pipeline.operation(with: request, delegate: renderedDelegate)
        env.configuration.callbackQueue.sync { env.pipeline.fetchImage(with: rendered) }
        #expect(rendered.isFinished)
        #expect(renderedDelegate.events.withLock { $0 } == [.start, .final(.memoryCache)])
        image.check(try #require(rendered.finalResult).imageContainer, "rendered")
        #expect(rendered.finalResult?.imageOriginalDimensions == image.original)
        #expect(rendered.metrics?.metricInfo(for: .memoryCache)?.wasLoadedSynchronously == true)

        // Disk.
        env.pipeline.clearMemoryCaches()
        let (disk, diskDelegate) = await env.pipeline.harnessFetch(request, wantsScans: image.wantsScans)
        diskDelegate.checkContract()
        #expect(diskDelegate.events.withLock { $0 } == [.start, .final(.diskCache)])
        image.check(try #require(disk.finalResult).imageContainer, "disk")
        #expect(disk.finalResult?.imageOriginalDimensions == image.original, "the variant's own size, not the target's")
        #expect(disk.metrics?.metricInfo(for: .memoryCache)?.result == .miss)
        #expect(disk.metrics?.metricInfo(for: .diskCache)?.result == .hitFinal)

        // The disk hit went back into memory: the next fetch is a memory hit.
        env.pipeline.renderedCache.clearAll()
        let (again, _) = await env.pipeline.harnessFetch(request, wantsScans: image.wantsScans)
        #expect(again.finalResult?.imageSource == .memoryCache)
        #expect(env.provider.count == 1)
    }

    @Test(
        "cancelled after 20%, the next fetch resumes: networkResumed, progress never backwards, same image",
        arguments: HarnessImage.Kind.allCases)
    func cancelThenResume(_ kind: HarnessImage.Kind) async throws {
        let env = try SteppedPipelineEnvironment()
        defer { env.tearDown() }
        let image = try HarnessImage.make(kind)
        let url = SteppedPipelineEnvironment.url("resume/\(kind.rawValue)")
        let request = request(url)
        let tag = "\"\(kind.rawValue)\""
        let count = image.data.count

        // 30% of the body and nothing more: the delegate cancels at 20%, wherever the fetch's queue is.
        let delegate = HarnessFetchDelegate(wantsScans: image.wantsScans, cancelAtProgress: 0.2)
        let first = env.pipeline.operation(with: request, delegate: delegate)
        env.pipeline.fetchImage(with: first)
        let download = try await env.provider.next()
        download.respond(
            status: 200,
            headers: SteppedPipelineEnvironment.resumableHeaders(length: count, entityTag: tag, type: image.mimeType))
        download.send(image.data.prefix(count * 3 / 10), chunkSize: 4 * 1024)
        #expect(await eventually { first.isFinished })
        #expect(first.state == .cancelled, "\(count) bytes, progress \(delegate.progress.withLock { $0 })")
        delegate.checkContract()
        #expect(first.metrics?.metricInfo(for: .network)?.wasCancelled == true)
        #expect(await download.waitUntilCancelled())
        #expect(await eventually { env.diskEntry(url.absoluteString)?.partial != nil })
        let kept = try #require(env.diskEntry(url.absoluteString)?.partial?.byteCount)
        #expect(kept >= Int64(Double(count) * 0.2) && kept <= Int64(count * 3 / 10))

        let (second, secondDelegate) = try await env.harnessFetch(request, wantsScans: image.wantsScans) {
            resumed, _, _ in
            #expect(resumed.header("Range") == "bytes=\(kept)-")
            #expect(resumed.header("If-Range") == tag)
            resumed.respond(
                status: 206,
                headers: SteppedPipelineEnvironment.rangeHeaders(
                    from: Int(kept), length: count, entityTag: tag,
                    type: image.mimeType))
            resumed.send(image.data.suffix(from: Int(kept)), chunkSize: 4 * 1024)
            resumed.finish()
        }
        secondDelegate.checkContract()
        let result = try #require(second.finalResult, "\(kind)")
        #expect(result.imageSource == .networkResumed)
        image.check(result.imageContainer, "resumed")
        #expect(
            result.imageContainer.frames[0] == (try image.directDecode().frames[0]),
            "\(kind): same pixels as a direct decode")
        let progress = secondDelegate.progress.withLock { $0 }
        #expect((progress.first ?? 0) >= 0.2, "\(progress)")
        #expect(second.metrics?.metricInfo(for: .networkResumed)?.result == .hitFinal)
        #expect(second.metrics?.metricInfo(for: .network) == nil)
        #expect(second.metrics?.metricInfo(for: .networkResumed)?.networkImageSizeInBytes == count)
        #expect(env.provider.count == 2)

        // The completed file is the server's, byte for byte; the partial is gone.
        #expect(await eventually { env.diskEntry(url.absoluteString)?.partial == nil })
        let file = try #require(env.diskEntry(url.absoluteString)?.complete?.fileURL)
        #expect(try Data(contentsOf: file) == image.data)
    }

    @Test("with stubs: a resumable stub answers the resumed range; progress never goes backwards")
    func stubResume() async throws {
        let (env, provider) = try await environment()
        let image = try HarnessImage.make(.jpeg)
        let url = URL(string: "https://stub.tip.invalid/resume.jpg")!
        provider.stub(image, at: url)
        // A partial left by an earlier download (as a cancelled one leaves it): the first 40% on disk.
        let partial = image.data.prefix(image.data.count * 4 / 10)
        let metadata = DiskCacheMetadata(
            identifier: url.absoluteString, url: url, lastAccess: Date(), timeToLive: 3_600,
            width: 800, height: 600, isAnimated: false, isPlaceholder: false,
            lastModified: StubbingImageFetchDownloadProvider.stubLastModified, entityTag: nil,
            expectedLength: Int64(image.data.count), imageType: ImageType.jpeg.rawValue)
        let file = try env.pipeline.diskCache.openTemporaryFile(forIdentifier: url.absoluteString)
        try file.append(partial)
        #expect(file.finalize(metadata: metadata, complete: false))
        let (operation, delegate) = await env.pipeline.harnessFetch(request(url), wantsScans: false)
        delegate.checkContract()
        #expect(operation.finalResult?.imageSource == .networkResumed)
        #expect((delegate.progress.withLock { $0 }.first ?? 0) >= 0.4)
        image.check(try #require(operation.finalResult).imageContainer, "stub resumed")
        #expect(provider.count.withLock { $0 } == 1)
        await env.tearDown()
    }
}
