import Foundation
import TIPImageServer
import Testing

@testable import TIP

@Suite("Fetch events and listing")
struct ImageFetchStreamTests {
    @Test("the event stream delivers progress, scans and then the final image; stopping early cancels the fetch")
    func stream() async throws {
        let env = try SteppedPipelineEnvironment()
        defer { env.tearDown() }
        let jpeg = try DownloaderTestEnvironment.jpeg(width: 1000, height: 750, progressive: true)
        // The stream starts its fetch when it is made; the events wait in its buffer. Every step runs in this task,
        // so no step waits for another task the concurrency pool has yet to run.
        let events = env.pipeline.fetchEvents(
            for: GenericImageFetchRequest(imageURL: SteppedPipelineEnvironment.url("s.jpg")))
        try await env.provider.next().serve(jpeg, entityTag: "\"s\"", chunkSize: 8 * 1024)
        var progressCount = 0
        var scans = 0
        var final: ImageFetchResult?
        for try await event in events {
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

        // Some bytes, then nothing: only the consumer stopping ends the download.
        var stopped: SteppedDownload?
        do {
            let events = env.pipeline.fetchEvents(
                for: GenericImageFetchRequest(imageURL: SteppedPipelineEnvironment.url("stop.jpg")))
            let download = try await env.provider.next()
            stopped = download
            download.respond(
                status: 200,
                headers: SteppedPipelineEnvironment.resumableHeaders(length: jpeg.count, entityTag: "\"t\""))
            download.send(jpeg.prefix(20_000))
            for try await event in events {
                if case .progress(let value) = event, value > 0 { break }
            }
        }
        #expect(await stopped?.waitUntilCancelled() == true)

        // The iterating task cancelled: the fetch is cancelled, and the loop ends with no final event and no error
        // (as the README says: the caller checks Task.isCancelled).
        let cancelled = env.pipeline.fetchEvents(
            for: GenericImageFetchRequest(imageURL: SteppedPipelineEnvironment.url("cancelled.jpg")))
        let download = try await env.provider.next()
        let consumer = Task {
            var sawFinal = false
            for try await event in cancelled {
                if case .final = event { sawFinal = true }
            }
            return (sawFinal, Task.isCancelled)
        }
        consumer.cancel()
        let (sawFinal, wasCancelled) = try await consumer.value
        #expect(!sawFinal && wasCancelled)
        #expect(await download.waitUntilCancelled())
    }

    @Test("a fetch cancelled for the consumer ends the stream without an error, even when it reports first")
    func consumerCancellationReportedFirst() async throws {
        // A cancelled consumer's stream asks for the fetch's cancellation and then finishes itself; under load the
        // fetch can report the cancellation in between. Played here in that order on the stream's delegate.
        let env = try SteppedPipelineEnvironment()
        defer { env.tearDown() }
        let operation = env.pipeline.operation(
            with: GenericImageFetchRequest(imageURL: SteppedPipelineEnvironment.url("race.jpg")), delegate: nil)
        func ending(consumerStopped: Bool) async -> (any Error)? {
            let (stream, continuation) = AsyncThrowingStream<ImageFetchEvent, any Error>.makeStream()
            let delegate = ImageFetchEventStreamDelegate(continuation)
            if consumerStopped {
                // What the stream's handler does when its consumer stops, before the stream finishes itself.
                delegate.terminationHandler(cancelling: operation)(.cancelled)
            }
            delegate.imageFetchOperation(operation, didFailToLoadFinalImage: ImageFetchError.cancelled(""))
            do {
                for try await _ in stream {}
                return nil
            } catch {
                return error
            }
        }
        #expect(await ending(consumerStopped: true) == nil)
        // A fetch cancelled by anything else still throws.
        #expect(await ending(consumerStopped: false) is CancellationError)
    }

    @Test("getAllFetchOperations lists the fetch and store operations not yet finished")
    func listing() async throws {
        let env = try await DownloaderTestEnvironment()
        env.configuration.maxConcurrentImagePipelineDownloadCount = 0  // the fetch waits for a download slot
        let fetch = env.pipeline.operation(
            with: GenericImageFetchRequest(imageURL: env.server.url(for: "/wait.jpg")), delegate: nil)
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
