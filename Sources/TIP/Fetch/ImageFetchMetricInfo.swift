import Foundation

#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// How far one source got (TIP's `TIPImageFetchLoadResult`); results only ever upgrade.
public enum ImageFetchLoadResult: Int, Sendable, Comparable {
    /// The source was still loading when the fetch ended.
    case neverCompleted = -1
    /// The source had nothing (or was not allowed).
    case miss = 0
    /// The source gave a preview.
    case hitPreview = 1
    /// The source gave a progressive scan or a first animation frame.
    case hitProgressFrame = 2
    /// The source gave the final image.
    case hitFinal = 3

    /// Orders by how far the source got.
    public static func < (lhs: Self, rhs: Self) -> Bool { lhs.rawValue < rhs.rawValue }
}

/// What one source did during a fetch (TIP's `TIPImageFetchMetricInfo`).
public struct ImageFetchMetricInfo: Sendable {
    /// The source.
    public internal(set) var source: ImageLoadSource
    /// How far it got.
    public internal(set) var result: ImageFetchLoadResult = .neverCompleted
    /// Whether the fetch was cancelled while this source was loading.
    public internal(set) var wasCancelled = false
    /// Seconds the source took.
    public internal(set) var loadDuration: TimeInterval = 0
    /// Whether it was answered synchronously (the rendered-cache hit inside `fetchImage`).
    public internal(set) var wasLoadedSynchronously = false

    // Network sources only.

    /// The download provider's own metrics, if it has any.
    public internal(set) var networkMetrics: (any Sendable)?
    /// The request that was loaded (hydrated; the `Authorization` header is not kept).
    public internal(set) var networkRequest: URLRequest?
    /// Seconds from the request to the last byte.
    public internal(set) var totalNetworkLoadDuration: TimeInterval = 0
    /// Seconds from the request to the first progressive scan, 0 when none was shown.
    public internal(set) var firstProgressiveFrameNetworkLoadDuration: TimeInterval = 0
    /// Bytes of the whole image file.
    public internal(set) var networkImageSizeInBytes: Int = 0
    /// The downloaded image's type.
    public internal(set) var networkImageType: ImageType?
    /// The downloaded image's dimensions.
    public internal(set) var networkImageDimensions: CGSize = .zero
    /// Beyond TIP: whether the request revalidated a cached image and the server answered `304 Not Modified`
    /// (the image was then served from the cache: the result's ``ImageFetchResult/imageWasRevalidated``); the
    /// size, type and dimensions above are the cached image's.
    public internal(set) var wasRevalidated = false

    /// Pixels per byte of the downloaded image (0 when unknown).
    public var networkImagePixelsPerByte: Double {
        guard networkImageSizeInBytes > 0 else { return 0 }
        return Double(networkImageDimensions.width * networkImageDimensions.height) / Double(networkImageSizeInBytes)
    }

    init(source: ImageLoadSource) {
        self.source = source
    }
}
