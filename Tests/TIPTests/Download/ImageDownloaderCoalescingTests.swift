import Foundation
import TIPImageServer
import Testing

@testable import TIP

@Suite("Downloader: coalescing, limits and priorities")
struct ImageDownloaderCoalescingTests {
    /// The headers of a resumable 200 for `image`.
    private func headers(_ image: Data, tag: String = "\"c\"") -> [String: String] {
        SteppedPipelineEnvironment.resumableHeaders(length: image.count, entityTag: tag)
    }

    /// The byte totals of `member`'s updates, in order.
    private func totals(_ member: DownloadTestMember) -> [Int] {
        member.events.compactMap { if case .update(let total) = $0 { total } else { nil } }
    }

    @Test("identical concurrent downloads make exactly one request and all get the same bytes")
    func coalescesIdenticalDownloads() async throws {
        let env = try SteppedPipelineEnvironment()
        defer { env.tearDown() }
        let image = try DownloaderTestEnvironment.jpeg(width: 800, height: 600)
        let members = (0..<8).map { _ in env.start(env.request("a.jpg")) }
        // The adds were queued before the response: every member is in before the first byte.
        try await env.provider.next().serve(image, chunkSize: 8 * 1024)
        for member in members {
            let result = try #require(await member.success())
            #expect(result.data == image)
            #expect(member.receivedByteCount == image.count)
            #expect(result.dimensions == CGSize(width: 800, height: 600))
            #expect(result.imageType == .jpeg)
            #expect(member.events.first == .started(resumed: 0, expected: nil))
            #expect(totals(member).last == image.count)
        }
        // The download committed the bytes to the memory cache once, for all of them.
        #expect(members.allSatisfy { (try? $0.result?.get())?.wasCommitted == true })
        #expect(
            env.pipeline.memoryCache.entry(withIdentifier: env.request("a.jpg").identifier, touch: false)?.complete?
                .data == image)
        #expect(env.provider.count == 1)
    }

    @Test("a late joiner is caught up on the bytes already received")
    func lateJoinerIsCaughtUp() async throws {
        let env = try SteppedPipelineEnvironment()
        defer { env.tearDown() }
        let image = try DownloaderTestEnvironment.jpeg(width: 1400, height: 1000)
        let head = 32 * 1024
        let first = env.start(env.request("late.jpg"))
        let download = try await env.provider.next()
        download.respond(status: 200, headers: headers(image))
        download.send(image.prefix(head), chunkSize: 8 * 1024)
        #expect(await eventually { first.receivedByteCount == head })

        let late = env.start(env.request("late.jpg"))
        // didStart, then one catch-up update carrying everything received before joining.
        #expect(await eventually { late.events.count >= 2 })
        #expect(Array(late.events.prefix(2)) == [.started(resumed: 0, expected: image.count), .update(total: head)])
        download.send(image.suffix(from: head), chunkSize: 8 * 1024)
        download.finish()
        let lateResult = try #require(await late.success())
        #expect(lateResult.data == image)
        #expect(late.receivedByteCount == image.count)
        #expect(totals(late) == totals(late).sorted() && totals(late).last == image.count)
        #expect(try #require(await first.success()).data == image)
        #expect(env.provider.count == 1)
    }

    @Test("a member that leaves gets Cancelled; the others finish; the last leaver cancels the request")
    func membersLeave() async throws {
        let env = try SteppedPipelineEnvironment()
        defer { env.tearDown() }
        let image = try DownloaderTestEnvironment.jpeg(width: 1400, height: 1000)
        let staying = env.start(env.request("leave.jpg"))
        // Leaves from its own callback at its first bytes.
        let leaving = env.start(env.request("leave.jpg")) { member, update in
            if update.totalByteCount > 0 { env.downloader.remove(member) }
        }
        let download = try await env.provider.next()
        download.respond(status: 200, headers: headers(image))
        download.send(image.prefix(8 * 1024))
        let error = try #require(await leaving.failure() as? ImageFetchError)
        #expect(error.code == .cancelled)
        #expect(!download.isCancelled)  // the other member still wants it
        download.send(image.suffix(from: 8 * 1024), chunkSize: 8 * 1024)
        download.finish()
        #expect(try #require(await staying.success()).data == image)
        #expect(leaving.events.last == .completed(success: false))
        #expect(leaving.events.filter { if case .completed = $0 { true } else { false } }.count == 1)
        #expect(env.provider.count == 1)

        // Now everyone leaves a download in flight: the network request is cancelled.
        let a = env.start(env.request("leave2.jpg", cached: false))
        let b = env.start(env.request("leave2.jpg", cached: false))
        let abandoned = try await env.provider.next()
        abandoned.respond(status: 200, headers: headers(image))
        abandoned.send(image.prefix(20_000), chunkSize: 8 * 1024)
        #expect(await eventually { a.receivedByteCount == 20_000 && b.receivedByteCount == 20_000 })
        env.downloader.remove(a)
        #expect((await a.failure() as? ImageFetchError)?.code == .cancelled)
        #expect(!abandoned.isCancelled)  // b is still in
        env.downloader.remove(b)
        #expect((await b.failure() as? ImageFetchError)?.code == .cancelled)
        #expect(await abandoned.waitUntilCancelled())
        #expect(await eventually { env.downloader.counts == (0, 0) })
        #expect(env.provider.count == 2)
    }

    @Test("a fetch arriving while an abandoned download is being cancelled gets a download of its own")
    func noJoiningACancelledDownload() async throws {
        let env = try SteppedPipelineEnvironment()
        defer { env.tearDown() }
        let image = try DownloaderTestEnvironment.jpeg(width: 800, height: 600)
        let first = env.start(env.request("again.jpg", cached: false))
        let abandoned = try await env.provider.next()
        abandoned.respond(status: 200, headers: headers(image))
        abandoned.send(image.prefix(10_000))
        #expect(await eventually { first.receivedByteCount == 10_000 })
        env.downloader.remove(first)
        let second = env.start(env.request("again.jpg", cached: false))  // queued right behind the removal
        #expect((await first.failure() as? ImageFetchError)?.code == .cancelled)
        let fresh = try await env.provider.next()
        #expect(fresh !== abandoned)
        fresh.serve(image, chunkSize: 8 * 1024)
        #expect(await second.success()?.data == image)
        #expect(second.events.first == .started(resumed: 0, expected: nil))  // nothing from the abandoned one
        #expect(await abandoned.waitUntilCancelled())
        #expect(env.provider.count == 2)
    }

    @Test("different hydrators, authorizers, identifiers or pipelines do not share a download")
    func keyPartsSeparateDownloads() async throws {
        let env = try SteppedPipelineEnvironment()
        defer { env.tearDown() }
        let image = try DownloaderTestEnvironment.jpeg(width: 300, height: 200)
        let hydrator = ImageRequestHydrator { _, _, done in done(nil, nil) }
        let otherHydrator = ImageRequestHydrator { _, _, done in done(nil, nil) }
        let authorizer = ImageRequestAuthorizer { _, _, done in done("Bearer x", nil) }
        func request(_ change: (inout ImageDownloadRequest) -> Void) -> ImageDownloadRequest {
            var request = env.request("k.jpg")
            change(&request)
            return request
        }
        env.configuration.maxConcurrentImagePipelineDownloadCount = 8
        let members = [
            env.start(request { $0.hydrator = hydrator }),
            env.start(request { $0.hydrator = hydrator }),  // shares with the first
            env.start(request { $0.hydrator = otherHydrator }),
            env.start(request { $0.authorizer = authorizer }),
            env.start(request { $0.identifier = "other-identifier" }),
            env.start(request { $0.pipeline = nil }),
        ]
        // Five downloads, in the order of the members that opened them.
        var downloads: [SteppedDownload] = []
        for _ in 0..<5 { downloads.append(try await env.provider.next()) }
        #expect(downloads.map { $0.header("Authorization") } == [nil, nil, "Bearer x", nil, nil])
        for download in downloads { download.serve(image) }
        for member in members { #expect(try #require(await member.success()).data == image) }
        #expect(env.provider.count == 5)
    }

    @Test(
        "at most maxConcurrentImagePipelineDownloadCount run; the others wait in arrival order whatever their priority")
    func fifoUnderTheLimit() async throws {
        let env = try SteppedPipelineEnvironment()
        defer { env.tearDown() }
        env.configuration.maxConcurrentImagePipelineDownloadCount = 0
        let names = (0..<4).map { "fifo\($0).jpg" }
        let images = try (0..<4).map {
            try DownloaderTestEnvironment.jpeg(width: 200, height: 150, seed: UInt64($0 + 1))
        }
        let priorities: [ImageFetchPriority] = [.veryLow, .low, .high, .veryHigh]
        var members: [DownloadTestMember] = []
        for (name, priority) in zip(names, priorities) {
            members.append(env.start(env.request(name, cached: false), priority: priority))
            let expected = members.count
            #expect(await eventually { env.downloader.counts.waiting == expected })
        }
        // Limit 0: nothing started (`counts` runs on the downloader's queue, after the adds).
        #expect(env.downloader.counts == (0, 4))
        #expect(env.provider.count == 0)
        env.configuration.maxConcurrentImagePipelineDownloadCount = 1
        for (index, name) in names.enumerated() {
            let download = try await env.provider.next()
            #expect(download.sentRequest?.url == SteppedPipelineEnvironment.url(name))
            // With a limit of one, the next download is made only once this one ended.
            #expect(env.downloader.counts == (1, 3 - index))
            #expect(env.provider.count == index + 1)
            download.serve(images[index])
            #expect(await members[index].success()?.data == images[index])
        }
        #expect(env.downloader.peakRunningCount == 1)
    }

    @Test("the limit holds: never more than N downloads in flight, whichever ends first")
    func limitHolds() async throws {
        let env = try SteppedPipelineEnvironment()
        defer { env.tearDown() }
        env.configuration.maxConcurrentImagePipelineDownloadCount = 2
        let image = try DownloaderTestEnvironment.jpeg(width: 200, height: 150)
        let members = (0..<10).map { env.start(env.request("n\($0).jpg", cached: false)) }
        for served in 0..<10 {
            // Two run (one at the very end); the others wait for a slot.
            let running = min(2, 10 - served)
            #expect(
                await eventually {
                    env.provider.count == served + running && env.provider.all.filter { !$0.isOver }.count == running
                },
                "\(served) served: \(env.provider.count) made")
            #expect(env.downloader.counts == (running, 10 - served - running))
            // The newest ends first, so the oldest holds its slot throughout.
            let newest = try #require(env.provider.all.last { !$0.isOver })
            #expect(await eventually { newest.sentRequest != nil })
            newest.serve(image)
        }
        for member in members { #expect(await member.success()?.data == image) }
        #expect(env.downloader.peakRunningCount == 2)
        #expect(env.provider.count == 10)
        #expect(await eventually { env.downloader.counts == (0, 0) })
    }

    @Test("a negative limit runs every download at once")
    func negativeLimitIsUnlimited() async throws {
        let env = try SteppedPipelineEnvironment()
        defer { env.tearDown() }
        env.configuration.maxConcurrentImagePipelineDownloadCount = -1
        let members = (0..<6).map { env.start(env.request("u\($0).jpg", cached: false)) }
        #expect(await eventually { env.downloader.counts == (6, 0) })
        var downloads: [SteppedDownload] = []
        for _ in 0..<6 { downloads.append(try await env.provider.next()) }  // every request went out, none answered
        for member in members { env.downloader.remove(member) }
        for member in members { #expect((await member.failure() as? ImageFetchError)?.code == .cancelled) }
        for download in downloads { #expect(await download.waitUntilCancelled()) }
    }

    @Test("the download runs at the highest member priority (floor veryLow + 1) and follows changes")
    func priorityFollowsMembers() async throws {
        let env = try SteppedPipelineEnvironment()
        defer { env.tearDown() }
        let image = try DownloaderTestEnvironment.jpeg(width: 800, height: 600)
        let low = env.start(env.request("p.jpg"), priority: .veryLow)
        let download = try await env.provider.next()
        download.respond(status: 200, headers: headers(image))
        download.send(image.prefix(20_000))
        #expect(await eventually { low.receivedByteCount > 0 })
        #expect(download.priorities == [.veryLow])  // -7 is still the veryLow bucket
        let high = env.start(env.request("p.jpg"), priority: .high)
        #expect(await eventually { download.priorities.last == .high })
        high.imageDownloadPriority = .veryHigh
        env.downloader.priorityDidChange(for: high)
        #expect(await eventually { download.priorities.last == .veryHigh })
        env.downloader.remove(high)
        #expect(await eventually { download.priorities.last == .veryLow })
        env.downloader.remove(low)
        #expect((await low.failure() as? ImageFetchError)?.code == .cancelled)
        #expect(await download.waitUntilCancelled())
        // Set only when it changed.
        #expect(download.priorities == [.veryLow, .high, .veryHigh, .veryLow])
        #expect(env.provider.count == 1)
    }

    @Test("a busy member gets merged updates: fewer callbacks, every byte counted, in order")
    func busyMemberUpdatesAreJoined() async throws {
        let env = try await DownloaderTestEnvironment()
        let stubs = StubbingImageFetchDownloadProvider()
        env.configuration.imageFetchDownloadProvider = stubs
        let image = try DownloaderTestEnvironment.jpeg(width: 1600, height: 1200)
        stubs.addDownloadStub(
            forRequestURL: env.server.url(for: "/busy.jpg"), responseData: image,
            responseMIMEType: "image/jpeg", shouldSupportResuming: false, suggestedBitrate: 0)
        let busy = DownloadTestMember(env.request("/busy.jpg"))
        let free = DownloadTestMember(env.request("/busy.jpg"))
        busy.imageDownloadQueue.suspend()  // busy until the download is over
        env.configuration.maxConcurrentImagePipelineDownloadCount = 0  // both join before it starts
        env.downloader.add(busy)
        env.downloader.add(free)
        #expect(env.downloader.counts == (0, 1))  // runs on the downloader's queue after both adds
        env.configuration.maxConcurrentImagePipelineDownloadCount = 4
        #expect(await free.success()?.data == image)
        busy.imageDownloadQueue.resume()
        #expect(await busy.success()?.data == image)
        #expect(busy.receivedByteCount == image.count)
        let chunks = (image.count + StubbedImageFetchDownload.chunkSize - 1) / StubbedImageFetchDownload.chunkSize
        let updates = { (member: DownloadTestMember) in
            member.events.filter { if case .update = $0 { true } else { false } }.count
        }
        #expect(updates(free) >= 1)
        #expect(updates(busy) == 1)  // suspended throughout: everything merged into one
        #expect(updates(free) <= chunks)
        #expect(busy.events.first.map { if case .started = $0 { true } else { false } } == true)
        #expect(busy.events.last == .completed(success: true))
        await env.tearDown()
    }

    @Test("members sharing one queue each get every byte, in order, once, joining before or during the download")
    func membersSharingAQueue() async throws {
        let env = try SteppedPipelineEnvironment()
        defer { env.tearDown() }
        let image = try DownloaderTestEnvironment.jpeg(width: 1200, height: 900)
        let half = image.count / 2
        let queue = DispatchQueue(label: "tip-tests.shared-member-queue")
        let early = (0..<10).map { _ in DownloadTestMember(env.request("shared-queue.jpg"), queue: queue) }
        for member in early { env.downloader.add(member) }
        let download = try await env.provider.next()
        download.respond(status: 200, headers: headers(image))
        download.send(image.prefix(half), chunkSize: 8 * 1024)
        #expect(await eventually { early.allSatisfy { $0.receivedByteCount == half } })
        // Ten more join on the same queue halfway, caught up on the first half.
        let late = (0..<10).map { _ in DownloadTestMember(env.request("shared-queue.jpg"), queue: queue) }
        for member in late { env.downloader.add(member) }
        download.send(image.suffix(from: half), chunkSize: 8 * 1024)
        download.finish()
        for member in early + late {
            #expect(await member.success()?.data == image)
            #expect(member.receivedByteCount == image.count)
            let totals = totals(member)
            #expect(totals == totals.sorted() && totals.last == image.count)
            #expect(member.events.last == .completed(success: true))
        }
        for member in late { #expect(totals(member).first == half) }
        #expect(env.provider.count == 1)
    }

    @Test("priority arithmetic: maximum of the members, floored at veryLow + 1")
    func priorityArithmetic() {
        #expect(ImageFetchPriority.downloadFloor.rawValue == -7)
        #expect(ImageFetchPriority(rawValue: -8).queuePriority == .veryLow)
        #expect(ImageFetchPriority(rawValue: -5).queuePriority == .low)
        #expect(ImageFetchPriority(rawValue: 1).queuePriority == .normal)
        #expect(ImageFetchPriority(rawValue: 3).queuePriority == .high)
        #expect(ImageFetchPriority(rawValue: 100).queuePriority == .veryHigh)
        #expect(ImageFetchPriority.low < .normal)
    }
}
