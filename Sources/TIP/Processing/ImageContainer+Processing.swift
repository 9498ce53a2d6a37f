import Foundation

extension ImageContainer {
    /// This image run through `processors` in order, every frame of an animation processed (durations,
    /// loop count and partial flag kept), with their identifiers appended to ``processorIdentifiers``.
    /// Returns `self` when `processors` is empty.
    ///
    /// ```swift
    /// let context = ImageProcessingContext(
    ///     targetDimensions: CGSize(width: 200, height: 200), targetContentMode: .scaleAspectFill)
    /// let avatar = try decoded.processed(by: [.cropToFill(), .circle()], context: context)
    /// print(avatar.processorIdentifiers)   // ["tip.crop(target,centre)", "tip.circle"]
    /// ```
    ///
    /// Runs synchronously on the calling thread (a blur may use a second core for large images).
    /// Throws ``ImageProcessingError``: a processor's own, or
    /// ``ImageProcessingError/processingFailed(processor:reason:)`` wrapping any other error it throws.
    public func processed(by processors: [any ImageProcessor], context: ImageProcessingContext)
        throws(ImageProcessingError) -> ImageContainer
    {
        var current = self
        for processor in processors {
            let output: ImageContainer
            do {
                output = try processor.process(current, context: context)
            } catch let error as ImageProcessingError {
                throw error
            } catch {
                throw .processingFailed(processor: processor.identifier, reason: String(describing: error))
            }
            current = output.replacingFrames(
                output.frames, processorIdentifiers: current.processorIdentifiers + [processor.identifier])
        }
        return current
    }

    /// Whether processors made this image (``processorIdentifiers`` is not empty).
    public var isProcessed: Bool { !processorIdentifiers.isEmpty }
}
