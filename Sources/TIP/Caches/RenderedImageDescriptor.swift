import Foundation

/// What the rendered cache remembers about an image besides the image itself: enough to compare,
/// match and account for an item whose image is held only weakly (TIP's container descriptor).
struct RenderedImageDescriptor: Equatable, Sendable {
    /// Pixel dimensions of the first frame.
    let dimensions: CGSize
    /// Bytes all frames take in memory (``ImageContainer/sizeInMemory``).
    let byteCount: Int64
    /// Number of frames (1 when static).
    let frameCount: Int

    /// The descriptor of `image`.
    init(_ image: ImageContainer) {
        dimensions = image.dimensions
        byteCount = Int64(image.sizeInMemory)
        frameCount = image.frameCount
    }
}
