import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif
import Testing
@testable import TIP

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
        #expect(limits.check(at: start + .seconds(4.5)) == .tooSlow(received: 150, interval: 2.5, minimumBytesPerSecond: 100))
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

    @Test("a download that stalls after its header fails with a typed timeout, keeps its partial, and the next fetch resumes")
    func stalledDownloadKeepsItsPartial() async throws {
        let env = try SteppedPipelineEnvironment()
        defer { env.tearDown() }
        env.configuration.minimumImageDownloadBytesPerSecond = 1_000
        // Long enough that the response and the first bytes land inside the first interval on a loaded machine.
        env.configuration.imageDownloadRateInterval = 2
        let jpeg = try DownloaderTestEnvironment.jpeg(width: 640, height: 480, seed: 31)
        let cut = jpeg.count / 2
        let url = SteppedPipelineEnvironment.url("stalled.jpg")
        let failure = Locked<(any Error)?>(nil)
        let first = env.pipeline.operation(with: GenericImageFetchRequest(imageURL: url)) { _, error in failure.withLock { $0 = error } }
        env.pipeline.fetchImage(with: first)
        let stalled = try await env.provider.next()
        stalled.respond(status: 200, headers: SteppedPipelineEnvironment.resumableHeaders(length: jpeg.count, entityTag: "\"s\""))
        stalled.send(jpeg.prefix(cut))
        // Nothing more comes: the downloader gives up on its own.
        #expect(await eventually { first.isFinished })
        #expect((failure.withLock { $0 } as? ImageFetchError)?.code == .downloadTimedOut)
        #expect(await stalled.waitUntilOver())
        #expect(stalled.cancelDescription != nil)

        env.configuration.minimumImageDownloadBytesPerSecond = 0
        let second = env.pipeline.operation(with: GenericImageFetchRequest(imageURL: url)) { _, _ in }
        env.pipeline.fetchImage(with: second)
        let resumed = try await env.provider.next()
        #expect(resumed.sentRequest?.value(forHTTPHeaderField: "Range") == "bytes=\(cut)-")
        resumed.respond(status: 206, headers: SteppedPipelineEnvironment.rangeHeaders(from: cut, length: jpeg.count, entityTag: "\"s\""))
        resumed.send(jpeg.suffix(from: cut))
        resumed.finish()
        #expect(await eventually { second.isFinished })
        #expect(second.finalResult?.imageSource == .networkResumed)
    }

    @Test("a download past the overall limit fails with a typed timeout, even while bytes trickle in")
    func overallDeadline() async throws {
        let env = try SteppedPipelineEnvironment()
        defer { env.tearDown() }
        env.configuration.maxImageDownloadDuration = 0.3
        env.configuration.minimumImageDownloadBytesPerSecond = 0
        let jpeg = try DownloaderTestEnvironment.jpeg(width: 640, height: 480, seed: 32)
        let failure = Locked<(any Error)?>(nil)
        let fetch = env.pipeline.operation(with: GenericImageFetchRequest(imageURL: SteppedPipelineEnvironment.url("long.jpg"))) { _, error in
            failure.withLock { $0 = error }
        }
        env.pipeline.fetchImage(with: fetch)
        let download = try await env.provider.next()
        download.respond(status: 200, headers: ["Content-Length": "\(jpeg.count)"])
        var offset = 0
        while !fetch.isFinished, offset < jpeg.count - 100 {
            download.send(jpeg.subdata(in: offset..<(offset + 100)))
            offset += 100
            try await Task.sleep(for: .milliseconds(20))
        }
        #expect(await eventually { fetch.isFinished })
        #expect((failure.withLock { $0 } as? ImageFetchError)?.code == .downloadTimedOut)
    }

    @Test("stalled origins do not starve the others: with 4 slots and 12 stalled downloads, a good image still loads")
    func stalledOriginsFreeTheirSlots() async throws {
        let env = try SteppedPipelineEnvironment()
        defer { env.tearDown() }
        env.configuration.maxConcurrentImagePipelineDownloadCount = 4
        env.configuration.minimumImageDownloadBytesPerSecond = 1_000
        // Long enough that the good download, answered as soon as the test sees it, meets the minimum even when a
        // loaded machine delays the test by seconds (three rounds of stalled downloads take about 3 intervals).
        env.configuration.imageDownloadRateInterval = 3
        let jpeg = try DownloaderTestEnvironment.jpeg(width: 160, height: 120, seed: 33)
        let operations = (0..<12).map { index in
            let slow = env.pipeline.operation(with: GenericImageFetchRequest(imageURL: SteppedPipelineEnvironment.url("slow-\(index).jpg"))) { _, _ in }
            env.pipeline.fetchImage(with: slow)
            return slow
        }
        let goodURL = SteppedPipelineEnvironment.url("good.jpg")
        let good = env.pipeline.operation(with: GenericImageFetchRequest(imageURL: goodURL)) { _, _ in }
        env.pipeline.fetchImage(with: good)
        // Every download that is not the good one stalls without a byte; the good one is answered at once.
        var answered = false
        for _ in 0..<13 {
            let download = try await env.provider.next()
            if download.sentRequest?.url == goodURL {
                download.serve(jpeg)
                answered = true
            }
        }
        #expect(answered)
        #expect(await eventually { good.isFinished })
        #expect(good.finalResult?.imageSource == .network)
        #expect(await eventually { operations.allSatisfy(\.isFinished) })
        #expect(operations.allSatisfy { ($0.error as? ImageFetchError)?.code == .downloadTimedOut })
    }
}
