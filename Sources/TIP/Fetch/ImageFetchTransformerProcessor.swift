import Foundation

/// TIP's ``ImageFetchTransformer`` as an ``ImageProcessor``: the transformer is one kind of processor, the one
/// TIP had. A fetch runs a request's `transformer` through this processor first, before its final scaling step
/// and its ``ImageFetchRequest/processors``.
///
/// ```swift
/// let step = ImageFetchTransformerProcessor(GreenTint())          // GreenTint: an ImageFetchTransformer
/// print(step.identifier)                                           // "tip.transformer(green)"
/// ```
///
/// TIP's rules hold: animations are returned unchanged (only scaled), and a transformer that returns nil keeps
/// the image. The transformer needs the fetch (its `operation` argument): outside a fetch (no
/// ``ImageProcessingContext/operation``) processing throws
/// ``ImageProcessingError/invalidParameter(processor:reason:)``.
struct ImageFetchTransformerProcessor: ImageProcessor {
    /// The transformer.
    let transformer: any ImageFetchTransformer

    /// The processor running `transformer`.
    init(_ transformer: any ImageFetchTransformer) {
        self.transformer = transformer
    }

    /// `tip.transformer(ID)` with the transformer's identifier, or `tip.transformer` without one.
    var identifier: String {
        transformer.transformerIdentifier.map { "tip.transformer(\($0))" } ?? "tip.transformer"
    }

    /// Whether images it made may be cached and shared: the transformer has an identifier (TIP turns the rendered
    /// cache off for requests whose transformer has none).
    var isCacheable: Bool { transformer.transformerIdentifier != nil }

    /// `image` transformed (a static image).
    func process(_ image: Bitmap, context: ImageProcessingContext) throws -> Bitmap {
        try process(ImageContainer(image: image), context: context).image
    }

    /// `container` transformed: the transformer's image, or `container` itself (the same object) when the transformer
    /// kept it or the container is an animation. `context.transformerProgress` is the transformer's `progress`.
    func process(_ container: ImageContainer, context: ImageProcessingContext) throws -> ImageContainer {
        guard let operation = context.operation else {
            throw ImageProcessingError.invalidParameter(
                processor: identifier,
                reason: "a transformer runs inside a fetch; the context has no operation")
        }
        guard !container.isAnimated else { return container }
        return transformer.transform(
            container, progress: context.transformerProgress, hintTargetDimensions: context.targetDimensions,
            hintContentMode: context.targetContentMode, operation: operation) ?? container
    }
}
