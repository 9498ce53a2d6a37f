import Foundation

/// How a stored image is kept (TIP's `TIPImageStoreOptions`; same bits as the fetch options).
public struct ImageStoreOptions: OptionSet, Sendable, Hashable {
    /// The options as bits, TIP's values.
    public let rawValue: Int
    /// Options from raw bits.
    public init(rawValue: Int) { self.rawValue = rawValue }
    /// Reads do not refresh the entry's expiry or recency (1).
    public static let doNotResetExpiryOnAccess = ImageStoreOptions(rawValue: 1)
    /// The image is a placeholder: displaced by any real image (2).
    public static let treatAsPlaceholder = ImageStoreOptions(rawValue: 2)
}

/// What to store in a pipeline's caches (TIP's `TIPImageStoreRequest`): the URL, and at least one of an image,
/// encoded data or a file.
public protocol ImageStoreRequest: Sendable {
    /// The URL the image stands for.
    var imageURL: URL { get }
    /// The cache key; nil: the URL's absolute string. Default nil.
    var imageIdentifier: String? { get }
    /// Seconds the entries live after their last access; 0 or less: 30 days. Default 30 days.
    var timeToLive: TimeInterval { get }
    /// How the entries are kept. Default none.
    var options: ImageStoreOptions { get }
    /// The decoded image. Default nil.
    var image: ImageContainer? { get }
    /// The encoded image (the only form the memory cache keeps). Default nil.
    var imageData: Data? { get }
    /// A file holding the encoded image (copied into the disk cache). Default nil.
    var imageFilePath: String? { get }
    /// The encoded type (for encoding `image`, or as a hint). Default nil.
    var imageType: ImageType? { get }
    /// The dimensions of `imageData` or the file, when known. Default zero (read from the bytes).
    var imageDimensions: CGSize { get }
    /// Completes the request before it is stored. Default nil.
    var hydrater: (any ImageStoreRequestHydrater)? { get }
}

extension ImageStoreRequest {
    /// Nil: the entries are keyed by the URL's absolute string.
    public var imageIdentifier: String? { nil }
    /// Thirty days (`ImageFetchRequestDefaults.timeToLive`), refreshed by every read.
    public var timeToLive: TimeInterval { ImageFetchRequestDefaults.timeToLive }
    /// No options: a normal entry (not a placeholder) whose reads refresh its expiry and recency.
    public var options: ImageStoreOptions { [] }
    /// Nil: supply the image as `imageData` or `imageFilePath` instead.
    public var image: ImageContainer? { nil }
    /// Nil: without encoded data the memory cache keeps nothing for this store.
    public var imageData: Data? { nil }
    /// Nil: no file to copy into the disk cache.
    public var imageFilePath: String? { nil }
    /// Nil: read from the bytes; an `image` alone is encoded as `CodecCatalogue.recommendedImageType(for:)` says.
    public var imageType: ImageType? { nil }
    /// Zero: the dimensions are read from the image's header.
    public var imageDimensions: CGSize { .zero }
    /// Nil: the request is stored as it is.
    public var hydrater: (any ImageStoreRequestHydrater)? { nil }
}

/// Completes a store request before it is stored (TIP's `TIPImageStoreRequestHydrater`).
public protocol ImageStoreRequestHydrater: Sendable {
    /// Calls `completion` once, from any thread, with the request to store (nil: the original) or an error
    /// (the store then fails with it).
    func hydrate(
        _ request: any ImageStoreRequest, pipeline: ImagePipeline,
        completion: @escaping @Sendable ((any ImageStoreRequest)?, (any Error)?) -> Void)
}

/// A plain store request with every member settable.
public struct GenericImageStoreRequest: ImageStoreRequest {
    /// The URL the image stands for.
    public var imageURL: URL
    /// The cache key; nil: the URL's absolute string.
    public var imageIdentifier: String?
    /// Seconds the entries live after their last access.
    public var timeToLive: TimeInterval = ImageFetchRequestDefaults.timeToLive
    /// How the entries are kept.
    public var options: ImageStoreOptions = []
    /// The decoded image.
    public var image: ImageContainer?
    /// The encoded image.
    public var imageData: Data?
    /// A file holding the encoded image.
    public var imageFilePath: String?
    /// The encoded type.
    public var imageType: ImageType?
    /// The dimensions of the data or file, when known.
    public var imageDimensions: CGSize = .zero
    /// Completes the request before it is stored.
    public var hydrater: (any ImageStoreRequestHydrater)?

    /// A request for `imageURL` with nothing to store yet.
    public init(imageURL: URL, identifier: String? = nil) {
        self.imageURL = imageURL
        self.imageIdentifier = identifier
    }
}

/// A store error in TIP's `TIPImageStoreErrorDomain`.
public struct ImageStoreError: Error, Sendable, CustomNSError, CustomStringConvertible, Equatable {
    /// TIP's store error codes.
    public enum Code: Int, Sendable {
        /// A failure TIP has no code for.
        case unknown = 0
        /// No image, data or file was given.
        case imageNotProvided = 1
        /// No URL was given.
        case imageURLNotProvided = 2
        /// The pipeline has no cache to store into.
        case noCacheForStoring = 3
        /// The image could not be written to the caches.
        case storageFailed = 4
    }
    /// What went wrong.
    public let code: Code
    /// What happened, for people.
    public let message: String
    /// An error with `code` and `message`.
    public init(_ code: Code, _ message: String) {
        self.code = code
        self.message = message
    }
    /// `TIPImageStoreErrorDomain`.
    public static var errorDomain: String { "TIPImageStoreErrorDomain" }
    /// The raw code.
    public var errorCode: Int { code.rawValue }
    /// The message under `NSLocalizedDescriptionKey`.
    public var errorUserInfo: [String: Any] { [NSLocalizedDescriptionKey: message] }
    /// The error's message (also under `NSLocalizedDescriptionKey`), for `print` and string interpolation.
    public var description: String { message }
}
