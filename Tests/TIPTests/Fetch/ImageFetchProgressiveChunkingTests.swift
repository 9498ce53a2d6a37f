import Foundation
import Testing

@testable import TIP

#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

@Suite("Fetch: progressive scans however the bytes are chunked")
struct ImageFetchProgressiveChunkingTests {
    static let target = CGSize(width: 300, height: 300)

    private func request(_ name: String) -> GenericImageFetchRequest {
        GenericImageFetchRequest(
            imageURL: SteppedPipelineEnvironment.url(name), identifier: nil,
            targetDimensions: Self.target, targetContentMode: .scaleAspectFit)
    }

    /// Fetches `name` with `delegate`, the body arriving in chunks of `chunkSize` bytes (0: one chunk).
    private func fetch(
        _ env: SteppedPipelineEnvironment, _ name: String, _ jpeg: Data, chunkSize: Int,
        delegate: ProgressiveRecordingDelegate
    ) async throws -> ImageFetchOperation {
        let operation = env.pipeline.operation(with: request(name), delegate: delegate)
        env.pipeline.fetchImage(with: operation)
        let download = try await env.provider.next()
        download.respond(
            status: 200, headers: SteppedPipelineEnvironment.resumableHeaders(length: jpeg.count, entityTag: "\"p\""))
        download.send(jpeg, chunkSize: chunkSize > 0 ? chunkSize : jpeg.count)
        download.finish()
        #expect(await eventually { operation.isFinished })
        return operation
    }

    @Test(
        "a delegate that opted in gets a scan for a network load, whatever the chunking; none without opting in",
        arguments: [0, 256 * 1024, 64 * 1024, 7 * 1024, 1024])
    func chunkings(chunkSize: Int) async throws {
        let env = try SteppedPipelineEnvironment()
        defer { env.tearDown() }
        let jpeg = try DownloaderTestEnvironment.jpeg(width: 1200, height: 900, progressive: true, seed: 21)

        let optedIn = ProgressiveRecordingDelegate(optIn: true)
        let first = try await fetch(env, "in-\(chunkSize).jpg", jpeg, chunkSize: chunkSize, delegate: optedIn)
        #expect(first.finalResult?.imageSource == .network)
        #expect(!optedIn.scans.withLock { $0 }.isEmpty, "no scan with chunks of \(chunkSize) bytes")
        #expect(optedIn.scans.withLock { $0 }.allSatisfy { $0 == CGSize(width: 300, height: 225) })
        #expect(optedIn.order.withLock { $0 }.last == "final")

        let optedOut = ProgressiveRecordingDelegate(optIn: false)
        let second = try await fetch(env, "out-\(chunkSize).jpg", jpeg, chunkSize: chunkSize, delegate: optedOut)
        #expect(second.finalResult?.imageSource == .network)
        #expect(optedOut.scans.withLock { $0 }.isEmpty)
    }

    @Test("a resumed download whose rest arrives in one chunk renders a scan")
    func resumedRestInOneChunk() async throws {
        let env = try SteppedPipelineEnvironment()
        defer { env.tearDown() }
        let jpeg = try DownloaderTestEnvironment.jpeg(width: 1200, height: 900, progressive: true, seed: 22)
        let cut = jpeg.count / 3
        let leavingDelegate = ProgressiveRecordingDelegate(optIn: false)
        let leaving = env.pipeline.operation(with: request("resume.jpg"), delegate: leavingDelegate)
        env.pipeline.fetchImage(with: leaving)
        let download = try await env.provider.next()
        download.respond(
            status: 200, headers: SteppedPipelineEnvironment.resumableHeaders(length: jpeg.count, entityTag: "\"r\""))
        download.send(jpeg.prefix(cut))
        #expect(await eventually { leaving.networkImageOriginalDimensions != .zero && leaving.progress > 0.3 })
        leaving.cancel()
        #expect(await eventually { leaving.isFinished })
        #expect(
            await eventually {
                env.pipeline.memoryCache.entry(
                    withIdentifier: SteppedPipelineEnvironment.url("resume.jpg").absoluteString, touch: false)?.partial
                    != nil
            })

        let delegate = ProgressiveRecordingDelegate(optIn: true)
        let operation = env.pipeline.operation(with: request("resume.jpg"), delegate: delegate)
        env.pipeline.fetchImage(with: operation)
        let resumed = try await env.provider.next()
        #expect(resumed.sentRequest?.value(forHTTPHeaderField: "Range") == "bytes=\(cut)-")
        resumed.respond(
            status: 206,
            headers: SteppedPipelineEnvironment.rangeHeaders(from: cut, length: jpeg.count, entityTag: "\"r\""))
        resumed.send(jpeg.suffix(from: cut))
        resumed.finish()
        #expect(await eventually { operation.isFinished })
        #expect(operation.finalResult?.imageSource == .networkResumed)
        #expect(!delegate.scans.withLock { $0 }.isEmpty)
        withExtendedLifetime(leavingDelegate) {}
    }

    @Test("memory and disk hits render no scan")
    func cacheHitsRenderNoScan() async throws {
        let env = try SteppedPipelineEnvironment()
        defer { env.tearDown() }
        let jpeg = try DownloaderTestEnvironment.jpeg(width: 1200, height: 900, progressive: true, seed: 23)
        let firstDelegate = ProgressiveRecordingDelegate(optIn: true)
        _ = try await fetch(env, "cached.jpg", jpeg, chunkSize: 16 * 1024, delegate: firstDelegate)
        // A different target size misses the rendered cache and decodes from the memory cache, then the disk.
        for clearMemory in [false, true] {
            if clearMemory {
                env.pipeline.clearMemoryCaches()
            } else {
                env.pipeline.clearRenderedMemoryCacheImage(
                    withIdentifier: SteppedPipelineEnvironment.url("cached.jpg").absoluteString)
            }
            let delegate = ProgressiveRecordingDelegate(optIn: true)
            let operation = env.pipeline.operation(with: request("cached.jpg"), delegate: delegate)
            env.pipeline.fetchImage(with: operation)
            #expect(await eventually { operation.isFinished })
            #expect(operation.finalResult?.imageSource == (clearMemory ? .diskCache : .memoryCache))
            #expect(delegate.scans.withLock { $0 }.isEmpty)
            #expect(delegate.asked.withLock { $0 } == 0)
        }
        #expect(env.provider.count == 1)
    }
}
