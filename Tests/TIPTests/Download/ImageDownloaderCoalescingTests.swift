import Foundation
import Testing
@testable import TIP
import TIPImageServer

@Suite("Downloader: coalescing, limits and priorities")
struct ImageDownloaderCoalescingTests {
    @Test("identical concurrent downloads make exactly one request and all get the same bytes")
    func coalescesIdenticalDownloads() async throws {
        let env = try await DownloaderTestEnvironment()
        let image = try DownloaderTestEnvironment.jpeg(width: 800, height: 600)
        env.server.setImage(image, at: "/a.jpg")
        env.server.setThrottle(.init(bytesPerSecond: 2_000_000, chunkSize: 8 * 1024), for: "/a.jpg")
        let members = (0..<8).map { _ in env.start(env.request("/a.jpg")) }
        for member in members {
            let result = try #require(await member.success())
            #expect(result.data == image)
            #expect(member.receivedByteCount == image.count)
            #expect(result.dimensions == CGSize(width: 800, height: 600))
            #expect(result.imageType == .jpeg)
        }
        // The download committed the bytes to the memory cache once, for all of them.
        #expect(members.allSatisfy { (try? $0.result?.get())?.wasCommitted == true })
        #expect(env.pipeline.memoryCache.entry(withIdentifier: env.request("/a.jpg").identifier, touch: false)?.complete?.data == image)
        #expect(env.server.requestCount(for: "/a.jpg") == 1)
        await env.tearDown()
    }

    @Test("a late joiner is caught up on the bytes already received")
    func lateJoinerIsCaughtUp() async throws {
        let env = try await DownloaderTestEnvironment()
        let image = try DownloaderTestEnvironment.jpeg(width: 1400, height: 1000)
        env.server.setImage(image, at: "/late.jpg")
        env.server.setThrottle(.init(bytesPerSecond: 300_000, chunkSize: 8 * 1024), for: "/late.jpg")
        let late = DownloadTestMember(env.request("/late.jpg"))
        let joined = Locked(false)
        // Joins from the first member's callback once 32 KiB arrived, long before the end.
        let first = env.start(env.request("/late.jpg")) { member, update in
            guard update.totalByteCount >= 32 * 1024, !joined.withLock({ $0 }) else { return }
            joined.withLock { $0 = true }
            env.downloader.add(late)
        }
        let lateResult = try #require(await late.success())
        #expect(lateResult.data == image)
        #expect(late.receivedByteCount == image.count)
        guard case .started = late.events.first else {
            Issue.record("the late joiner's first event is not didStart: \(late.events)")
            return
        }
        // The catch-up update carries everything received before joining.
        if case .update(let total) = late.events.dropFirst().first { #expect(total >= 32 * 1024) }
        #expect(try #require(await first.success()).data == image)
        #expect(env.server.requestCount(for: "/late.jpg") == 1)
        await env.tearDown()
    }

    @Test("a member that leaves gets Cancelled; the others finish; the last leaver cancels the request")
    func membersLeave() async throws {
        let env = try await DownloaderTestEnvironment()
        let image = try DownloaderTestEnvironment.jpeg(width: 1400, height: 1000)
        env.server.setImage(image, at: "/leave.jpg")
        // Slow enough that the leaver's first update reaches it long before the end, even on a loaded machine.
        env.server.setThrottle(.init(bytesPerSecond: 100_000, chunkSize: 8 * 1024), for: "/leave.jpg")
        let staying = env.start(env.request("/leave.jpg"))
        // Leaves from its own callback at its first bytes.
        let leaving = env.start(env.request("/leave.jpg")) { member, update in
            if update.totalByteCount > 0 { env.downloader.remove(member) }
        }
        let error = try #require(await leaving.failure() as? ImageFetchError)
        #expect(error.code == .cancelled)
        #expect(try #require(await staying.success()).data == image)
        #expect(leaving.events.last == .completed(success: false))
        #expect(leaving.events.filter { if case .completed = $0 { true } else { false } }.count == 1)

        // Now everyone leaves a stalled download: the network request is cancelled.
        env.server.resetLog()
        env.server.setImage(image, at: "/leave2.jpg")
        env.server.setFault(.stall(afterBodyBytes: 20_000), for: "/leave2.jpg")
        let a = env.start(env.request("/leave2.jpg", cached: false))
        let b = env.start(env.request("/leave2.jpg", cached: false))
        #expect(await eventually { a.receivedByteCount >= 8 * 1024 })
        env.downloader.remove(a)
        env.downloader.remove(b)
        #expect((await a.failure() as? ImageFetchError)?.code == .cancelled)
        #expect((await b.failure() as? ImageFetchError)?.code == .cancelled)
        #expect(await env.server.waitUntil(timeout: .seconds(30)) { $0.openConnectionCount == 0 })
        let record = try #require(env.server.requests(for: "/leave2.jpg").first)
        #expect(!record.isComplete)
        #expect(await eventually { env.downloader.counts == (0, 0) })
        await env.tearDown()
    }

    @Test("a fetch arriving while an abandoned download is being cancelled gets a download of its own")
    func noJoiningACancelledDownload() async throws {
        let env = try await DownloaderTestEnvironment()
        let image = try DownloaderTestEnvironment.jpeg(width: 800, height: 600)
        env.server.setImage(image, at: "/again.jpg")
        env.server.setFault(.stall(afterBodyBytes: 10_000), for: "/again.jpg")
        let first = env.start(env.request("/again.jpg", cached: false))
        #expect(await eventually { first.receivedByteCount >= 8_000 })
        env.server.setFault(nil, for: "/again.jpg")
        env.downloader.remove(first)
        let second = env.start(env.request("/again.jpg", cached: false))  // queued right behind the removal
        #expect((await first.failure() as? ImageFetchError)?.code == .cancelled)
        #expect(await second.success()?.data == image)
        #expect(env.server.requestCount(for: "/again.jpg") == 2)
        await env.tearDown()
    }

    @Test("different hydrators, authorizers, identifiers or pipelines do not share a download")
    func keyPartsSeparateDownloads() async throws {
        let env = try await DownloaderTestEnvironment()
        let image = try DownloaderTestEnvironment.jpeg(width: 300, height: 200)
        env.server.setImage(image, at: "/k.jpg")
        env.server.setThrottle(.init(bytesPerSecond: 1_000_000, chunkSize: 8 * 1024), for: "/k.jpg")
        let hydrator = ImageRequestHydrator { _, _, done in done(nil, nil) }
        let otherHydrator = ImageRequestHydrator { _, _, done in done(nil, nil) }
        let authorizer = ImageRequestAuthorizer { _, _, done in done("Bearer x", nil) }
        func request(_ change: (inout ImageDownloadRequest) -> Void) -> ImageDownloadRequest {
            var request = env.request("/k.jpg")
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
        for member in members { #expect(try #require(await member.success()).data == image) }
        #expect(env.server.requestCount(for: "/k.jpg") == 5)
        await env.tearDown()
    }

    @Test("at most maxConcurrentImagePipelineDownloadCount run; the others wait in arrival order whatever their priority")
    func fifoUnderTheLimit() async throws {
        let env = try await DownloaderTestEnvironment()
        env.configuration.maxConcurrentImagePipelineDownloadCount = 0
        let paths = (0..<4).map { "/fifo\($0).jpg" }
        for (index, path) in paths.enumerated() {
            env.server.setImage(try DownloaderTestEnvironment.jpeg(width: 200, height: 150, seed: UInt64(index + 1)), at: path)
            env.server.setThrottle(.init(bytesPerSecond: 200_000, chunkSize: 4 * 1024), for: path)
        }
        let priorities: [ImageFetchPriority] = [.veryLow, .low, .high, .veryHigh]
        var members: [DownloadTestMember] = []
        for (path, priority) in zip(paths, priorities) {
            members.append(env.start(env.request(path, cached: false), priority: priority))
            let expected = members.count
            #expect(await eventually { env.downloader.counts.waiting == expected })
        }
        // Limit 0: nothing starts.
        try await Task.sleep(for: .milliseconds(100))
        #expect(env.server.allRequests.isEmpty)
        #expect(env.downloader.counts == (0, 4))
        env.configuration.maxConcurrentImagePipelineDownloadCount = 1
        #expect(await eventually { env.downloader.counts == (1, 3) })
        for member in members { #expect(await member.success() != nil) }
        #expect(env.server.allRequests.map(\.path) == paths)
        // With a limit of one, each request began after the previous one finished.
        #expect(env.server.allRequests.allSatisfy { $0.isComplete })
        await env.tearDown()
    }

    @Test("the limit holds under load: never more than N requests in flight")
    func limitHolds() async throws {
        let env = try await DownloaderTestEnvironment()
        env.configuration.maxConcurrentImagePipelineDownloadCount = 2
        let image = try DownloaderTestEnvironment.jpeg(width: 200, height: 150)
        var members: [DownloadTestMember] = []
        for index in 0..<10 {
            env.server.setImage(image, at: "/n\(index).jpg")
            env.server.setThrottle(.init(bytesPerSecond: 500_000, chunkSize: 4 * 1024), for: "/n\(index).jpg")
            members.append(env.start(env.request("/n\(index).jpg", cached: false)))
        }
        for member in members { #expect(await member.success()?.data == image) }
        #expect(env.downloader.peakRunningCount == 2)
        #expect(env.server.allRequests.count == 10)
        await env.tearDown()
    }

    @Test("a negative limit runs every download at once")
    func negativeLimitIsUnlimited() async throws {
        let env = try await DownloaderTestEnvironment()
        env.configuration.maxConcurrentImagePipelineDownloadCount = -1
        let image = try DownloaderTestEnvironment.jpeg(width: 300, height: 200)
        var members: [DownloadTestMember] = []
        for index in 0..<6 {
            env.server.setImage(image, at: "/u\(index).jpg")
            env.server.setFault(.stall(afterBodyBytes: 1000), for: "/u\(index).jpg")
            members.append(env.start(env.request("/u\(index).jpg", cached: false)))
        }
        #expect(await eventually { env.downloader.counts == (6, 0) })
        #expect(await env.server.waitUntil(timeout: .seconds(30)) { $0.allRequests.count == 6 })
        for member in members { env.downloader.remove(member) }
        for member in members { #expect((await member.failure() as? ImageFetchError)?.code == .cancelled) }
        await env.tearDown()
    }

    @Test("the download runs at the highest member priority (floor veryLow + 1) and follows changes")
    func priorityFollowsMembers() async throws {
        let env = try await DownloaderTestEnvironment()
        let provider = RecordingDownloadProvider()
        env.configuration.imageFetchDownloadProvider = provider
        let image = try DownloaderTestEnvironment.jpeg(width: 800, height: 600)
        env.server.setImage(image, at: "/p.jpg")
        env.server.setFault(.stall(afterBodyBytes: 20_000), for: "/p.jpg")  // runs until everyone leaves
        let low = env.start(env.request("/p.jpg"), priority: .veryLow)
        #expect(await eventually { low.receivedByteCount > 0 })
        let download = try #require(provider.downloads.withLock { $0.first })
        #expect(download.priorities.withLock { $0 }.last == .veryLow)  // -7 is still the veryLow bucket
        let high = env.start(env.request("/p.jpg"), priority: .high)
        #expect(await eventually { download.priorities.withLock { $0 }.last == .high })
        high.imageDownloadPriority = .veryHigh
        env.downloader.priorityDidChange(for: high)
        #expect(await eventually { download.priorities.withLock { $0 }.last == .veryHigh })
        env.downloader.remove(high)
        #expect(await eventually { download.priorities.withLock { $0 }.last == .veryLow })
        env.downloader.remove(low)
        #expect((await low.failure() as? ImageFetchError)?.code == .cancelled)
        #expect(provider.downloads.withLock { $0.count } == 1)
        await env.tearDown()
    }

    @Test("a busy member gets merged updates: fewer callbacks, every byte counted, in order")
    func busyMemberUpdatesAreJoined() async throws {
        let env = try await DownloaderTestEnvironment()
        let stubs = StubbingImageFetchDownloadProvider()
        env.configuration.imageFetchDownloadProvider = stubs
        let image = try DownloaderTestEnvironment.jpeg(width: 1600, height: 1200)
        stubs.addDownloadStub(forRequestURL: env.server.url(for: "/busy.jpg"), responseData: image,
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
        let updates = { (member: DownloadTestMember) in member.events.filter { if case .update = $0 { true } else { false } }.count }
        #expect(updates(free) >= 1)
        #expect(updates(busy) == 1)  // suspended throughout: everything merged into one
        #expect(updates(free) <= chunks)
        #expect(busy.events.first.map { if case .started = $0 { true } else { false } } == true)
        #expect(busy.events.last == .completed(success: true))
        await env.tearDown()
    }

    @Test("members sharing one queue each get every byte, in order, once")
    func membersSharingAQueue() async throws {
        let env = try await DownloaderTestEnvironment()
        let image = try DownloaderTestEnvironment.jpeg(width: 1200, height: 900)
        env.server.setImage(image, at: "/shared-queue.jpg")
        env.server.setThrottle(.init(bytesPerSecond: 3_000_000, chunkSize: 8 * 1024), for: "/shared-queue.jpg")
        let queue = DispatchQueue(label: "tip-tests.shared-member-queue")
        let members = (0..<20).map { _ in DownloadTestMember(env.request("/shared-queue.jpg"), queue: queue) }
        for member in members { env.downloader.add(member) }
        for member in members {
            #expect(await member.success()?.data == image)
            #expect(member.receivedByteCount == image.count)
            let totals = member.events.compactMap { if case .update(let total) = $0 { total } else { nil } }
            #expect(totals == totals.sorted() && totals.last == image.count)
            #expect(member.events.last == .completed(success: true))
        }
        #expect(env.server.requestCount(for: "/shared-queue.jpg") == 1)
        await env.tearDown()
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
