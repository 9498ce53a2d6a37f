import Foundation
import Testing

@testable import TIP

#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// The downloader's own time limits: an overall duration and a minimum rate, whatever the provider does.
@Suite("Downloads: time limits")
struct ImageDownloadTimeoutTests {
    @Test("the limits as a value: the deadline, the rate per interval, intervals that met the minimum start anew")
    func limits() {
        let start = ContinuousClock.now
        var limits = ImageDownloadTimeouts(maxDuration: 10, minimumBytesPerSecond: 100, interval: 2, now: start)
        #expect(limits.isActive)
        #expect(limits.nextCheck == start + .seconds(2))
        #expect(limits.check(at: start + .seconds(1)) == .withinLimits)
        limits.received(250)
        #expect(limits.check(at: start + .seconds(2)) == .withinLimits, "250 bytes in 2 s beat 100 B/s")
        #expect(limits.nextCheck == start + .seconds(4))
        limits.received(150)
        // A check that runs late asks for no more than rate x interval.
        #expect(
            limits.check(at: start + .seconds(4.5))
                == .tooSlow(received: 150, interval: 2.5, minimumBytesPerSecond: 100))
        limits.received(1_000)
        #expect(limits.check(at: start + .seconds(4.5)) == .withinLimits)
        #expect(limits.check(at: start + .seconds(10)) == .tooLong(limit: 10))

        var deadlineOnly = ImageDownloadTimeouts(maxDuration: 3, minimumBytesPerSecond: 0, interval: 1, now: start)
        #expect(deadlineOnly.nextCheck == start + .seconds(3))
        #expect(deadlineOnly.check(at: start + .seconds(2.9)) == .withinLimits)
        #expect(deadlineOnly.check(at: start + .seconds(3)) == .tooLong(limit: 3))
        let none = ImageDownloadTimeouts(maxDuration: 0, minimumBytesPerSecond: 0, interval: 1, now: start)
        #expect(!none.isActive)
        #expect(none.nextCheck == nil)
    }

    @Test(
        """
        a download that stalls after its header fails with a typed timeout, keeps its partial, and the next fetch \
        resumes
        """
    )
    func stalledDownloadKeepsItsPartial() async throws {
        let env = try SteppedPipelineEnvironment()
        defer { env.tearDown() }
        let time = SteppedDownloadTime()
        env.configuration.downloadTimeSource = time
        env.configuration.minimumImageDownloadBytesPerSecond = 1_000
        env.configuration.imageDownloadRateInterval = 2
        let jpeg = try DownloaderTestEnvironment.jpeg(width: 640, height: 480, seed: 31)
        let cut = jpeg.count / 2
        #expect(cut > 2 * 1_000, "the first interval's bytes meet the minimum")
        let url = SteppedPipelineEnvironment.url("stalled.jpg")
        let failure = Locked<(any Error)?>(nil)
        let first = env.pipeline.operation(with: GenericImageFetchRequest(imageURL: url)) { _, error in
            failure.withLock { $0 = error }
        }
        env.pipeline.fetchImage(with: first)
        let stalled = try await env.provider.next()
        stalled.respond(
            status: 200, headers: SteppedPipelineEnvironment.resumableHeaders(length: jpeg.count, entityTag: "\"s\""))
        stalled.send(jpeg.prefix(cut))
        #expect(await eventually { first.progress > 0 })
        // The first interval got half the image: within the limits, the next interval starts.
        #expect(await eventually { time.scheduledCount == 1 })
        time.advance(by: 2)
        #expect(await eventually { time.scheduledCount == 1 })
        #expect(!first.isFinished)
        // Nothing more comes in the second interval: the downloader gives up on its own.
        time.advance(by: 2)
        #expect(await eventually { first.isFinished })
        #expect((failure.withLock { $0 } as? ImageFetchError)?.code == .downloadTimedOut)
        let message = (failure.withLock { $0 } as? ImageFetchError)?.message ?? ""
        #expect(message.contains("received 0 bytes in 2 s,") && message.contains("a later fetch resumes it"))
        #expect(await stalled.waitUntilOver())
        #expect(stalled.cancelDescription != nil)

        env.configuration.minimumImageDownloadBytesPerSecond = 0
        let second = env.pipeline.operation(with: GenericImageFetchRequest(imageURL: url)) { _, _ in }
        env.pipeline.fetchImage(with: second)
        let resumed = try await env.provider.next()
        #expect(resumed.sentRequest?.value(forHTTPHeaderField: "Range") == "bytes=\(cut)-")
        resumed.respond(
            status: 206,
            headers: SteppedPipelineEnvironment.rangeHeaders(from: cut, length: jpeg.count, entityTag: "\"s\""))
        resumed.send(jpeg.suffix(from: cut))
        resumed.finish()
        #expect(await eventually { second.isFinished })
        #expect(second.finalResult?.imageSource == .networkResumed)
    }

    @Test("a download past the overall limit fails with a typed timeout, even while bytes trickle in")
    func overallDeadline() async throws {
        let env = try SteppedPipelineEnvironment()
        defer { env.tearDown() }
        let time = SteppedDownloadTime()
        env.configuration.downloadTimeSource = time
        env.configuration.maxImageDownloadDuration = 10
        env.configuration.minimumImageDownloadBytesPerSecond = 0
        let jpeg = try DownloaderTestEnvironment.jpeg(width: 640, height: 480, seed: 32)
        let failure = Locked<(any Error)?>(nil)
        let fetch = env.pipeline.operation(
            with: GenericImageFetchRequest(imageURL: SteppedPipelineEnvironment.url("long.jpg"))
        ) { _, error in
            failure.withLock { $0 = error }
        }
        env.pipeline.fetchImage(with: fetch)
        let download = try await env.provider.next()
        download.respond(status: 200, headers: ["Content-Length": "\(jpeg.count)"])
        #expect(await eventually { time.scheduledCount == 1 })
        // 100 bytes per second of stepped time: never idle, never done before the deadline.
        for second in 0..<9 {
            download.send(jpeg.subdata(in: (second * 100)..<(second * 100 + 100)))
            time.advance(by: 1)
        }
        #expect(await eventually { Double(fetch.progress) >= 900 / Double(jpeg.count) - 0.0001 })
        #expect(!fetch.isFinished)
        time.advance(by: 1)
        #expect(await eventually { fetch.isFinished })
        let error = failure.withLock { $0 } as? ImageFetchError
        #expect(error?.code == .downloadTimedOut)
        // No validator, no ranges: the 900 bytes are not kept, and the message does not promise a resume.
        #expect(error?.message.contains("cannot be resumed") == true, "\(String(describing: error))")
        #expect(error?.message.contains("resumes it") == false)
    }

    @Test("stalled origins do not starve the others: with 4 slots and 12 stalled downloads, a good image still loads")
    func stalledOriginsFreeTheirSlots() async throws {
        let env = try SteppedPipelineEnvironment()
        defer { env.tearDown() }
        let time = SteppedDownloadTime()
        env.configuration.downloadTimeSource = time
        env.configuration.maxConcurrentImagePipelineDownloadCount = 4
        env.configuration.minimumImageDownloadBytesPerSecond = 1_000
        env.configuration.imageDownloadRateInterval = 30
        let jpeg = try DownloaderTestEnvironment.jpeg(width: 160, height: 120, seed: 33)
        let operations = (0..<12).map { index in
            let slow = env.pipeline.operation(
                with: GenericImageFetchRequest(imageURL: SteppedPipelineEnvironment.url("slow-\(index).jpg"))
            ) { _, _ in }
            env.pipeline.fetchImage(with: slow)
            return slow
        }
        let goodURL = SteppedPipelineEnvironment.url("good.jpg")
        let good = env.pipeline.operation(with: GenericImageFetchRequest(imageURL: goodURL)) { _, _ in }
        env.pipeline.fetchImage(with: good)
        // Every download that is not the good one stalls without a byte; the good one is answered at once. The
        // slots hold 4 downloads: after each group of 4 stalled ones, 30 s of stepped time pass and their limit
        // trips, which lets the next ones start.
        // The checks of every running download share one timer: the downloader counts what is registered.
        var answered = false
        var stalledInFlight = 0
        let downloader = env.configuration.downloader
        for started in 1...13 {
            let download = try await env.provider.next()
            if download.sentRequest?.url == goodURL {
                download.serve(jpeg)
                answered = true
                #expect(await eventually { good.isFinished })
            } else {
                stalledInFlight += 1
            }
            if stalledInFlight == 4 || (started == 13 && stalledInFlight > 0) {
                let waiting = stalledInFlight
                #expect(await eventually { downloader.scheduledTimeoutCheckCount == waiting })
                #expect(time.scheduledCount >= 1)
                time.advance(by: 30)
                stalledInFlight = 0
            }
        }
        #expect(answered)
        #expect(await eventually { good.isFinished })
        #expect(good.finalResult?.imageSource == .network)
        #expect(await eventually { operations.allSatisfy(\.isFinished) })
        #expect(operations.allSatisfy { ($0.error as? ImageFetchError)?.code == .downloadTimedOut })
    }
}
