import Foundation

/// What to fetch and how (TIP's `TIPImageFetchRequest`). Only `imageURL` is required; every other member
/// has TIP's default.
///
/// ```swift
/// var request = GenericImageFetchRequest(imageURL: url)
/// request.targetDimensions = CGSize(width: 400, height: 400)
/// request.targetContentMode = .scaleAspectFill
/// ```
public protocol ImageFetchRequest: Sendable {
    /// The image URL.
    var imageURL: URL { get }
    /// The cache key shared by every variant (size) of the image. Default nil: `imageURL.absoluteString`.
    var imageIdentifier: String? { get }
    /// The pixel size to deliver at. Default zero (the image's own size).
    var targetDimensions: CGSize { get }
    /// How the image fits `targetDimensions`; only the three `scale*` modes resize. Default `.center`.
    var targetContentMode: ContentMode { get }
    /// Seconds the entries this fetch writes live after their last access; 0 or less: 30 days. Default 30 days.
    var timeToLive: TimeInterval { get }
    /// Cache behaviour. Default none.
    var options: ImageFetchOptions { get }
    /// The sources the fetch may use. Default all.
    var loadingSources: ImageFetchLoadingSources { get }
    /// Per-type decoder configuration (passed as `ImageDecodingOptions.configuration`). Default nil.
    var decoderConfigMap: [ImageType: any Sendable]? { get }
    /// Progressive loading policies by type; nil: `ImageFetchProgressiveLoadingPolicies.defaults`. Default nil.
    var progressiveLoadingPolicies: [ImageType: any ImageFetchProgressiveLoadingPolicy]? { get }
    /// Changes the image before it is scaled and delivered (TIP's one processing step, run first). Default nil.
    var transformer: (any ImageFetchTransformer)? { get }
    /// Beyond TIP: processors run in order on the image after it was decoded at the target size, transformed and
    /// scaled (every frame of an animation; previews and progressive scans too). Their identifiers are part of the
    /// rendered-cache identity of the result. Default none.
    var processors: [any ImageProcessor] { get }
    /// Adds headers before the request is sent. Default nil.
    var imageRequestHydrator: ImageRequestHydrator? { get }
    /// Gives the `Authorization` header value. Default nil.
    var imageRequestAuthorizer: ImageRequestAuthorizer? { get }
    /// Beyond TIP: the most pixels (width x height) this fetch decodes; nil (or below 1):
    /// ``GlobalConfiguration/maximumPixelCount``. Default nil.
    var maximumPixelCount: Int? { get }
}

extension ImageFetchRequest {
    /// Nil: the URL's absolute string.
    public var imageIdentifier: String? { nil }
    /// Zero: the image is delivered at its own size.
    public var targetDimensions: CGSize { .zero }
    /// `.center`.
    public var targetContentMode: ContentMode { .center }
    /// 30 days.
    public var timeToLive: TimeInterval { ImageFetchRequestDefaults.timeToLive }
    /// No options: reads refresh expiry, the image is no placeholder and goes into the rendered cache.
    public var options: ImageFetchOptions { [] }
    /// All.
    public var loadingSources: ImageFetchLoadingSources { .all }
    /// Nil: every decoder runs with its default configuration.
    public var decoderConfigMap: [ImageType: any Sendable]? { nil }
    /// Nil (TIP's defaults).
    public var progressiveLoadingPolicies: [ImageType: any ImageFetchProgressiveLoadingPolicy]? { nil }
    /// Nil: the image is only scaled.
    public var transformer: (any ImageFetchTransformer)? { nil }
    /// None: the image is only decoded, transformed and scaled.
    public var processors: [any ImageProcessor] { [] }
    /// Nil: the HTTP request is sent as the provider makes it.
    public var imageRequestHydrator: ImageRequestHydrator? { nil }
    /// Nil: no `Authorization` header.
    public var imageRequestAuthorizer: ImageRequestAuthorizer? { nil }
    /// Nil: ``GlobalConfiguration/maximumPixelCount``.
    public var maximumPixelCount: Int? { nil }

    /// The identifier the caches use: `imageIdentifier`, else the URL's absolute string.
    public var resolvedImageIdentifier: String { imageIdentifier ?? imageURL.absoluteString }
    /// The time to live the caches use: `timeToLive` when positive, else 30 days.
    public var resolvedTimeToLive: TimeInterval { timeToLive > 0 ? timeToLive : ImageFetchRequestDefaults.timeToLive }
}

/// A fetch request whose target sizing can be changed (TIP's `TIPMutableTargetSizingImageFetchRequest`).
public protocol MutableTargetSizingImageFetchRequest: ImageFetchRequest {
    /// The pixel size to deliver at.
    var targetDimensions: CGSize { get set }
    /// How the image fits `targetDimensions`.
    var targetContentMode: ContentMode { get set }
}

/// TIP's request defaults.
public enum ImageFetchRequestDefaults {
    /// 30 days, in seconds (2,592,000).
    public static let timeToLive: TimeInterval = 30 * 24 * 60 * 60
}

extension ImageFetchRequest {
    /// The pixel limit the fetch applies: `maximumPixelCount` when positive, else `configuration`'s (the default
    /// without one).
    func resolvedMaximumPixelCount(_ configuration: GlobalConfiguration?) -> Int {
        if let own = maximumPixelCount, own >= 1 { return own }
        return configuration?.maximumPixelCount ?? ImageDecodingOptions.defaultMaximumPixelCount
    }
}
