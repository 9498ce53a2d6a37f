import Foundation

/// A plain fetch request with every member settable (TIP's `TIPGenericImageFetchRequest` and its mutable
/// variant in one value type).
///
/// ```swift
/// let request = GenericImageFetchRequest(imageURL: url, identifier: "avatar-42",
///                                        targetDimensions: CGSize(width: 96, height: 96),
///                                        targetContentMode: .scaleAspectFill)
/// ```
public struct GenericImageFetchRequest: MutableTargetSizingImageFetchRequest {
    /// The image URL.
    public var imageURL: URL
    /// The cache key; nil: the URL's absolute string.
    public var imageIdentifier: String?
    /// The pixel size to deliver at (zero: the image's own).
    public var targetDimensions: CGSize
    /// How the image fits `targetDimensions`.
    public var targetContentMode: ContentMode
    /// Seconds written entries live after their last access (0 or less: 30 days).
    public var timeToLive: TimeInterval = ImageFetchRequestDefaults.timeToLive
    /// Cache behaviour.
    public var options: ImageFetchOptions = []
    /// The sources the fetch may use.
    public var loadingSources: ImageFetchLoadingSources = .all
    /// Per-type decoder configuration.
    public var decoderConfigMap: [ImageType: any Sendable]?
    /// Progressive loading policies by type (nil: TIP's defaults).
    public var progressiveLoadingPolicies: [ImageType: any ImageFetchProgressiveLoadingPolicy]?
    /// Changes the image before it is scaled and delivered.
    public var transformer: (any ImageFetchTransformer)?
    /// Processors run in order after decoding, transforming and scaling (default none).
    public var processors: [any ImageProcessor] = []
    /// Adds headers before the request is sent.
    public var imageRequestHydrator: ImageRequestHydrator?
    /// Gives the `Authorization` header value.
    public var imageRequestAuthorizer: ImageRequestAuthorizer?
    /// The most pixels this fetch decodes; nil: ``GlobalConfiguration/maximumPixelCount``.
    public var maximumPixelCount: Int?

    /// A request for `imageURL` with TIP's defaults.
    public init(imageURL: URL) {
        self.init(imageURL: imageURL, identifier: nil, targetDimensions: .zero, targetContentMode: .center)
    }

    /// A request for `imageURL` with an identifier and a target sizing.
    public init(imageURL: URL, identifier: String?, targetDimensions: CGSize, targetContentMode: ContentMode) {
        self.imageURL = imageURL
        self.imageIdentifier = identifier
        self.targetDimensions = targetDimensions
        self.targetContentMode = targetContentMode
    }

    /// A copy of any request's values (TIP's `genericImageFetchRequestWithRequest:`).
    public init(_ request: any ImageFetchRequest) {
        self.init(
            imageURL: request.imageURL, identifier: request.imageIdentifier,
            targetDimensions: request.targetDimensions, targetContentMode: request.targetContentMode)
        timeToLive = request.timeToLive
        options = request.options
        loadingSources = request.loadingSources
        decoderConfigMap = request.decoderConfigMap
        progressiveLoadingPolicies = request.progressiveLoadingPolicies
        transformer = request.transformer
        processors = request.processors
        imageRequestHydrator = request.imageRequestHydrator
        imageRequestAuthorizer = request.imageRequestAuthorizer
        maximumPixelCount = request.maximumPixelCount
    }
}
