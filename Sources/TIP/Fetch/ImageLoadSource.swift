import Foundation

/// Where an image came from (TIP's `TIPImageLoadSource`). `memoryCache` covers the rendered-image cache and
/// the encoded-data cache.
public enum ImageLoadSource: Int, Sendable, CaseIterable, CustomStringConvertible {
    /// Not known.
    case unknown = 0
    /// The rendered-image cache or the encoded-data memory cache.
    case memoryCache = 1
    /// The pipeline's disk cache (or another pipeline's, copied in).
    case diskCache = 2
    /// One of the pipeline's additional caches.
    case additionalCache = 3
    /// A whole network download.
    case network = 4
    /// A network download that completed a cached partial.
    case networkResumed = 5

    /// The source's name, e.g. `diskCache`.
    public var description: String {
        switch self {
        case .unknown: "unknown"
        case .memoryCache: "memoryCache"
        case .diskCache: "diskCache"
        case .additionalCache: "additionalCache"
        case .network: "network"
        case .networkResumed: "networkResumed"
        }
    }
}

/// The sources a fetch may use (TIP's `TIPImageFetchLoadingSources`): one bit per `ImageLoadSource`, bit
/// `1 << source`.
///
/// `memoryCache` also gates the synchronous rendered-cache lookup; `networkResumed` gates any use of partial
/// downloads; `network` gates whole downloads (a resume-only fetch whose server restarts the download fails
/// with `couldNotLoadImage`).
public struct ImageFetchLoadingSources: OptionSet, Sendable, Hashable {
    /// The bits.
    public let rawValue: Int
    /// Sources from raw bits.
    public init(rawValue: Int) { self.rawValue = rawValue }

    /// The bit of one source.
    public init(_ source: ImageLoadSource) { self.init(rawValue: 1 << source.rawValue) }

    /// No source.
    public static let none: ImageFetchLoadingSources = []
    /// Bit 2.
    public static let memoryCache = ImageFetchLoadingSources(.memoryCache)
    /// Bit 4.
    public static let diskCache = ImageFetchLoadingSources(.diskCache)
    /// Bit 8.
    public static let additionalCache = ImageFetchLoadingSources(.additionalCache)
    /// Bit 16.
    public static let network = ImageFetchLoadingSources(.network)
    /// Bit 32.
    public static let networkResumed = ImageFetchLoadingSources(.networkResumed)
    /// Every source (0xFF, as TIP).
    public static let all = ImageFetchLoadingSources(rawValue: 0xFF)
    /// Beyond TIP: the caches only, never the network (Nuke's `.returnCacheDataDontLoad`): a miss fails with
    /// ``ImageFetchError/Code/couldNotLoadImage`` and sends no request.
    public static let cachesOnly: ImageFetchLoadingSources = [.memoryCache, .diskCache, .additionalCache]

    /// Whether `source` is allowed.
    public func allows(_ source: ImageLoadSource) -> Bool { contains(ImageFetchLoadingSources(source)) }
}
