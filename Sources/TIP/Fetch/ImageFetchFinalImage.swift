import Foundation

/// A fetch's final image once decoded and processed, as concurrent fetches of the same image share it.
struct ImageFetchFinalImage: Sendable {
    /// The image: decoded at the target, transformed, scaled and processed.
    var image: ImageContainer
    /// Whether the transformer changed it.
    var transformed: Bool
    /// The dimensions of the variant it was decoded from.
    var originalDimensions: CGSize
    /// Whether the variant is a placeholder.
    var isPlaceholder: Bool
    /// The encoded bytes the producer read from disk, for its memory cache; never handed to other fetches.
    var bytes: MemoryCacheCompleteImage?
    /// Whether it was read from a stored processed image (so it is not stored again).
    var isStoredProcessedImage = false
}

/// What a fetch's attempt at its final image gave: the image, or what the fetch does instead (a preview, the next
/// source, a failure), run once the other fetches waiting for the image were let go.
enum ImageFetchFinalImageAttempt: Sendable {
    case produced(ImageFetchFinalImage)
    case notProduced(next: @Sendable () -> Void)
}
