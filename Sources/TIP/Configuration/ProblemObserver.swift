/// A named problem the pipeline noticed but handled (TIP's problem names, e.g.
/// `TIPProblemImageFailedToScale`). Reported to ``GlobalConfiguration/problemObserver``.
public struct Problem: RawRepresentable, Hashable, Sendable, CustomStringConvertible {
    /// TIP's problem name.
    public let rawValue: String
    /// Wraps a problem name.
    public init(rawValue: String) { self.rawValue = rawValue }
    /// The problem's name: TIP's string constant, for logs.
    public var description: String { rawValue }

    /// A disk-cache file name could not be made for an identifier (the empty identifier, which would name the
    /// directory itself); nothing was written. User info: `imageIdentifier`, `imageURL`, `path`.
    public static let diskCacheUpdateImageEntryCouldNotGenerateFileName = Problem(
        rawValue: "TIPProblemDiskCacheUpdateImageEntryCouldNotGenerateFileName")
    /// Scaling an image failed; the unscaled image was used. Posted when the scaled image would be larger than
    /// the fetch's maximum pixel count. User info: `dimensions`, `targetDimensions`, `targetContentMode`,
    /// `scaledDimensions`, `animated`.
    public static let imageFailedToScale = Problem(rawValue: "TIPProblemImageFailedToScale")
    /// A fetch asked for target dimensions that are neither zero nor positive on both sides; it goes on at the
    /// image's own size. User info: `targetDimensions`, `targetContentMode`, `imageIdentifier`, `imageURL`,
    /// `fetchRequest`.
    public static let imageFetchHasInvalidTargetDimensions = Problem(
        rawValue: "TIPProblemImageFetchHasInvalidTargetDimensions")
    /// A downloaded image carries GPS information (an EXIF GPS directory); it is still delivered. User info:
    /// `imageURL`.
    public static let imageDownloadedHasGPSInfo = Problem(rawValue: "TIPProblemImageDownloadedHasGPSInfo")
    /// A downloaded image could not be decoded.
    public static let imageDownloadedCouldNotBeDecoded = Problem(rawValue: "TIPProblemImageDownloadedCouldNotBeDecoded")
    /// An image was over the disk cache's per-entry cap and was not stored.
    public static let imageTooLargeToStoreInDiskCache = Problem(rawValue: "TIPProblemImageTooLargeToStoreInDiskCache")
    /// All bytes arrived but the transport reported an error; the error was dropped.
    public static let imageDownloadedWithUnnecessaryError = Problem(
        rawValue: "TIPProblemImageDownloadedWithUnnecessaryError")

    // Beyond TIP: disk faults that Linux servers meet.

    /// Writing to the disk cache failed (full disk, read-only or vanished directory); memory caches
    /// keep working. User info: `path`, `error`.
    public static let diskCacheWriteFailed = Problem(rawValue: "TIPProblemDiskCacheWriteFailed")
    /// A pipeline's disk cache directory cannot hold files (the caches root is a file, in `/proc`, read-only, not
    /// writable by this user...), checked when the pipeline stands up; its images are cached in memory only.
    /// User info: `path`, `error` (`"EACCES (13)"`), `errno` (an `Int`).
    public static let diskCacheDirectoryUnusable = Problem(rawValue: "TIPProblemDiskCacheDirectoryUnusable")
    /// The disk cache directory had to be recreated. User info: `path`.
    public static let diskCacheDirectoryRecreated = Problem(rawValue: "TIPProblemDiskCacheDirectoryRecreated")
    /// A complete disk-cache entry could not be decoded when read, and the fetch went on to the next source. A
    /// damaged file (corrupt, cut short, not an image) was removed; one refused by this request or process alone
    /// (a pixel limit, a codec not registered here, an unsupported feature) stays. User info: `imageIdentifier`,
    /// `imageURL`, `path`, `error`.
    public static let diskCacheEntryCouldNotBeDecoded = Problem(rawValue: "TIPProblemDiskCacheEntryCouldNotBeDecoded")
    /// A disk-cache file's length or CRC-32 no longer matched what its metadata recorded when it was written
    /// (truncated, overwritten, swapped with another entry's file, bit rot); it was removed and the image is
    /// fetched again. User info: `imageIdentifier`, `imageURL`, `path`, `error` (what did not match).
    public static let diskCacheEntryDamaged = Problem(rawValue: "TIPProblemDiskCacheEntryDamaged")
}

/// Keys of a problem's user info (TIP's `TIPProblemInfoKey*`).
public enum ProblemInfoKey {
    /// The image identifier.
    public static let imageIdentifier = "imageIdentifier"
    /// The identifier's disk-safe file name.
    public static let safeImageIdentifier = "safeImageIdentifier"
    /// The image URL.
    public static let imageURL = "imageURL"
    /// The requested target dimensions.
    public static let targetDimensions = "targetDimensions"
    /// The requested content mode.
    public static let targetContentMode = "targetContentMode"
    /// The dimensions after scaling.
    public static let scaledDimensions = "scaledDimensions"
    /// The fetch request.
    public static let fetchRequest = "fetchRequest"
    /// The image dimensions.
    public static let dimensions = "dimensions"
    /// Whether the image is animated.
    public static let animated = "animated"
    /// A file path.
    public static let path = "path"
    /// An error's description.
    public static let error = "error"
    /// The POSIX error number of a file-system problem (an `Int`).
    public static let errno = "errno"
    /// The HTTP status code of the response (an `Int`).
    public static let httpStatusCode = "httpStatusCode"
    /// The HTTP response headers (`[String: String]`; an `Authorization` header is never included).
    public static let httpResponseHeaders = "httpResponseHeaders"
}

/// Told about problems the pipeline handled (TIP's `TIPProblemObserver`). Called synchronously on
/// the thread that hit the problem: keep it quick and thread-safe.
public protocol ProblemObserver: AnyObject, Sendable {
    /// A problem happened; `userInfo` uses ``ProblemInfoKey`` keys.
    func problemWasEncountered(_ problem: Problem, userInfo: [String: any Sendable])
}
