import Foundation
import Testing

@testable import TIP

/// Paints the image solid green (identifier optional), counting calls.
struct GreenTransformer: ImageFetchTransformer {
    let transformerIdentifier: String?
    let calls = Locked(0)
    func transform(
        _ image: ImageContainer, progress: Float, hintTargetDimensions: CGSize,
        hintContentMode: ContentMode, operation: ImageFetchOperation
    ) -> ImageContainer? {
        calls.withLock { $0 += 1 }
        return ImageContainer(
            image: TestImages.solid(
                width: Int(image.dimensions.width), height: Int(image.dimensions.height),
                SIMD4(0, 255, 0, 255)))
    }
}
