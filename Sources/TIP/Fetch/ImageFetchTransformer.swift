import Foundation

/// Changes a fetched image before it is scaled and delivered (TIP's `TIPImageFetchTransformer`), e.g. to round
/// corners or tint. The data and disk caches keep the raw image; a transformed image reaches the rendered
/// cache only under `transformerIdentifier` (a transformer without one turns rendered-cache reads and
/// writes off for its requests). Animations are never transformed, only scaled.
public protocol ImageFetchTransformer: Sendable {
    /// Identifies what the transformer does, so rendered images can be reused; nil: not cacheable. Default nil.
    var transformerIdentifier: String? { get }

    /// The transformed image, or nil to keep `image`. `progress` is 1 for the final image, negative for a
    /// preview, and the download progress for a progressive scan. The image is then scaled to the target.
    func transform(
        _ image: ImageContainer, progress: Float, hintTargetDimensions: CGSize,
        hintContentMode: ContentMode, operation: ImageFetchOperation
    ) -> ImageContainer?
}

extension ImageFetchTransformer {
    /// Nil: transformed images are neither read from nor written to the rendered cache.
    public var transformerIdentifier: String? { nil }
}
