import Foundation

/// Changes a decoded image: resize, crop, round, blur, recolour (Nuke's `ImageProcessing`).
///
/// ```swift
/// let processors: [any ImageProcessor] = [.cropToFill(), .roundedCorners(radius: 16)]
/// let thumbnail = try container.processed(by: processors, context: ImageProcessingContext(
///     targetDimensions: CGSize(width: 200, height: 200), targetContentMode: .scaleAspectFill))
/// ```
///
/// A processor is a value: the same parameters always give the same ``identifier`` and the same pixels,
/// so a processed image can be cached under the identifiers of the processors that made it. Processors run
/// after the image was decoded at the request's target size, in the order given, on whichever thread
/// processes the image (they must be safe to call from any thread and should not block).
public protocol ImageProcessor: Sendable {
    /// What the processor does, parameters included, stable across runs and releases: equal identifiers
    /// mean equal output for equal input (e.g. `tip.crop(200x200,centre)`). Caches key on it.
    var identifier: String { get }

    /// `image` processed. `context` says what the image is for (target size, which frame, which stage).
    /// Throws ``ImageProcessingError`` when a parameter is unusable (a negative radius, no size to work
    /// from) or the result would be too large; any other error is reported as
    /// ``ImageProcessingError/processingFailed(processor:reason:)``.
    func process(_ image: Bitmap, context: ImageProcessingContext) throws -> Bitmap

    /// `container` processed. The default processes every frame with ``process(_:context:)`` (the
    /// context's ``ImageProcessingContext/frameIndex`` set for each) and keeps the durations, loop count and
    /// partial flag. Implement it to treat an animation as a whole.
    func process(_ container: ImageContainer, context: ImageProcessingContext) throws -> ImageContainer
}

extension ImageProcessor {
    /// Every frame through ``process(_:context:)``, in order; durations, loop count, partial flag and the
    /// processors recorded in ``ImageContainer/processorIdentifiers`` are kept (this processor is not added).
    public func process(_ container: ImageContainer, context: ImageProcessingContext) throws -> ImageContainer {
        var frameContext = context
        frameContext.frameCount = container.frameCount
        var frames: [Bitmap] = []
        frames.reserveCapacity(container.frameCount)
        for (index, frame) in container.frames.enumerated() {
            frameContext.frameIndex = index
            frames.append(try process(frame, context: frameContext))
        }
        return container.replacingFrames(frames, processorIdentifiers: container.processorIdentifiers)
    }
}
