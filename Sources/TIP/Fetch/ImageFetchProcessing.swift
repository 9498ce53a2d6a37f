import Foundation

/// What a fetch does to a decoded image, in order: TIP's transformer (as an ``ImageFetchTransformerProcessor``),
/// TIP's final scaling step to the target sizing, then the request's processors; and the identities derived from
/// it: the rendered-cache variant of its results, and the disk identifier of a stored processed image.
///
/// A value made from the request once per fetch; the steps run on the fetch's queue.
struct ImageFetchProcessing: Sendable {
    /// TIP's transformer, run before scaling.
    let transformer: ImageFetchTransformerProcessor?
    /// The request's processors, run after scaling.
    let processors: [any ImageProcessor]
    let targetDimensions: CGSize
    let targetContentMode: ContentMode
    /// The processors' joined identifiers ("" for none).
    let processorsIdentifier: String

    init(request: any ImageFetchRequest) {
        transformer = request.transformer.map(ImageFetchTransformerProcessor.init)
        processors = request.processors
        targetDimensions = request.targetDimensions
        targetContentMode = request.targetContentMode
        processorsIdentifier = ImageProcessors.identifier(of: processors)
    }

    /// Whether the request has processors.
    var hasProcessors: Bool { !processors.isEmpty }

    /// Whether the results may be cached and shared between fetches: not when the transformer has no identifier.
    var isCacheable: Bool { transformer?.isCacheable ?? true }

    /// The rendered-cache variant of an image this processing made (`transformed`: the transformer changed it): nil
    /// for a plain image, the transformer's identifier for a transformed one (TIP), and for processed images an
    /// identity naming the transformer, the processors and the target sizing they worked to, since their output
    /// depends on it (such items match by this identity alone: ``matchesTargetExactly``).
    func variant(transformed: Bool) -> String? {
        let transformerIdentifier = transformed ? transformer?.transformer.transformerIdentifier : nil
        guard hasProcessors else { return transformerIdentifier }
        return fetchIdentity(transformerIdentifier: transformerIdentifier)
    }

    /// "tip.fetch(steps@WxH/mode)": the transformer (when named), the processors (when any) and the target sizing.
    private func fetchIdentity(transformerIdentifier: String?) -> String {
        let steps =
            (transformerIdentifier.map { ["tip.transformer(\(ImageProcessors.escaped($0)))"] } ?? [])
            + (hasProcessors ? [processorsIdentifier] : [])
        return "tip.fetch(" + steps.joined(separator: "|") + "@" + ImageProcessors.format(targetDimensions)
            + "/\(targetContentMode.rawValue))"
    }

    /// The variant a lookup asks for before anything ran (a transformer is taken to transform, as TIP does).
    var lookupVariant: String? { variant(transformed: transformer != nil) }

    /// Whether rendered items of this processing match by variant alone rather than by TIP's sizing rule: processed
    /// images have whatever size their processors made.
    var matchesTargetExactly: Bool { hasProcessors }

    /// The disk-cache identifier of the processed image of `identifier` (stored with
    /// ``ImageFetchOptions/storeProcessedImageToDiskCache``): with processors, named by ``lookupVariant``; without,
    /// by the target sizing the final scaling worked to (and the transformer). Nil when not cacheable, and without
    /// processors when there are no target dimensions (nothing is scaled).
    func processedIdentifier(of identifier: String) -> String? {
        guard isCacheable, hasProcessors || TargetSizing.isUsableTarget(targetDimensions) else {
            return nil
        }
        // With processors this is ``lookupVariant``: the transformer is taken to transform.
        let transformerIdentifier = transformer?.transformer.transformerIdentifier
        return identifier + Self.processedSeparator + fetchIdentity(transformerIdentifier: transformerIdentifier)
    }

    /// Whether a final image is worth storing as this fetch's processed image: a processed one, or without processors
    /// a still image smaller than the `originalDimensions` it was scaled from (an image at its original size is the
    /// original; a scaled animation would be re-encoded as GIF, frame by frame, into new palettes).
    func storesFinalImage(_ image: ImageContainer, originalDimensions: CGSize) -> Bool {
        if hasProcessors { return image.isProcessed }
        guard !image.isAnimated else { return false }
        return image.dimensions.width < originalDimensions.width || image.dimensions.height < originalDimensions.height
    }

    /// What separates an identifier from a processed variant's suffix in disk identifiers.
    static let processedSeparator = "#"

    /// What every processed image's disk identifier has after its original's identifier.
    static let processedMarker = processedSeparator + "tip.fetch("

    /// The prefix shared by the disk identifiers of `identifier`'s processed images.
    static func processedIdentifierPrefix(of identifier: String) -> String {
        identifier + processedMarker
    }

    /// `image` through the steps: transformed (still images only, and only when `transforms`), scaled by `scale`, then
    /// processed. `stage` says which image of the fetch this is. Throws the processors' ``ImageProcessingError``.
    func run(
        _ image: ImageContainer, stage: ImageProcessingStage, operation: ImageFetchOperation, maximumPixelCount: Int,
        transforms: Bool = true,
        scale: (ImageContainer) -> ImageContainer
    ) throws(ImageProcessingError) -> (image: ImageContainer, transformed: Bool) {
        var context = ImageProcessingContext(
            targetDimensions: targetDimensions, targetContentMode: targetContentMode, stage: stage,
            maximumPixelCount: maximumPixelCount)
        context.operation = operation
        var current = image
        var transformed = false
        if let transformer, transforms {
            do {
                let output = try transformer.process(current, context: context)
                transformed = output !== current
                current = output
            } catch {
                throw (error as? ImageProcessingError)
                    ?? .processingFailed(processor: transformer.identifier, reason: String(describing: error))
            }
        }
        current = scale(current)
        if hasProcessors { current = try current.processed(by: processors, context: context) }
        return (current, transformed)
    }
}
