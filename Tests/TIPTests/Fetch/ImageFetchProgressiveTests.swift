import Foundation
import Testing

@testable import TIP

@Suite("Fetch operation: progressive and animated loading")
struct ImageFetchProgressiveTests {
    /// Fetches `request` with `delegate`: sends the first half of `data` in chunks of `chunkSize` bytes, waits until
    /// `midway` holds (what must happen while the rest is not even sent), sends the rest, and waits for the end.
    private func fetch(
        _ env: SteppedPipelineEnvironment, _ request: GenericImageFetchRequest, _ data: Data,
        type: String = "image/jpeg",
        chunkSize: Int = 8 * 1024, delegate: ProgressiveRecordingDelegate,
        midway: @escaping @Sendable (ImageFetchOperation) -> Bool,
        sourceLocation: SourceLocation = #_sourceLocation
    ) async throws -> ImageFetchOperation {
        let operation = env.pipeline.operation(with: request, delegate: delegate)
        env.pipeline.fetchImage(with: operation)
        let download = try await env.provider.next()
        download.respond(
            status: 200,
            headers: SteppedPipelineEnvironment.resumableHeaders(length: data.count, entityTag: "\"p\"", type: type))
        let half = data.count / 2
        download.send(data.prefix(half), chunkSize: chunkSize)
        #expect(await eventually { midway(operation) }, "midway, \(operation.progress)", sourceLocation: sourceLocation)
        download.send(data.suffix(from: half), chunkSize: chunkSize)
        download.finish()
        #expect(await eventually { operation.isFinished }, sourceLocation: sourceLocation)
        return operation
    }

    @Test("a progressive JPEG renders scans at the target size when the delegate opts in, and none when it does not")
    func progressiveJPEG() async throws {
        let env = try SteppedPipelineEnvironment()
        defer { env.tearDown() }
        let jpeg = try DownloaderTestEnvironment.jpeg(width: 1200, height: 900, progressive: true)
        let target = CGSize(width: 300, height: 300)
        let optedIn = ProgressiveRecordingDelegate(optIn: true)
        let request = GenericImageFetchRequest(
            imageURL: SteppedPipelineEnvironment.url("p-in.jpg"), identifier: nil,
            targetDimensions: target, targetContentMode: .scaleAspectFit)
        // A scan is shown while half the bytes are still to come.
        let operation = try await fetch(env, request, jpeg, delegate: optedIn) { _ in
            !optedIn.scans.withLock { $0 }.isEmpty
        }
        #expect(optedIn.asked.withLock { $0 } == 1)
        let scans = optedIn.scans.withLock { $0 }
        #expect(!scans.isEmpty)
        #expect(scans.allSatisfy { $0 == CGSize(width: 300, height: 225) })
        #expect(optedIn.order.withLock { $0 }.last == "final")
        #expect(operation.progressiveResult != nil)
        #expect(operation.metrics?.metricInfo(for: .network)?.result == .hitFinal)

        let optedOut = ProgressiveRecordingDelegate(optIn: false)
        var outRequest = request
        outRequest.imageURL = SteppedPipelineEnvironment.url("p-out.jpg")
        // Asked, declined, and half the bytes through: a scan would have been rendered by now.
        let second = try await fetch(env, outRequest, jpeg, delegate: optedOut) { operation in
            optedOut.asked.withLock { $0 } == 1 && operation.progress >= 0.45
        }
        #expect(optedOut.asked.withLock { $0 } == 1)
        #expect(optedOut.scans.withLock { $0 }.isEmpty)
        #expect(second.finalResult != nil)
    }

    @Test("a disabled policy never renders; a greedy one renders any progress")
    func policies() async throws {
        let env = try SteppedPipelineEnvironment()
        defer { env.tearDown() }
        let jpeg = try DownloaderTestEnvironment.jpeg(width: 1000, height: 750, progressive: true)
        var disabled = GenericImageFetchRequest(imageURL: SteppedPipelineEnvironment.url("disabled.jpg"))
        disabled.progressiveLoadingPolicies = [.jpeg: DisabledProgressiveLoadingPolicy()]
        let none = ProgressiveRecordingDelegate(optIn: true)
        let first = try await fetch(env, disabled, jpeg, delegate: none) { operation in operation.progress >= 0.45 }
        #expect(first.finalResult != nil)
        #expect(none.asked.withLock { $0 } == 1)
        #expect(none.scans.withLock { $0 }.isEmpty)

        var greedy = GenericImageFetchRequest(imageURL: SteppedPipelineEnvironment.url("greedy.jpg"))
        greedy.progressiveLoadingPolicies = [.jpeg: GreedyProgressiveLoadingPolicy()]
        let any = ProgressiveRecordingDelegate(optIn: true)
        let second = try await fetch(env, greedy, jpeg, delegate: any) { _ in !any.scans.withLock { $0 }.isEmpty }
        #expect(second.finalResult != nil)
        #expect(!any.scans.withLock { $0 }.isEmpty)
    }

    @Test(
        "an animated GIF or APNG delivers its first frame once while bytes arrive, then the whole animation",
        arguments: [ImageType.gif, .png])
    func firstAnimatedFrame(_ type: ImageType) async throws {
        let env = try SteppedPipelineEnvironment()
        defer { env.tearDown() }
        let frames = (0..<6).map {
            TestImages.photo(width: 160, height: 120, format: .rgba8Premultiplied, seed: UInt64($0 + 1))
        }
        let animation = try #require(
            ImageContainer(animatedFrames: frames, frameDurations: Array(repeating: 0.1, count: 6), loopCount: 0))
        let encoded = try CodecCatalogue.shared.encodeImage(animation, type: type, quality: 1)
        let delegate = ProgressiveRecordingDelegate(optIn: false)
        let request = GenericImageFetchRequest(
            imageURL: SteppedPipelineEnvironment.url("anim.\(type.preferredFileExtension ?? "img")"))
        // The first frame is shown while half the animation is still to come.
        let operation = try await fetch(
            env, request, encoded, type: type.mimeType ?? "application/octet-stream",
            chunkSize: max(1024, encoded.count / 12), delegate: delegate
        ) { _ in
            !delegate.firstFrames.withLock { $0 }.isEmpty
        }
        #expect(operation.state == .succeeded)
        #expect(delegate.firstFrames.withLock { $0 } == [CGSize(width: 160, height: 120)])
        #expect(delegate.order.withLock { $0 } == ["first-frame", "final"])
        let final = try #require(delegate.final.withLock { $0 })
        #expect(final.imageContainer.frameCount == 6)
        if type == .png { #expect(Array(final.imageContainer.frames) == frames) }
    }
}
