import Foundation

/// An image a fetch delivered: a preview, a progressive scan or the final image (TIP's `TIPImageFetchResult`).
public struct ImageFetchResult: Sendable {
    /// The image.
    public var imageContainer: ImageContainer
    /// Where it came from.
    public var imageSource: ImageLoadSource
    /// The URL of the variant delivered (a preview's may differ from the request's).
    public var imageURL: URL
    /// The dimensions before the last scaling step (for cache hits: the decoded size, possibly already
    /// target-sized).
    public var imageOriginalDimensions: CGSize
    /// Whether the image is a placeholder (always false for scans).
    public var imageIsTreatedAsPlaceholder: Bool
    /// Whether a transformer changed it (always false for scans, as in TIP).
    public var imageWasTransformed: Bool
    /// The cache identifier.
    public var imageIdentifier: String
    /// Beyond TIP: whether the image is a cached one whose freshness had run out and that the server confirmed
    /// (`304 Not Modified` to an `If-None-Match` / `If-Modified-Since` request) before it was served. Its
    /// ``imageSource`` is then the cache that held it: `diskCache`, or `memoryCache` when only the memory cache
    /// did. False for everything else (default).
    public var imageWasRevalidated: Bool

    /// Whether the request's processors made the image (its ``ImageContainer/processorIdentifiers`` are not empty).
    public var imageWasProcessed: Bool { imageContainer.isProcessed }

    /// A result; every value but ``imageWasRevalidated`` (default false) is given.
    public init(
        imageContainer: ImageContainer, imageSource: ImageLoadSource, imageURL: URL,
        imageOriginalDimensions: CGSize, imageIsTreatedAsPlaceholder: Bool, imageWasTransformed: Bool,
        imageIdentifier: String, imageWasRevalidated: Bool = false
    ) {
        self.imageContainer = imageContainer
        self.imageSource = imageSource
        self.imageURL = imageURL
        self.imageOriginalDimensions = imageOriginalDimensions
        self.imageIsTreatedAsPlaceholder = imageIsTreatedAsPlaceholder
        self.imageWasTransformed = imageWasTransformed
        self.imageIdentifier = imageIdentifier
        self.imageWasRevalidated = imageWasRevalidated
    }
}
