import Foundation

#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// A member of a shared download: what a fetch operation implements to take part in one (TIP's
/// `TIPImageDownloadDelegate`).
///
/// The downloader reads `imageDownloadRequest` once, when the member joins, and `imageDownloadPriority`
/// whenever told it changed. Every callback runs on `imageDownloadQueue` (serial), in this order:
/// `didStart` once, then `didReset` / `didUpdate` any number of times, then exactly one `didComplete`;
/// nothing follows the completion. A member that joins late gets `didStart` and one update carrying every
/// byte received so far.
protocol ImageDownloadMember: ImageFetchOperationUnderlyingContext {
    /// What to download.
    var imageDownloadRequest: ImageDownloadRequest { get }
    /// The member's current priority.
    var imageDownloadPriority: ImageFetchPriority { get }
    /// The serial queue the callbacks run on.
    var imageDownloadQueue: DispatchQueue { get }

    /// The download started (or, for a late joiner, had started). `resumedByteCount` is the size of the
    /// cached partial the download resumes from (0 for a whole download); an update carrying those bytes
    /// follows at once.
    func imageDownloadDidStart(_ download: ImageDownloadHandle, resumedByteCount: Int, expectedLength: Int?)
    /// The download starts over from byte 0 (the server ignored the range, or refused it): drop what
    /// the earlier updates delivered. Progress is 0 again.
    func imageDownloadDidReset(_ download: ImageDownloadHandle)
    /// Bytes arrived.
    func imageDownload(_ download: ImageDownloadHandle, didUpdate update: ImageDownloadUpdate)
    /// The download ended (for this member): the whole image, or why not.
    func imageDownload(_ download: ImageDownloadHandle, didCompleteWith result: Result<ImageDownloadResult, any Error>)
}

/// The member-facing identity of a shared download.
final class ImageDownloadHandle: Sendable {
    /// The URL.
    let url: URL
    /// The cache identifier.
    let identifier: String

    init(url: URL, identifier: String) {
        self.url = url
        self.identifier = identifier
    }
}

/// Bytes that arrived for a shared download (TIP's members are told a byte count too, not the bytes).
struct ImageDownloadUpdate: Sendable {
    /// How many bytes arrived since the member's previous update (for a late joiner, and for the update
    /// that follows a resumed start: every byte so far). Updates queued for a busy member are merged, so
    /// this may span several network chunks; the bytes themselves come with the result (and, for
    /// progressive rendering, through the shared partial image).
    var appendedByteCount: Int
    /// Bytes of the image held so far (resumed partial included).
    var totalByteCount: Int
    /// The image's full length, when the server said.
    var expectedLength: Int?
    /// The image type, once the first bytes told it.
    var imageType: ImageType?
    /// The image's dimensions, once its header arrived; zero before.
    var dimensions: CGSize
    /// Whether the download resumes a cached partial (the server answered 206).
    var isResumed: Bool
    /// The download's shared partial image, made as soon as the type was known when a member may render
    /// progressively (see ``ImageDownloadRequest/rendering``).
    var partialImage: PartialImage?

    /// Bytes held / full length, at most 0.999 (the last step belongs to the final image); 0 when the
    /// length is unknown.
    var progress: Float {
        guard let expectedLength, expectedLength > 0 else { return 0 }
        return min(0.999, Float(totalByteCount) / Float(expectedLength))
    }
}

/// A finished download, as one member sees it.
struct ImageDownloadResult: Sendable {
    /// Every byte of the image (a resumed partial included).
    var data: Data
    /// The URL.
    var url: URL
    /// The type detected from the bytes, if any.
    var imageType: ImageType?
    /// The dimensions from the image's header (zero when no codec read it).
    var dimensions: CGSize
    /// Whether the image is an animation (as far as its header says).
    var isAnimated: Bool
    /// Where the bytes came from: `network`, `networkResumed` (the server answered 206 to a resume),
    /// `memoryCache` (a download of the URL committed them just before this member asked), or, after a
    /// revalidation (``wasRevalidated``), the cache that held them.
    var source: ImageLoadSource
    /// Whether the bytes completed a cached partial (the server answered 206).
    var wasResumed: Bool { source == .networkResumed }
    /// The final HTTP response.
    var response: HTTPURLResponse?
    /// Whether the download committed the bytes to the caches (only bodies the catalogue reads are committed).
    var wasCommitted: Bool
    /// Whether the complete image was written to the pipeline's disk cache.
    var wasStoredOnDisk: Bool
    /// The request that was sent (hydrated, with any `Authorization` header removed).
    var sentRequest: URLRequest?
    /// The download provider's own metrics, if it has any.
    var providerMetrics: (any Sendable)?
    /// Seconds from the provider starting the request to the last byte.
    var networkLoadDuration: TimeInterval
    /// Whether the server confirmed a cached image (`304 Not Modified`): the bytes are the cache's, and
    /// ``source`` says which cache held them (`diskCache`, or `memoryCache` when only the memory cache did).
    var wasRevalidated = false
    /// How long the image may be served without revalidation (nil with HTTP caching off).
    var freshness: CacheFreshness?
    /// Whether the image may be kept (false for `no-store`): then no cache holds it, the rendered one included.
    var isStorable = true
}
