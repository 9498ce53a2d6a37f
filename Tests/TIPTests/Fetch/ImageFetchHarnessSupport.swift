import Foundation
import Testing

@testable import TIP

#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

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
            let image = ImageContainer(
                image: TestImages.photo(width: 400, height: 300, format: .rgba8Premultiplied, seed: 11))
            let data = try CodecCatalogue.shared.encodeImage(image, type: .png, quality: 1)
            return HarnessImage(
                kind: kind, data: data, type: .png, mimeType: "image/png",
                original: CGSize(width: 400, height: 300), frameDurations: [])
        case .jpeg:
            return HarnessImage(
                kind: kind, data: try DownloaderTestEnvironment.jpeg(width: 800, height: 600, seed: 12),
                type: .jpeg, mimeType: "image/jpeg", original: CGSize(width: 800, height: 600), frameDurations: [])
        case .progressiveJPEG, .progressiveJPEGScansOff:
            return HarnessImage(
                kind: kind,
                data: try DownloaderTestEnvironment.jpeg(width: 1200, height: 900, progressive: true, seed: 13),
                type: .jpeg, mimeType: "image/jpeg", original: CGSize(width: 1200, height: 900), frameDurations: [])
        case .gif:
            let durations: [TimeInterval] = [0.1, 0.2, 0.3, 0.5]
            let frames = durations.indices.map {
                TestImages.photo(width: 320, height: 240, format: .rgba8Premultiplied, seed: UInt64(20 + $0))
            }
            let animation = try #require(
                ImageContainer(animatedFrames: frames, frameDurations: durations, loopCount: 0))
            let data = try CodecCatalogue.shared.encodeImage(animation, type: .gif, quality: 1)
            return HarnessImage(
                kind: kind, data: data, type: .gif, mimeType: "image/gif",
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

extension ImagePipeline {
    /// Runs one fetch of `request` to its end with a harness delegate.
    func harnessFetch(_ request: any ImageFetchRequest, wantsScans: Bool) async -> (
        ImageFetchOperation, HarnessFetchDelegate
    ) {
        let delegate = HarnessFetchDelegate(wantsScans: wantsScans)
        let operation = operation(with: request, delegate: delegate)
        fetchImage(with: operation)
        // Generous: debug builds under sanitizers on a loaded 2-core machine are slow; it returns at the end.
        _ = await eventually(timeout: .seconds(120)) { operation.isFinished }
        return (operation, delegate)
    }
}

extension SteppedPipelineEnvironment {
    /// Runs one fetch of `request` to its end with a harness delegate (or `delegate`); `answer` steps its download
    /// (given the download, the operation and the delegate).
    func harnessFetch(
        _ request: any ImageFetchRequest, wantsScans: Bool, delegate: HarnessFetchDelegate? = nil,
        answer: (SteppedDownload, ImageFetchOperation, HarnessFetchDelegate) async throws -> Void
    )
        async throws -> (ImageFetchOperation, HarnessFetchDelegate)
    {
        let delegate = delegate ?? HarnessFetchDelegate(wantsScans: wantsScans)
        let operation = pipeline.operation(with: request, delegate: delegate)
        pipeline.fetchImage(with: operation)
        try await answer(try await provider.next(), operation, delegate)
        _ = await eventually(timeout: .seconds(120)) { operation.isFinished }
        return (operation, delegate)
    }
}
