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
    /// When the image it was made from stops being fresh (HTTP caching); nil: never.
    var freshUntil: Date?
    /// False for a `no-store` response: no cache keeps the image.
    var isStorable = true
    /// Whether the server confirmed the cached image (a `304`) before it was served.
    var wasRevalidated = false
}

/// What a fetch's attempt at its final image gave: the image, or what the fetch does instead (a preview, the next
/// source, a failure), run once the other fetches waiting for the image were let go.
enum ImageFetchFinalImageAttempt: Sendable {
    case produced(ImageFetchFinalImage)
    case notProduced(next: @Sendable () -> Void)
}
