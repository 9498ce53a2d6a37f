import Foundation
import Testing

@testable import TIP

/// A fetch tells new scans by its partial image's scan count, not by what the download's last append reported. A
/// download appends without waiting: while another queue holds the partial image's lock, the bytes wait in its
/// intake and are decoded by the next reader, which may be a fetch rather than the download. The first test holds
/// that lock by hand, so the contention a loaded machine makes now and then happens on every run; the second joins
/// a download whose scans were decoded before it came; the third restarts a resumed body from byte 0.
@Suite("Fetch: a scan is shown once the fetch sees it decoded")
struct ImageFetchNewScanTests {
    /// The image of every test: 10 scans, the first complete within 24 KiB, 8 by half the body, 9 by 60%.
    private func progressiveJPEG() throws -> Data {
        try DownloaderTestEnvironment.jpeg(width: 1200, height: 900, progressive: true, seed: 13)
    }

    /// A request for `name` at 300x300, aspect fit (the image comes out 300x225).
    private func scanRequest(_ name: String) -> GenericImageFetchRequest {
        GenericImageFetchRequest(
            imageURL: SteppedPipelineEnvironment.url(name), identifier: nil,
            targetDimensions: CGSize(width: 300, height: 300), targetContentMode: .scaleAspectFit)
    }

    /// Starts a fetch of `request` whose delegate opts into scans.
    private func startFetch(_ env: SteppedPipelineEnvironment, _ request: GenericImageFetchRequest) -> (
        ImageFetchOperation, ProgressiveRecordingDelegate
    ) {
        let delegate = ProgressiveRecordingDelegate(optIn: true)
        let operation = env.pipeline.operation(with: request, delegate: delegate)
        env.pipeline.fetchImage(with: operation)
        return (operation, delegate)
    }

    @Test("scans that the fetch's own read decoded from the intake are shown before more bytes arrive")
    func scansDecodedByTheFetch() async throws {
        let env = try SteppedPipelineEnvironment()
        defer { env.tearDown() }
        let jpeg = try progressiveJPEG()
        let (operation, delegate) = startFetch(env, scanRequest("contended.jpg"))
        let download = try await env.provider.next()
        download.respond(
            status: 200,
            headers: SteppedPipelineEnvironment.resumableHeaders(length: jpeg.count, entityTag: "\"c\""))

        // The first 4 KiB hold the header and no whole scan: the fetch opts in and takes the partial image.
        download.send(jpeg.prefix(4096))
        let partialImage = Locked<PartialImage?>(nil)
        let tookPartial = await eventually {
            let partial = operation.workQueue.sync { operation.rendering.partialImage }
            partialImage.withLock { $0 = partial }
            return partial != nil
        }
        let partial = try #require(partialImage.withLock { $0 }, "the fetch never got the partial image")
        #expect(tookPartial)
        #expect(partial.frameCount == 0)

        // Half the image arrives while another thread holds the partial image: every append leaves its bytes in
        // the intake and reports no scan.
        let held = Locked(false)
        let release = DispatchSemaphore(value: 0)
        Thread.detachNewThread {
            partial.holdingLock {
                held.withLock { $0 = true }
                release.wait()
            }
        }
        #expect(await eventually { held.withLock { $0 } })
        let half = jpeg.count / 2
        download.send(jpeg.subdata(in: 4096..<half), chunkSize: 4096)
        let flushed = await download.flush()
        release.signal()
        #expect(flushed)

        // The fetch's next read decodes the waiting bytes (several scans): it shows them now, not when (or
        // whether) more bytes come.
        #expect(
            await eventually { !delegate.scans.withLock { $0 }.isEmpty },
            "no scan at \(operation.progress) with \(partial.frameCount) scans decoded")
        #expect(delegate.scans.withLock { $0 }.allSatisfy { $0 == CGSize(width: 300, height: 225) })

        download.send(jpeg.suffix(from: half), chunkSize: 16 * 1024)
        download.finish()
        #expect(await eventually { operation.isFinished })
        let final = try #require(delegate.final.withLock { $0 })
        #expect(final.imageContainer.dimensions == CGSize(width: 300, height: 225))
        #expect(!final.imageContainer.isPartial)
        #expect(delegate.order.withLock { $0 }.last == "final")
    }

    @Test("a fetch that joins a download midway shows the scans decoded before it joined, before more bytes arrive")
    func joinerShowsEarlierScans() async throws {
        let env = try SteppedPipelineEnvironment()
        defer { env.tearDown() }
        let jpeg = try progressiveJPEG()
        let request = scanRequest("joined.jpg")
        let (firstOperation, first) = startFetch(env, request)
        let download = try await env.provider.next()
        download.respond(
            status: 200,
            headers: SteppedPipelineEnvironment.resumableHeaders(length: jpeg.count, entityTag: "\"j\""))
        let half = jpeg.count / 2
        download.send(jpeg.prefix(half), chunkSize: 4096)
        #expect(await eventually { !first.scans.withLock { $0 }.isEmpty && firstOperation.progress >= 0.45 })

        // Same URL and sizing: the second fetch joins the running download (no second download is asked for).
        let (secondOperation, second) = startFetch(env, request)
        #expect(
            await eventually { !second.scans.withLock { $0 }.isEmpty },
            "the joiner showed no scan at \(secondOperation.progress)")
        #expect(second.asked.withLock { $0 } == 1)
        #expect(env.provider.count == 1)

        download.send(jpeg.suffix(from: half), chunkSize: 16 * 1024)
        download.finish()
        #expect(await eventually { firstOperation.isFinished && secondOperation.isFinished })
        for delegate in [first, second] {
            #expect(delegate.final.withLock { $0 }?.imageContainer.dimensions == CGSize(width: 300, height: 225))
            #expect(delegate.order.withLock { $0 }.last == "final")
        }
    }

    @Test("a resumed body that the server restarts from byte 0 shows the new body's scans")
    func scansAfterARestart() async throws {
        let env = try SteppedPipelineEnvironment()
        defer { env.tearDown() }
        let jpeg = try progressiveJPEG()
        let request = scanRequest("restarted.jpg")
        let headers = SteppedPipelineEnvironment.resumableHeaders(length: jpeg.count, entityTag: "\"r\"")
        // A first fetch takes 60% of the body (9 scans) and is cancelled: the disk cache keeps the partial.
        let cut = jpeg.count * 6 / 10
        let (firstOperation, first) = startFetch(env, request)
        let download = try await env.provider.next()
        download.respond(status: 200, headers: headers)
        download.send(jpeg.prefix(cut), chunkSize: 16 * 1024)
        #expect(await eventually { !first.scans.withLock { $0 }.isEmpty && firstOperation.progress > 0.55 })
        firstOperation.cancel()
        #expect(await eventually { firstOperation.isFinished })

        // The second fetch resumes from that partial, but the server ignores Range: the body starts over, with a
        // new partial image whose scans count from 0 again.
        let (secondOperation, second) = startFetch(env, request)
        let resumed = try await env.provider.next()
        #expect(resumed.header("Range") == "bytes=\(cut)-")
        resumed.respond(status: 200, headers: headers)
        // One chunk with fewer scans (4) than the resumed partial had (9): they are new all the same.
        let start = 40 * 1024
        resumed.send(jpeg.prefix(start))
        #expect(
            await eventually { second.scanProgress.withLock { $0 }.contains { $0 < 0.2 } },
            "scans at \(second.scanProgress.withLock { $0 }), progress \(secondOperation.progress)")

        resumed.send(jpeg.suffix(from: start), chunkSize: 16 * 1024)
        resumed.finish()
        #expect(await eventually { secondOperation.isFinished })
        let final = try #require(second.final.withLock { $0 })
        #expect(final.imageSource == .network)
        #expect(final.imageContainer.dimensions == CGSize(width: 300, height: 225))
        #expect(!final.imageContainer.isPartial)
    }
}
