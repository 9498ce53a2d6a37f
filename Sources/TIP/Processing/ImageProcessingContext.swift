import Foundation

/// What an image is being processed for: the request's target sizing, which frame of which stage.
///
/// ```swift
/// let context = ImageProcessingContext(targetDimensions: CGSize(width: 200, height: 200),
///                                      targetContentMode: .scaleAspectFill)
/// ```
public struct ImageProcessingContext: Sendable {
    /// The request's target dimensions in pixels; `.zero` when the request has none (processors that need
    /// a size and were given none throw ``ImageProcessingError/missingTargetDimensions(processor:)``).
    public var targetDimensions: CGSize
    /// How the request fits the image into ``targetDimensions``. Default `.center` (no resizing).
    public var targetContentMode: ContentMode
    /// Which image this is: the final image, a preview, or a progressive scan. Default `.final`.
    public var stage: ImageProcessingStage
    /// Index of the frame being processed (0 for a static image). Set by
    /// ``ImageProcessor/process(_:context:)-(ImageContainer,_)`` for each frame.
    public var frameIndex: Int
    /// Frames of the image being processed (1 for a static image).
    public var frameCount: Int
    /// Largest output a processor may make, in pixels (width x height); larger results throw
    /// ``ImageProcessingError/outputTooLarge(processor:width:height:)``. Default
    /// ``ImageDecodingOptions/defaultMaximumPixelCount`` (100 megapixels), the decoders' limit.
    public var maximumPixelCount: Int
    /// The fetch whose image this is, when a pipeline runs the processors (its request, its priority); nil
    /// outside a fetch. Default nil.
    public var operation: ImageFetchOperation?

    /// A context; every argument has the default described on its property. `frameIndex` is 0 and
    /// `frameCount` 1 until a container is processed.
    public init(
        targetDimensions: CGSize = .zero, targetContentMode: ContentMode = .center,
        stage: ImageProcessingStage = .final,
        maximumPixelCount: Int = ImageDecodingOptions.defaultMaximumPixelCount
    ) {
        self.targetDimensions = targetDimensions
        self.targetContentMode = targetContentMode
        self.stage = stage
        self.frameIndex = 0
        self.frameCount = 1
        self.maximumPixelCount = maximumPixelCount
        self.operation = nil
    }

    /// Whether this is the final image (not a preview or a progressive scan).
    public var isFinal: Bool { stage == .final }

    /// The stage as TIP's transformers see it (`TIPImageFetchTransformer`'s `progress`): 1 for the final
    /// image, -1 for a preview, the download progress (0...1) for a progressive scan.
    public var transformerProgress: Float {
        switch stage {
        case .final: return 1
        case .preview: return -1
        case .progressiveScan(let progress): return progress
        }
    }

    /// ``targetDimensions`` as whole pixels, or nil when it has no positive area.
    var targetPixels: (width: Int, height: Int)? {
        ImageProcessors.pixels(targetDimensions)
    }
}
