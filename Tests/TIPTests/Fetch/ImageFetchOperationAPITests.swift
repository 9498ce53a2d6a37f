import Foundation
import Testing

@testable import TIP

/// The operation's own API: dependencies on any `Operation`, queue timing, context, priorities before the
/// start, `cancelAndDiscardDelegate`, and the two ways of waiting.
@Suite("Fetch operation: API")
struct ImageFetchOperationAPITests {
    private func stubbed(_ name: String = #function) async throws -> (DownloaderTestEnvironment, URL, HarnessImage) {
        let env = try await DownloaderTestEnvironment(name)
        let provider = CountingStubProvider()
        env.configuration.imageFetchDownloadProvider = provider
        let image = try HarnessImage.make(.jpeg)
        let url = URL(string: "https://stub.tip.invalid/api.jpg")!
        provider.stub(image, at: url)
        return (env, url, image)
    }

    @Test("a fetch waits for any Operation it depends on; idle and executing times are measured")
    func dependencies() async throws {
        let (env, url, _) = try await stubbed()
        let gate = DispatchSemaphore(value: 0)
        let blocker = BlockOperation { gate.wait() }
        let request = GenericImageFetchRequest(imageURL: url)
        let delegate = HarnessFetchDelegate(wantsScans: false)
        let operation = env.pipeline.operation(with: request, context: "ctx-42", delegate: delegate)
        operation.addDependency(blocker)
        env.pipeline.fetchImage(with: operation)
        let other = OperationQueue()
        other.addOperation(blocker)
        try await Task.sleep(for: .milliseconds(300))
        #expect(!operation.isExecuting && !operation.isFinished)
        #expect(delegate.events.withLock { $0 }.isEmpty)
        gate.signal()
        #expect(await eventually { operation.isFinished })
        #expect(operation.state == .succeeded)
        #expect(operation.timeSpentIdleInQueue >= 0.25)
        #expect(operation.timeSpentExecuting > 0 && operation.timeSpentExecuting < 30)
        #expect(operation.context as? String == "ctx-42")
        await env.tearDown()
    }

    @Test("priority before the start sets the queue priority; after it, the download's")
    func priorityBeforeStart() async throws {
        let env = try SteppedPipelineEnvironment()
        defer { env.tearDown() }
        let image = try HarnessImage.make(.jpeg)
        let operation = env.pipeline.operation(
            with: GenericImageFetchRequest(imageURL: SteppedPipelineEnvironment.url("priority.jpg")),
            delegate: nil)
        operation.priority = .veryHigh
        #expect(operation.queuePriority == .veryHigh)
        operation.priority = ImageFetchPriority(rawValue: -5)
        #expect(operation.queuePriority == .low)
        #expect(operation.priority.rawValue == -5)
        env.pipeline.fetchImage(with: operation)
        let download = try await env.provider.next()
        #expect(download.priorities == [.low])
        // While downloading, a new priority reaches the download.
        operation.priority = .veryHigh
        #expect(await eventually { download.priorities == [.low, .veryHigh] })
        download.serve(image.data)
        #expect(await eventually { operation.isFinished })
        #expect(operation.state == .succeeded)  // a nil delegate from the start is not "a delegate that went away"
    }

    @Test("isCancelled is TIP's: true once the fetch ended cancelled, false for a fetch that succeeded")
    func isCancelledFollowsTheState() async throws {
        let (env, url, _) = try await stubbed()
        let request = GenericImageFetchRequest(imageURL: url)
        let cancelledDelegate = HarnessFetchDelegate(wantsScans: false)
        let cancelled = env.pipeline.operation(with: request, delegate: cancelledDelegate)
        #expect(!cancelled.isCancelled)
        cancelled.cancel()
        env.pipeline.fetchImage(with: cancelled)
        #expect(await eventually { cancelled.isFinished })
        #expect(cancelled.state == .cancelled)
        #expect(cancelled.isCancelled)

        let succeededDelegate = HarnessFetchDelegate(wantsScans: false)
        let succeeded = env.pipeline.operation(with: request, delegate: succeededDelegate)
        env.pipeline.fetchImage(with: succeeded)
        #expect(await eventually { succeeded.isFinished })
        #expect(succeeded.state == .succeeded)
        #expect(!succeeded.isCancelled)
        withExtendedLifetime((cancelledDelegate, succeededDelegate)) {}
        await env.tearDown()
    }

    @Test("cancelAndDiscardDelegate: the fetch ends cancelled and the delegate hears nothing more (100 rounds)")
    func cancelAndDiscard() async throws {
        let env = try SteppedPipelineEnvironment()
        defer { env.tearDown() }
        let image = try HarnessImage.make(.jpeg)
        var heardMore: [Int] = []
        for round in 0..<100 {
            let delegate = HarnessFetchDelegate(wantsScans: false)
            let url = SteppedPipelineEnvironment.url("discard-\(round).jpg")
            let operation = env.pipeline.operation(with: GenericImageFetchRequest(imageURL: url), delegate: delegate)
            env.pipeline.fetchImage(with: operation)
            let download = try await env.provider.next()
            download.respond(status: 200, headers: ["Content-Length": "\(image.data.count)"])
            download.send(image.data.prefix(image.data.count / 2))
            #expect(await eventually { operation.progress > 0 })
            env.configuration.callbackQueue.sync {}  // what was delivered so far has been heard
            let before = delegate.events.withLock { $0 }
            operation.cancelAndDiscardDelegate()
            #expect(await eventually { operation.isFinished })
            #expect(operation.state == .cancelled)
            #expect((operation.error as? ImageFetchError)?.code == .cancelled)
            #expect(await download.waitUntilCancelled())
            // Bytes arriving after the cancellation reach nobody.
            download.send(image.data.suffix(from: image.data.count / 2))
            download.finish()
            env.configuration.callbackQueue.sync {}  // the last callback (had there been one) ran before isFinished
            if delegate.events.withLock({ $0 }) != before { heardMore.append(round) }
        }
        #expect(heardMore.isEmpty, "rounds whose delegate heard of the cancellation: \(heardMore)")
    }

    @Test(
        "the run-loop wait on a thread whose run loop has nothing to run sleeps until the fetch ends, not spinning",
        .timeLimit(.minutes(5))  // a hang's guard: in the full suite on 2 cores this takes about 70 s of wall time
    )
    func waitingWithAnEmptyRunLoop() async throws {
        let env = try SteppedPipelineEnvironment()
        defer { env.tearDown() }
        let image = try HarnessImage.make(.jpeg)
        let operation = env.pipeline.operation(
            with: GenericImageFetchRequest(imageURL: SteppedPipelineEnvironment.url("wait.jpg")), delegate: nil)
        env.pipeline.fetchImage(with: operation)
        let download = try await env.provider.next()
        // A thread of its own, started here: a task would wait for the concurrency pool, which a loaded machine
        // running the whole suite kept busy for over 30 s.
        let waiting = Locked(false)
        let cpu = Locked<Double?>(nil)
        Thread {
            let start = Self.threadCPUSeconds()
            waiting.withLock { $0 = true }
            operation.waitUntilFinishedWithoutBlockingRunLoop()
            cpu.withLock { $0 = Self.threadCPUSeconds() - start }
        }.start()
        #expect(await eventually(timeout: .seconds(240)) { waiting.withLock { $0 } })
        // Held for at least two slices of the wait (0.3 s each); a spinning wait burns this thread's CPU all along.
        try await Task.sleep(for: .milliseconds(700))
        #expect(!operation.isFinished)
        download.serve(image.data)
        #expect(await eventually(timeout: .seconds(240)) { cpu.withLock { $0 } != nil })
        #expect(operation.isFinished && operation.state == .succeeded)
        let used = cpu.withLock { $0 } ?? .infinity
        #expect(used < 0.1, "the waiting thread used \(used) s of CPU")
    }

    /// CPU time of the calling thread, in seconds.
    private static func threadCPUSeconds() -> Double {
        var time = timespec()
        clock_gettime(CLOCK_THREAD_CPUTIME_ID, &time)
        return Double(time.tv_sec) + Double(time.tv_nsec) / 1e9
    }

    @Test(
        "waitUntilFinished blocks until the final callback ran; the run-loop variant keeps the run loop turning",
        .timeLimit(.minutes(5))  // a hang's guard: in the full suite on 2 cores this takes about 70 s of wall time
    )
    func waiting() async throws {
        let (env, url, image) = try await stubbed()
        let result = Locked<ImageFetchResult?>(nil)
        let operation = env.pipeline.operation(with: GenericImageFetchRequest(imageURL: url)) { fetched, _ in
            result.withLock { $0 = fetched }
        }
        env.pipeline.fetchImage(with: operation)
        try await onOwnThread { operation.waitUntilFinished() }
        #expect(result.withLock { $0 }?.imageOriginalDimensions == image.original)

        env.pipeline.clearMemoryCaches()
        let ranOnLoop = Locked(false)
        let second = env.pipeline.operation(with: GenericImageFetchRequest(imageURL: url), delegate: nil)
        try await onOwnThread {
            // The fetch starts from the run loop, so it cannot finish before the wait turns the loop (a disk hit
            // started first could end before the wait began, and the wait would then not turn it at all).
            RunLoop.current.perform {
                ranOnLoop.withLock { $0 = true }
                env.pipeline.fetchImage(with: second)
            }
            second.waitUntilFinishedWithoutBlockingRunLoop()
        }
        #expect(second.isFinished)
        #expect(ranOnLoop.withLock { $0 })
        #expect(second.finalResult?.imageSource == .diskCache)
        await env.tearDown()
    }
}
