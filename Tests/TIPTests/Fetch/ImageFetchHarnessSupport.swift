import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif
import Testing
@testable import TIP

/// One image of the fetch harness matrix (TIP's own fetch tests run the same steps per format).
struct HarnessImage: Sendable, CustomTestStringConvertible {
    enum Kind: String, Sendable, CaseIterable {
        case png, jpeg, progressiveJPEG, progressiveJPEGScansOff, gif
    }

    let kind: Kind
    let data: Data
    let type: ImageType
    let mimeType: String
    let original: CGSize
    let frameDurations: [TimeInterval]
    /// Whether the delegate opts into progressive scans.
    var wantsScans: Bool { kind == .progressiveJPEG }
    /// The harness fetches at 300x300 aspect-fit; every harness image is 4:3.
    static let target = CGSize(width: 300, height: 300)
    static let expected = CGSize(width: 300, height: 225)

    var testDescription: String { kind.rawValue }

    static func make(_ kind: Kind) throws -> HarnessImage {
        switch kind {
        case .png:
            let image = ImageContainer(image: TestImages.photo(width: 400, height: 300, format: .rgba8Premultiplied, seed: 11))
            let data = try CodecCatalogue.shared.encodeImage(image, type: .png, quality: 1)
            return HarnessImage(kind: kind, data: data, type: .png, mimeType: "image/png",
                                original: CGSize(width: 400, height: 300), frameDurations: [])
        case .jpeg:
            return HarnessImage(kind: kind, data: try DownloaderTestEnvironment.jpeg(width: 800, height: 600, seed: 12),
                                type: .jpeg, mimeType: "image/jpeg", original: CGSize(width: 800, height: 600), frameDurations: [])
        case .progressiveJPEG, .progressiveJPEGScansOff:
            return HarnessImage(kind: kind, data: try DownloaderTestEnvironment.jpeg(width: 1200, height: 900, progressive: true, seed: 13),
                                type: .jpeg, mimeType: "image/jpeg", original: CGSize(width: 1200, height: 900), frameDurations: [])
        case .gif:
            let durations: [TimeInterval] = [0.1, 0.2, 0.3, 0.5]
            let frames = durations.indices.map {
                TestImages.photo(width: 320, height: 240, format: .rgba8Premultiplied, seed: UInt64(20 + $0))
            }
            let animation = try #require(ImageContainer(animatedFrames: frames, frameDurations: durations, loopCount: 0))
            let data = try CodecCatalogue.shared.encodeImage(animation, type: .gif, quality: 1)
            return HarnessImage(kind: kind, data: data, type: .gif, mimeType: "image/gif",
                                original: CGSize(width: 320, height: 240), frameDurations: durations)
        }
    }

    /// The image decoded directly at the harness target: what every tier must deliver.
    func directDecode() throws -> ImageContainer {
        let options = ImageDecodingOptions(targetDimensions: Self.target, targetContentMode: .scaleAspectFit)
        return try CodecCatalogue.shared.decodeImage(data, options: options).container
    }

    /// Checks a delivered final image: target size, frame count and durations.
    func check(_ image: ImageContainer, _ step: String, sourceLocation: SourceLocation = #_sourceLocation) {
        #expect(image.dimensions == Self.expected, "\(kind) \(step)", sourceLocation: sourceLocation)
        #expect(image.frameCount == max(1, frameDurations.count), "\(kind) \(step)", sourceLocation: sourceLocation)
        if !frameDurations.isEmpty {
            #expect(image.frameDurations == frameDurations, "\(kind) \(step)", sourceLocation: sourceLocation)
        }
        #expect(!image.isPartial, "\(kind) \(step)", sourceLocation: sourceLocation)
    }
}

/// Records every callback of a fetch in order, checking the contract as it goes.
final class HarnessFetchDelegate: ImageFetchDelegate {
    enum Event: Equatable, Sendable {
        case start, scan, firstFrame, final(ImageLoadSource), failure(Int)
    }

    let wantsScans: Bool
    /// Cancels the fetch from the progress callback once progress reaches this (no test-side polling).
    let cancelAtProgress: Float?
    let events = Locked<[Event]>([])
    let progress = Locked<[Float]>([])
    let final = Locked<ImageFetchResult?>(nil)
    let failure = Locked<(any Error)?>(nil)

    init(wantsScans: Bool, cancelAtProgress: Float? = nil) {
        self.wantsScans = wantsScans
        self.cancelAtProgress = cancelAtProgress
    }

    var handlesProgressiveLoading: Bool { true }
    var handlesFirstAnimatedFrame: Bool { true }

    func imageFetchOperationDidStart(_ operation: ImageFetchOperation) { events.withLock { $0.append(.start) } }
    func imageFetchOperation(_ operation: ImageFetchOperation, shouldLoadProgressivelyWithIdentifier identifier: String,
                             url: URL, imageType: ImageType, originalDimensions: CGSize) -> Bool {
        wantsScans
    }
    func imageFetchOperation(_ operation: ImageFetchOperation, didUpdateProgressiveImage result: ImageFetchResult, progress: Float) {
        #expect(progress > 0 && progress < 1)
        #expect(result.imageContainer.dimensions == HarnessImage.expected)
        events.withLock { $0.append(.scan) }
    }
    func imageFetchOperation(_ operation: ImageFetchOperation, didLoadFirstAnimatedImageFrame result: ImageFetchResult, progress: Float) {
        #expect(progress > 0 && progress < 1)
        events.withLock { $0.append(.firstFrame) }
    }
    func imageFetchOperation(_ operation: ImageFetchOperation, didUpdateProgress progress: Float) {
        self.progress.withLock { $0.append(progress) }
        if let cancelAtProgress, progress >= cancelAtProgress { operation.cancel() }
    }
    func imageFetchOperation(_ operation: ImageFetchOperation, didLoadFinalImage result: ImageFetchResult) {
        final.withLock { $0 = result }
        events.withLock { $0.append(.final(result.imageSource)) }
    }
    func imageFetchOperation(_ operation: ImageFetchOperation, didFailToLoadFinalImage error: any Error) {
        failure.withLock { $0 = error }
        events.withLock { $0.append(.failure((error as? ImageFetchError)?.errorCode ?? 0)) }
    }

    /// Exactly one terminal callback, last; progress never went backwards.
    func checkContract(sourceLocation: SourceLocation = #_sourceLocation) {
        let events = self.events.withLock { $0 }
        let terminal = events.filter { if case .final = $0 { return true }; if case .failure = $0 { return true }; return false }
        #expect(terminal.count == 1, "\(events)", sourceLocation: sourceLocation)
        #expect(events.last == terminal.first, "\(events)", sourceLocation: sourceLocation)
        let progress = self.progress.withLock { $0 }
        #expect(zip(progress, progress.dropFirst()).allSatisfy { $0 <= $1 }, "\(progress)", sourceLocation: sourceLocation)
    }
}

/// Wraps a stubbing provider, counting the downloads it is asked for.
final class CountingStubProvider: ImageFetchDownloadProvider {
    let stubs = StubbingImageFetchDownloadProvider()
    let count = Locked(0)

    init() { stubs.downloadStubbingEnabled = true }

    func imageFetchDownload(with context: any ImageFetchDownloadContext) -> any ImageFetchDownload {
        count.withLock { $0 += 1 }
        return stubs.imageFetchDownload(with: context)
    }

    /// Stubs `image` at `url`, resumable, paced so the whole body takes about `seconds`.
    func stub(_ image: HarnessImage, at url: URL, seconds: Double) {
        let bits = UInt64(max(64_000, Double(image.data.count * 8) / seconds))
        stubs.addDownloadStub(forRequestURL: url, responseData: image.data, responseMIMEType: image.mimeType,
                              shouldSupportResuming: true, suggestedBitrate: bits)
    }
}

extension ImagePipeline {
    /// Runs one fetch of `request` to its end with a harness delegate.
    func harnessFetch(_ request: any ImageFetchRequest, wantsScans: Bool) async -> (ImageFetchOperation, HarnessFetchDelegate) {
        let delegate = HarnessFetchDelegate(wantsScans: wantsScans)
        let operation = operation(with: request, delegate: delegate)
        fetchImage(with: operation)
        // Generous: debug builds under sanitizers on a loaded 2-core machine are slow; it returns at the end.
        _ = await eventually(timeout: .seconds(120)) { operation.isFinished }
        return (operation, delegate)
    }
}
