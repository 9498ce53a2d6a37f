import Foundation
import Testing
@testable import TIP
import TIPImageServer

@Suite("Fetch events and listing")
struct ImageFetchStreamTests {
    @Test("the event stream delivers progress, scans and then the final image; stopping early cancels the fetch")
    func stream() async throws {
        let env = try SteppedPipelineEnvironment()
        defer { env.tearDown() }
        let jpeg = try DownloaderTestEnvironment.jpeg(width: 1000, height: 750, progressive: true)
        let half = jpeg.count / 2
        let scans = Locked(0)
        // Half the bytes; the rest once a scan came out of the stream.
        let answering = Task {
            let download = try await env.provider.next()
            download.respond(status: 200, headers: SteppedPipelineEnvironment.resumableHeaders(length: jpeg.count, entityTag: "\"s\""))
            download.send(jpeg.prefix(half), chunkSize: 8 * 1024)
            #expect(await eventually { scans.withLock { $0 } > 0 }, "no scan from the first half")
            download.send(jpeg.suffix(from: half), chunkSize: 8 * 1024)
            download.finish()
        }
        var progressCount = 0
        var final: ImageFetchResult?
        for try await event in env.pipeline.fetchEvents(for: GenericImageFetchRequest(imageURL: SteppedPipelineEnvironment.url("s.jpg"))) {
            switch event {
            case .progress: progressCount += 1
            case .progressiveImage: scans.withLock { $0 += 1 }
            case .final(let result): final = result
            case .preview, .firstAnimatedFrame: break
            }
            #expect(final == nil || { if case .final = event { true } else { false } }())
        }
        try await answering.value
        #expect(progressCount > 0)
        #expect(scans.withLock { $0 } > 0)
        #expect(final?.imageSource == .network)

        // Some bytes, then nothing: only the stream's consumer stopping ends the download.
        let stopping = Task {
            let download = try await env.provider.next()
            download.respond(status: 200, headers: SteppedPipelineEnvironment.resumableHeaders(length: jpeg.count, entityTag: "\"t\""))
            download.send(jpeg.prefix(20_000))
            return download
        }
        for try await event in env.pipeline.fetchEvents(for: GenericImageFetchRequest(imageURL: SteppedPipelineEnvironment.url("stop.jpg"))) {
            if case .progress(let value) = event, value > 0 { break }
        }
        #expect(try await stopping.value.waitUntilCancelled())
    }

    @Test("getAllFetchOperations lists the fetch and store operations not yet finished")
    func listing() async throws {
        let env = try await DownloaderTestEnvironment()
        env.configuration.maxConcurrentImagePipelineDownloadCount = 0  // the fetch waits for a download slot
        let fetch = env.pipeline.operation(with: GenericImageFetchRequest(imageURL: env.server.url(for: "/wait.jpg")), delegate: nil)
        env.pipeline.fetchImage(with: fetch)
        #expect(await eventually { env.downloader.counts.waiting == 1 })
        let listed = Locked<[ImageFetchOperation]>([])
        env.configuration.getAllFetchOperations { fetches, stores in
            listed.withLock { $0 = fetches }
            #expect(stores.isEmpty)
        }
        #expect(listed.withLock { $0 }.contains { $0 === fetch })
        fetch.cancel()
        #expect(await eventually { fetch.isFinished })
        env.configuration.getAllFetchOperations { fetches, _ in listed.withLock { $0 = fetches } }
        #expect(listed.withLock { $0 }.isEmpty)
        await env.tearDown()
    }
}
