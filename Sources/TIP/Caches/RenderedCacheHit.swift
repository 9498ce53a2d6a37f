import Foundation

/// A hit in the rendered cache.
struct RenderedCacheHit: Sendable {
    /// The rendered (scaled) image.
    let image: ImageContainer
    /// Dimensions of the image it was rendered from.
    let originalDimensions: CGSize
    /// Whether the entry was marked dirty: usable as a preview, but a fetch must still run.
    let isDirty: Bool
}
