import Foundation

@testable import TIP

/// A processor that counts its calls (per stage) and paints the image's top-left pixel red, so its output differs
/// from its input; `failsOn` makes it throw for some stages.
struct CountingProcessor: ImageProcessor {
    let identifier: String
    let calls = Locked<[ImageProcessingStage]>([])
    let sawTransformed = Locked<[Bool]>([])
    var failsOn: @Sendable (ImageProcessingStage) -> Bool = { _ in false }

    init(
        identifier: String = "test.count", failsOn: @escaping @Sendable (ImageProcessingStage) -> Bool = { _ in false }
    ) {
        self.identifier = identifier
        self.failsOn = failsOn
    }

    /// Calls for the final image.
    var finalCalls: Int { calls.withLock { $0.filter { $0 == .final }.count } }

    func process(_ image: Bitmap, context: ImageProcessingContext) throws -> Bitmap {
        calls.withLock { $0.append(context.stage) }
        if failsOn(context.stage) {
            throw ImageProcessingError.invalidParameter(processor: identifier, reason: "asked to fail")
        }
        // A green image means the transformer ran before this processor.
        let center = image.pixel(x: image.width / 2, y: image.height / 2)
        sawTransformed.withLock { $0.append(center == SIMD4(0, 255, 0, 255)) }
        var output = image
        output.setPixel(x: 0, y: 0, SIMD4(255, 0, 0, 255))
        return output
    }
}
