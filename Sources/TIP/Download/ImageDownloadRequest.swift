import Foundation

/// What a fetch asks the downloader for. Fetches whose URL, identifier, hydrator, authorizer (by identity)
/// and pipeline match share one download, as in TIP; the other fields come from the first fetch.
struct ImageDownloadRequest: Sendable {
    /// The image URL.
    var url: URL
    /// The cache identifier (defaults to the URL's string).
    var identifier: String
    /// The pipeline whose caches keep the bytes (partials and the complete file); nil caches nothing. Held weakly: the
    /// members hold it (a download's last members hear of its end only after its bytes are committed), and nothing
    /// of a download may keep a pipeline alive once its members let go (the `async` API's promise that a pipeline
    /// dropped after `try await` is gone).
    weak var pipeline: ImagePipeline?
    /// Adds headers before the request is sent.
    var hydrator: ImageRequestHydrator?
    /// Gives the `Authorization` value.
    var authorizer: ImageRequestAuthorizer?
    /// Seconds the cached entries live after their last access.
    var timeToLive: TimeInterval = MemoryCacheCompleteImage.defaultTimeToLive
    /// Whether cache reads refresh the entries' expiry (false: TIP's `doNotResetExpiryOnAccess`).
    var updatesExpiryOnAccess = true
    /// Whether the image is a placeholder (its partials are never kept).
    var isPlaceholder = false
    /// Whether a cached partial may be resumed (TIP's `networkResumed` loading source).
    var allowsResume = true
    /// Whether a whole download is allowed (TIP's `network` loading source); without it only a resume may run.
    var allowsFullDownload = true
    /// Whether the memory cache's complete image of the URL may be revalidated, and then served, instead of a new
    /// download (fetches allowing the memory cache source; the configuration's
    /// ``GlobalConfiguration/followsHTTPCachingHeaders`` too).
    var revalidatesMemoryCopy = false
    /// The same for the disk cache's complete image (fetches allowing the disk cache source).
    var revalidatesDiskCopy = false
    /// Whether a cached complete image may be revalidated at all.
    var allowsRevalidation: Bool { revalidatesMemoryCopy || revalidatesDiskCopy }
    /// Whether the bytes a download of the URL committed to the memory cache may answer this request instead of a
    /// new download (fetches allowing TIP's `memoryCache` source; off for plain downloads).
    var allowsCommittedImage = false
    /// Whether the complete image (or a resumable partial) goes into the memory cache (false: the fetch's
    /// `skipStoringToMemoryCache`).
    var storesToMemoryCache = true
    /// Whether the bytes are written to a disk-cache file (false: the fetch's `skipStoringToDiskCache`).
    var storesToDiskCache = true
    /// What the member may render while bytes arrive; nil: nothing. Not part of the coalescing key.
    var rendering: ImageDownloadRendering?
    /// The most pixels an image may have to be decoded and cached (the first member's).
    var maximumPixelCount = ImageDecodingOptions.defaultMaximumPixelCount

    /// A request for `url` (identifier: the URL's absolute string).
    init(
        url: URL, identifier: String? = nil, pipeline: ImagePipeline? = nil,
        hydrator: ImageRequestHydrator? = nil, authorizer: ImageRequestAuthorizer? = nil
    ) {
        self.url = url
        self.identifier = identifier ?? url.absoluteString
        self.pipeline = pipeline
        self.hydrator = hydrator
        self.authorizer = authorizer
    }

    /// The coalescing key.
    var joinKey: ImageDownloadKey {
        ImageDownloadKey(
            url: url, identifier: identifier,
            pipeline: pipeline.map(ObjectIdentifier.init),
            hydrator: hydrator.map(ObjectIdentifier.init),
            authorizer: authorizer.map(ObjectIdentifier.init))
    }
}

/// Identifies downloads that fetches may share.
struct ImageDownloadKey: Hashable, Sendable {
    var url: URL
    var identifier: String
    var pipeline: ObjectIdentifier?
    var hydrator: ObjectIdentifier?
    var authorizer: ObjectIdentifier?
}

extension ImageDownloadRequest {
    /// The download a fetch `request` asks for, cached in `pipeline`.
    init(fetchRequest request: any ImageFetchRequest, pipeline: ImagePipeline?) {
        self.init(
            url: request.imageURL, identifier: request.resolvedImageIdentifier, pipeline: pipeline,
            hydrator: request.imageRequestHydrator, authorizer: request.imageRequestAuthorizer)
        timeToLive = request.resolvedTimeToLive
        updatesExpiryOnAccess = !request.options.contains(.doNotResetExpiryOnAccess)
        isPlaceholder = request.options.contains(.treatAsPlaceholder)
        allowsResume = request.loadingSources.allows(.networkResumed)
        allowsFullDownload = request.loadingSources.allows(.network)
        allowsCommittedImage = request.loadingSources.allows(.memoryCache)
        revalidatesMemoryCopy = request.loadingSources.allows(.memoryCache)
        revalidatesDiskCopy = request.loadingSources.allows(.diskCache)
        storesToMemoryCache = !request.options.contains(.skipStoringToMemoryCache)
        storesToDiskCache = !request.options.contains(.skipStoringToDiskCache)
        maximumPixelCount = request.resolvedMaximumPixelCount(pipeline?.configuration)
    }
}

/// What a member may render while its download's bytes arrive: progressive scans of some types, the first
/// frame of animations. A download makes its shared partial image as soon as the type is known when a member
/// may render that type, so that even a body arriving in one chunk can show a scan.
struct ImageDownloadRendering: Sendable {
    /// The sizing the member renders at (the partial image decodes for the first such member's sizing).
    var targetDimensions: CGSize
    /// How the member's target is filled.
    var targetContentMode: ContentMode
    /// The types whose progressive scans the member may ask for (it decides once the header arrived).
    var progressiveTypes: Set<ImageType>
    /// Whether the member shows an animation's first frame early.
    var rendersFirstFrames: Bool

    /// Whether the member may render an image of `type`.
    func mayRender(_ type: ImageType, catalogue: CodecCatalogue = .shared) -> Bool {
        progressiveTypes.contains(type) || (rendersFirstFrames && catalogue.supportsAnimation(type))
    }
}
