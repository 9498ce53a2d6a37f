import Foundation
import Testing

@testable import TIP

/// A delegate that opts into progressive loading and first animated frames, recording what it gets.
final class ProgressiveRecordingDelegate: ImageFetchDelegate {
    let optIn: Bool
    let scans = Locked<[CGSize]>([])
    /// The progress each scan came with.
    let scanProgress = Locked<[Float]>([])
    let firstFrames = Locked<[CGSize]>([])
    let asked = Locked(0)
    let final = Locked<ImageFetchResult?>(nil)
    let order = Locked<[String]>([])

    init(optIn: Bool) { self.optIn = optIn }

    var handlesProgressiveLoading: Bool { true }
    var handlesFirstAnimatedFrame: Bool { true }

    func imageFetchOperation(
        _ operation: ImageFetchOperation, shouldLoadProgressivelyWithIdentifier identifier: String,
        url: URL, imageType: ImageType, originalDimensions: CGSize
    ) -> Bool {
        asked.withLock { $0 += 1 }
        return optIn
    }
    func imageFetchOperation(
        _ operation: ImageFetchOperation, didUpdateProgressiveImage result: ImageFetchResult, progress: Float
    ) {
        scans.withLock { $0.append(result.imageContainer.dimensions) }
        scanProgress.withLock { $0.append(progress) }
        order.withLock { $0.append("scan") }
        #expect(progress < 1)
    }
    func imageFetchOperation(
        _ operation: ImageFetchOperation, didLoadFirstAnimatedImageFrame result: ImageFetchResult, progress: Float
    ) {
        firstFrames.withLock { $0.append(result.imageContainer.dimensions) }
        order.withLock { $0.append("first-frame") }
        #expect(progress > 0 && progress < 1)
    }
    func imageFetchOperation(_ operation: ImageFetchOperation, didLoadFinalImage result: ImageFetchResult) {
        final.withLock { $0 = result }
        order.withLock { $0.append("final") }
    }
}
