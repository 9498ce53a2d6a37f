import Foundation

/// The bytes of an image as a data-only fetch delivers them, undecoded (beyond TIP; Nuke's `ImagePipeline.data(for:)`).
public struct ImageDataFetchResult: Sendable {
    /// The encoded image, as downloaded or cached.
    public var data: Data
    /// The type detected from the bytes (or recorded with the cache entry); nil when no registered codec recognizes
    /// them.
    public var imageType: ImageType?
    /// The URL.
    public var imageURL: URL
    /// Where the bytes came from: `memoryCache`, `diskCache`, `network` or `networkResumed`.
    public var imageSource: ImageLoadSource
    /// The cache identifier.
    public var imageIdentifier: String
    /// The image's dimensions from its header or the cache entry; zero when unknown.
    public var imageDimensions: CGSize

    /// A result; every value is given.
    public init(
        data: Data, imageType: ImageType?, imageURL: URL, imageSource: ImageLoadSource, imageIdentifier: String,
        imageDimensions: CGSize
    ) {
        self.data = data
        self.imageType = imageType
        self.imageURL = imageURL
        self.imageSource = imageSource
        self.imageIdentifier = imageIdentifier
        self.imageDimensions = imageDimensions
    }
}
