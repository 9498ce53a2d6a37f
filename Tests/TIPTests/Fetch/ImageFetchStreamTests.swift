import Foundation
import Testing
@testable import TIP
import TIPImageServer

@Suite("Fetch events and listing")
struct ImageFetchStreamTests {
    @Test("the event stream delivers progress, scans and then the final image; stopping early cancels the fetch")
    func stream() async throws {
        let env = try await DownloaderTestEnvironment()
        let jpeg = try DownloaderTestEnvironment.jpeg(width: 1000, height: 750, progressive: true)
        env.server.setImage(jpeg, at: "/s.jpg")
        env.server.setThrottle(.init(bytesPerSecond: 400_000, chunkSize: 8 * 1024), for: "/s.jpg")
        var progressCount = 0
        var scans = 0
        var final: ImageFetchResult?
        for try await event in env.pipeline.fetchEvents(for: GenericImageFetchRequest(imageURL: env.server.url(for: "/s.jpg"))) {
            switch event {
            case .progress: progressCount += 1
            case .progressiveImage: scans += 1
            case .final(let result): final = result
            case .preview, .firstAnimatedFrame: break
            }
            #expect(final == nil || { if case .final = event { true } else { false } }())
        }
        #expect(progressCount > 0)
        #expect(scans > 0)
        #expect(final?.imageSource == .network)

        env.server.setImage(jpeg, at: "/stop.jpg")
        env.server.setFault(.stall(afterBodyBytes: 20_000), for: "/stop.jpg")
        for try await event in env.pipeline.fetchEvents(for: GenericImageFetchRequest(imageURL: env.server.url(for: "/stop.jpg"))) {
            if case .progress(let value) = event, value > 0 { break }
        }
        #expect(await env.server.waitUntil(timeout: .seconds(30)) { $0.openConnectionCount == 0 })
        await env.tearDown()
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
