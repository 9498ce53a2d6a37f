import Foundation

/// How a fetch treats the caches (TIP's `TIPImageFetchOptions`, bits 1-4, plus this port's write switches and
/// processed-image storage, bits 8-32).
///
/// ```swift
/// request.options = [.skipStoringToDiskCache]                  // Nuke's .disableDiskCacheWrites
/// request.options = [.storeProcessedImageToDiskCache]          // Nuke's dataCachePolicy .storeEncodedImages
/// ```
///
/// What a fetch may *read* is ``ImageFetchLoadingSources``; what it *writes* is these options. A download shared
/// with other fetches writes what the fetch that started it allows.
public struct ImageFetchOptions: OptionSet, Sendable, Hashable {
    /// The bits.
    public let rawValue: Int
    /// Options from raw bits.
    public init(rawValue: Int) { self.rawValue = rawValue }

    /// Reads of the entries this fetch touches do not refresh their expiry or recency (1).
    public static let doNotResetExpiryOnAccess = ImageFetchOptions(rawValue: 1)
    /// The image is a placeholder: never rendered-cached, partials never kept, displaced by any real image (2).
    public static let treatAsPlaceholder = ImageFetchOptions(rawValue: 2)
    /// The delivered image is not stored in the rendered-image cache (4).
    public static let skipStoringToRenderedCache = ImageFetchOptions(rawValue: 4)
    /// Beyond TIP: the image's encoded bytes are not stored in the memory (encoded-data) cache: neither a download
    /// this fetch starts nor a disk hit puts them there (8).
    public static let skipStoringToMemoryCache = ImageFetchOptions(rawValue: 8)
    /// Beyond TIP: nothing is written to the disk cache for this fetch: a download it starts keeps no file (and no
    /// resumable partial on disk), and no processed image is stored (16).
    public static let skipStoringToDiskCache = ImageFetchOptions(rawValue: 16)
    /// Beyond TIP: a fetch with ``ImageFetchRequest/processors``, or with target dimensions its (still) final image
    /// was scaled down to, also stores that final image, encoded (PNG with transparency, JPEG at TIP's store quality
    /// otherwise, GIF when animated), in the disk cache under an identity of its own (the original's entry stays),
    /// and reads it back first: a later fetch of the same URL, target and processors, even in a new process, gets
    /// the thumbnail without decoding the original, and reports the original's dimensions (32).
    public static let storeProcessedImageToDiskCache = ImageFetchOptions(rawValue: 32)
}
