import Dispatch
import Foundation
import TIPImageServer
import Testing

@testable import TIP

/// Linux programs rarely run a main loop: the default callback queue is the library's own, `async` fetches never
/// wait for the callback queue, and a callback queue that nothing services is reported once.
@Suite("Callback queue: no silent hangs on Linux")
struct CallbackQueueTests {
    @Test("the default callback queue is a serial queue of the library's own, recognised as the callback queue")
    func defaultQueue() throws {
        let configuration = GlobalConfiguration(cachesRootDirectory: FileManager.default.temporaryDirectory)
        let queue = configuration.callbackQueue
        #expect(queue !== DispatchQueue.main)
        #expect(queue.label == GlobalConfiguration.defaultCallbackQueueLabel && queue.label == "TIP.callbacks")
        #expect(!configuration.isOnCallbackQueue)
        #expect(queue.sync { configuration.isOnCallbackQueue })
        configuration.callbackQueue = .main
        #expect(configuration.callbackQueue.label == DispatchQueue.main.label)
    }

    @Test("fetchImage(for:), image(for:) and fetchEvents(for:) finish while the callback queue is never serviced")
    func asyncIgnoresCallbackQueue() async throws {
        let env = try SteppedPipelineEnvironment()
        defer { env.tearDown() }
        let stuck = DispatchQueue(label: "never-serviced")
        stuck.suspend()
        defer { stuck.resume() }
        env.configuration.callbackQueue = stuck
        let jpeg = try DownloaderTestEnvironment.jpeg(width: 64, height: 48)

        let url = SteppedPipelineEnvironment.url("async.jpg")
        let fetch = Task { try await env.pipeline.fetchImage(for: GenericImageFetchRequest(imageURL: url)) }
        try await env.provider.next(timeout: .seconds(300)).serve(jpeg)
        let result = try await fetch.value
        #expect(result.imageSource == .network && result.imageContainer.dimensions == CGSize(width: 64, height: 48))

        // A rendered-cache hit is answered at once, on the caller's thread.
        let hit = try await env.pipeline.fetchImage(for: GenericImageFetchRequest(imageURL: url))
        #expect(hit.imageSource == .memoryCache)

        let oneLine = Task {
            try await env.pipeline.image(
                for: SteppedPipelineEnvironment.url("one-line.jpg"),
                targetDimensions: CGSize(width: 32, height: 32))
        }
        try await env.provider.next(timeout: .seconds(300)).serve(jpeg)
        #expect(try await oneLine.value.dimensions == CGSize(width: 32, height: 24))

        let events = Task {
            var finals = 0
            for try await event in env.pipeline.fetchEvents(
                for: GenericImageFetchRequest(imageURL: SteppedPipelineEnvironment.url("events.jpg")))
            {
                if case .final = event { finals += 1 }
            }
            return finals
        }
        try await env.provider.next(timeout: .seconds(300)).serve(jpeg)
        #expect(try await events.value == 1)
    }

    /// A configuration whose watchdog reports after `interval` seconds, logging into the returned logger.
    private func watchedConfiguration(interval: TimeInterval) -> (GlobalConfiguration, CapturingLogger) {
        let configuration = GlobalConfiguration(cachesRootDirectory: FileManager.default.temporaryDirectory)
        let logger = CapturingLogger()
        configuration.logger = logger
        configuration.callbackWatchdog.interval = interval
        return (configuration, logger)
    }

    @Test("callbacks waiting on a queue nothing services: one warning naming the queue and the setting")
    func watchdogWarnsOnce() async throws {
        let (configuration, logger) = watchedConfiguration(interval: 0.05)
        let stuck = DispatchQueue(label: "stuck-callbacks")
        stuck.suspend()
        configuration.callbackQueue = stuck
        let ran = Locked(0)
        for _ in 0..<3 { configuration.dispatchToCallbackQueue { ran.withLock { $0 += 1 } } }
        #expect(await eventually { !logger.messages(containing: "stuck-callbacks").isEmpty })
        // Later callbacks on the same queue are probed no more: still one warning.
        for _ in 0..<3 {
            configuration.dispatchToCallbackQueue { ran.withLock { $0 += 1 } }
            try await Task.sleep(for: .milliseconds(60))
        }
        let warnings = logger.messages(containing: "stuck-callbacks", level: .warning)
        #expect(warnings.count == 1)
        #expect(warnings.first?.contains("GlobalConfiguration.callbackQueue") == true)
        stuck.resume()
        #expect(await eventually { ran.withLock { $0 } == 6 })
    }

    @Test("a queue that ran callbacks, then stopped: the callbacks left waiting are reported")
    func watchdogWarnsAfterServicing() async throws {
        let (configuration, logger) = watchedConfiguration(interval: 1)
        let queue = DispatchQueue(label: "stopped-callbacks")
        configuration.callbackQueue = queue
        let ran = Locked(0)
        // The first callback runs at once, while the timer that watches it is armed.
        let first = DispatchSemaphore(value: 0)
        configuration.dispatchToCallbackQueue {
            ran.withLock { $0 += 1 }
            first.signal()
        }
        first.wait()
        queue.suspend()
        configuration.dispatchToCallbackQueue { ran.withLock { $0 += 1 } }
        #expect(await eventually { !logger.messages(containing: "stopped-callbacks").isEmpty })
        #expect(ran.withLock { $0 } == 1)
        queue.resume()
        #expect(await eventually { ran.withLock { $0 } == 2 })
    }

    @Test("a serviced callback queue is never reported")
    func watchdogQuietWhenServiced() async throws {
        let (configuration, logger) = watchedConfiguration(interval: 0.5)
        configuration.callbackQueue = DispatchQueue(label: "serviced-callbacks")
        let ran = Locked(0)
        for _ in 0..<20 { configuration.dispatchToCallbackQueue { ran.withLock { $0 += 1 } } }
        #expect(await eventually { ran.withLock { $0 } == 20 })
        #expect(await eventually { !configuration.callbackWatchdog.isWatching })
        #expect(logger.messages(containing: "serviced-callbacks").isEmpty)
    }

    @Test(
        "a plain main.swift blocking on a semaphore gets its callback with the default configuration",
        arguments: ["completion", "delegate", "async-task"])
    func plainProgram(mode: String) async throws {
        guard let harness = TestExecutables.url(named: "TIPCallbackHarness") else {
            Issue.record("TIPCallbackHarness not found next to the test bundle: run `swift build` first")
            return
        }
        let server = TIPImageServer()
        try await server.start()
        defer { server.stop() }
        let bitmap = try #require(Bitmap(width: 64, height: 48, format: .rgbx8))
        server.setImage(
            try CodecCatalogue.shared.encodeImage(ImageContainer(image: bitmap), type: .jpeg, quality: 0.8),
            at: "/\(mode).jpg")
        let root = FileManager.default.temporaryDirectory.appendingPathComponent("tip-callback-\(UUID().uuidString)")
        defer { try? FileManager.default.removeItem(at: root) }
        // The harness waits 10 s for its callback; the outer limit only covers a slow start on a loaded machine.
        let run = try await TestExecutables.run(
            harness, [mode, server.url(for: "/\(mode).jpg").absoluteString],
            environment: ["XDG_CACHE_HOME": root.path], timeout: 60)
        #expect(run.status == 0, "stdout: \(run.stdout) stderr: \(run.stderr)")
        #expect(run.stdout.hasPrefix("ok 32x24"), "\(run.stdout)")
    }
}
