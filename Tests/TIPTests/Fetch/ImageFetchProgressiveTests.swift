import Foundation
import Testing
@testable import TIP
import TIPImageServer

@Suite("Fetch operation: progressive and animated loading")
struct ImageFetchProgressiveTests {
    @Test("a progressive JPEG renders scans at the target size when the delegate opts in, and none when it does not")
    func progressiveJPEG() async throws {
        let env = try await DownloaderTestEnvironment()
        let jpeg = try DownloaderTestEnvironment.jpeg(width: 1200, height: 900, progressive: true)
        for path in ["/p-in.jpg", "/p-out.jpg"] {
            env.server.setImage(jpeg, at: path)
            // Slow enough that updates still arrive one by one on a loaded machine (a backlog merges them, and a
            // merged update at 100% renders no scan).
            env.server.setThrottle(.init(bytesPerSecond: 150_000, chunkSize: 8 * 1024), for: path)
        }
        let target = CGSize(width: 300, height: 300)
        let optedIn = ProgressiveRecordingDelegate(optIn: true)
        let request = GenericImageFetchRequest(imageURL: env.server.url(for: "/p-in.jpg"), identifier: nil,
                                               targetDimensions: target, targetContentMode: .scaleAspectFit)
        let operation = env.pipeline.operation(with: request, delegate: optedIn)
        env.pipeline.fetchImage(with: operation)
        #expect(await eventually { operation.isFinished })
        #expect(optedIn.asked.withLock { $0 } == 1)
        let scans = optedIn.scans.withLock { $0 }
        #expect(!scans.isEmpty)
        #expect(scans.allSatisfy { $0 == CGSize(width: 300, height: 225) })
        #expect(optedIn.order.withLock { $0 }.last == "final")
        #expect(operation.progressiveResult != nil)
        #expect(operation.metrics?.metricInfo(for: .network)?.result == .hitFinal)

        let optedOut = ProgressiveRecordingDelegate(optIn: false)
        var outRequest = request
        outRequest.imageURL = env.server.url(for: "/p-out.jpg")
        let second = env.pipeline.operation(with: outRequest, delegate: optedOut)
        env.pipeline.fetchImage(with: second)
        #expect(await eventually { second.isFinished })
        #expect(optedOut.asked.withLock { $0 } == 1)
        #expect(optedOut.scans.withLock { $0 }.isEmpty)
        #expect(second.finalResult != nil)
        await env.tearDown()
    }

    @Test("a disabled policy never renders; a greedy one renders any progress")
    func policies() async throws {
        let env = try await DownloaderTestEnvironment()
        let jpeg = try DownloaderTestEnvironment.jpeg(width: 1000, height: 750, progressive: true)
        for path in ["/disabled.jpg", "/greedy.jpg"] {
            env.server.setImage(jpeg, at: path)
            // Slow enough that updates still arrive one by one on a loaded machine (a backlog merges them, and a
            // merged update at 100% renders no scan).
            env.server.setThrottle(.init(bytesPerSecond: 150_000, chunkSize: 8 * 1024), for: path)
        }
        var disabled = GenericImageFetchRequest(imageURL: env.server.url(for: "/disabled.jpg"))
        disabled.progressiveLoadingPolicies = [.jpeg: DisabledProgressiveLoadingPolicy()]
        let none = ProgressiveRecordingDelegate(optIn: true)
        let first = env.pipeline.operation(with: disabled, delegate: none)
        env.pipeline.fetchImage(with: first)
        #expect(await eventually { first.isFinished })
        #expect(none.scans.withLock { $0 }.isEmpty)

        var greedy = GenericImageFetchRequest(imageURL: env.server.url(for: "/greedy.jpg"))
        greedy.progressiveLoadingPolicies = [.jpeg: GreedyProgressiveLoadingPolicy()]
        let any = ProgressiveRecordingDelegate(optIn: true)
        let second = env.pipeline.operation(with: greedy, delegate: any)
        env.pipeline.fetchImage(with: second)
        #expect(await eventually { second.isFinished })
        #expect(!any.scans.withLock { $0 }.isEmpty)
        await env.tearDown()
    }

    @Test("an animated GIF delivers its first frame once while bytes arrive, then the whole animation")
    func firstAnimatedFrame() async throws {
        let env = try await DownloaderTestEnvironment()
        let frames = (0..<6).map { TestImages.photo(width: 160, height: 120, format: .rgba8Premultiplied, seed: UInt64($0 + 1)) }
        let animation = try #require(ImageContainer(animatedFrames: frames, frameDurations: Array(repeating: 0.1, count: 6), loopCount: 0))
        let gif = try CodecCatalogue.shared.encodeImage(animation, type: .gif, quality: 1)
        env.server.setImage(gif, at: "/anim.gif")
        env.server.setThrottle(.init(bytesPerSecond: max(20_000, gif.count), chunkSize: max(1024, gif.count / 12)), for: "/anim.gif")
        let delegate = ProgressiveRecordingDelegate(optIn: false)
        let operation = env.pipeline.operation(with: GenericImageFetchRequest(imageURL: env.server.url(for: "/anim.gif")), delegate: delegate)
        env.pipeline.fetchImage(with: operation)
        #expect(await eventually { operation.isFinished })
        #expect(delegate.firstFrames.withLock { $0 } == [CGSize(width: 160, height: 120)])
        #expect(delegate.order.withLock { $0 } == ["first-frame", "final"])
        let final = try #require(delegate.final.withLock { $0 })
        #expect(final.imageContainer.frameCount == 6)
        await env.tearDown()
    }
}
