import Foundation
import Testing
@testable import TIP
import TIPImageServer

/// A delegate that opts into progressive loading and first animated frames, recording what it gets.
final class ProgressiveRecordingDelegate: ImageFetchDelegate {
    let optIn: Bool
    let scans = Locked<[CGSize]>([])
    let firstFrames = Locked<[CGSize]>([])
    let asked = Locked(0)
    let final = Locked<ImageFetchResult?>(nil)
    let order = Locked<[String]>([])

    init(optIn: Bool) { self.optIn = optIn }

    var handlesProgressiveLoading: Bool { true }
    var handlesFirstAnimatedFrame: Bool { true }

    func imageFetchOperation(_ operation: ImageFetchOperation, shouldLoadProgressivelyWithIdentifier identifier: String,
                             url: URL, imageType: ImageType, originalDimensions: CGSize) -> Bool {
        asked.withLock { $0 += 1 }
        return optIn
    }
    func imageFetchOperation(_ operation: ImageFetchOperation, didUpdateProgressiveImage result: ImageFetchResult, progress: Float) {
        scans.withLock { $0.append(result.imageContainer.dimensions) }
        order.withLock { $0.append("scan") }
        #expect(progress < 1)
    }
    func imageFetchOperation(_ operation: ImageFetchOperation, didLoadFirstAnimatedImageFrame result: ImageFetchResult, progress: Float) {
        firstFrames.withLock { $0.append(result.imageContainer.dimensions) }
        order.withLock { $0.append("first-frame") }
        #expect(progress > 0 && progress < 1)
    }
    func imageFetchOperation(_ operation: ImageFetchOperation, didLoadFinalImage result: ImageFetchResult) {
        final.withLock { $0 = result }
        order.withLock { $0.append("final") }
    }
}

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

    @Test("an animated GIF or APNG delivers its first frame once while bytes arrive, then the whole animation",
          arguments: [ImageType.gif, .png])
    func firstAnimatedFrame(_ type: ImageType) async throws {
        let env = try await DownloaderTestEnvironment()
        let frames = (0..<6).map { TestImages.photo(width: 160, height: 120, format: .rgba8Premultiplied, seed: UInt64($0 + 1)) }
        let animation = try #require(ImageContainer(animatedFrames: frames, frameDurations: Array(repeating: 0.1, count: 6), loopCount: 0))
        let encoded = try CodecCatalogue.shared.encodeImage(animation, type: type, quality: 1)
        // The download is stepped, with no timing a loaded machine could upset: the header (a GIF's
        // includes its 768-byte colour table), then (once the fetch has seen it and asked for a partial
        // image) more bytes, then up to two thirds (the first frames are whole), where it holds until the
        // delegate has the first frame.
        let delegate = ProgressiveRecordingDelegate(optIn: false)
        let fetch = Locked<ImageFetchOperation?>(nil)
        // True once the fetch has seen `bytes`, and the script has gone round the download queue once more
        // since: what the fetch asked the downloader while handling them (the partial image) is queued first.
        let yielded = Locked(Set<Int>())
        let seen = { @Sendable (bytes: Int) -> Bool in
            guard (fetch.withLock { $0 }?.progress ?? 0) >= Float(bytes) / Float(encoded.count) else { return false }
            return !yielded.withLock { $0.insert(bytes).inserted }
        }
        let split = encoded.count * 2 / 3
        env.configuration.imageFetchDownloadProvider = ScriptedDownloadProvider([
            .start, .hydrate, .authorize,
            .response(status: 200, headers: ["Content-Length": "\(encoded.count)"]),
            .data(encoded.prefix(2048)), .waitUntil { seen(2048) },
            .data(encoded[2048..<4096]), .waitUntil { seen(4096) },
            .data(encoded[4096..<split]),
            .waitUntil { !delegate.firstFrames.withLock { $0 }.isEmpty },
            .data(encoded.suffix(from: split)), .complete(nil),
        ])
        let url = URL(string: "https://scripted.tip.invalid/anim.\(type.preferredFileExtension ?? "img")")!
        let operation = env.pipeline.operation(with: GenericImageFetchRequest(imageURL: url), delegate: delegate)
        fetch.withLock { $0 = operation }
        env.pipeline.fetchImage(with: operation)
        #expect(await eventually { operation.isFinished })
        #expect(delegate.firstFrames.withLock { $0 } == [CGSize(width: 160, height: 120)])
        #expect(delegate.order.withLock { $0 } == ["first-frame", "final"])
        let final = try #require(delegate.final.withLock { $0 })
        #expect(final.imageContainer.frameCount == 6)
        if type == .png { #expect(Array(final.imageContainer.frames) == frames) }
        await env.tearDown()
    }
}
