import Foundation

/// What one pipeline's caches hold (TIP's `TIPImagePipelineInspectionResult`).
///
/// ```swift
/// pipeline.inspect { result in print(result.completeDiskEntries.count, result.onDiskBytesUsed) }
/// ```
public struct ImagePipelineInspectionResult: Sendable {
    /// One cache entry.
    public struct Entry: Sendable {
        /// The image identifier.
        public let identifier: String
        /// The URL of the variant held.
        public let url: URL?
        /// Its dimensions in pixels.
        public let dimensions: CGSize
        /// Bytes used: decoded bytes in the rendered cache, encoded bytes in memory, file size on disk.
        public let bytesUsed: Int64
        /// 1 for a complete entry; for a partial one, bytes held / expected bytes (at most 0.999).
        public let progress: Float
        /// Seconds the entry lives after its last access (nil where the cache has no TTL).
        public let timeToLive: TimeInterval?
        /// When the entry was last read or written (nil where not tracked).
        public let lastAccess: Date?
        /// The image itself, for rendered entries.
        public let image: ImageContainer?
        /// The encoded image's type, where the cache knows it (memory and disk entries).
        public let imageType: ImageType?
        /// Whether the image is animated (as far as its header said).
        public let isAnimated: Bool
        /// Whether the image is a placeholder (any real image replaces it).
        public let isPlaceholder: Bool
        /// Whether reads refresh the entry's expiry (false: the request asked `doNotResetExpiryOnAccess`).
        public let updatesExpiryOnAccess: Bool
        /// A partial entry's full length in bytes, when the server said; nil for complete entries.
        public let expectedLength: Int64?
        /// The `Last-Modified` validator a partial entry resumes with, if any.
        public let lastModified: String?
        /// The entity tag (`ETag`) a partial entry resumes with, if any.
        public let entityTag: String?

        /// An entry; `progress` is clamped to 0...1.
        public init(
            identifier: String, url: URL?, dimensions: CGSize, bytesUsed: Int64, progress: Float = 1,
            timeToLive: TimeInterval? = nil, lastAccess: Date? = nil, image: ImageContainer? = nil,
            imageType: ImageType? = nil, isAnimated: Bool = false, isPlaceholder: Bool = false,
            updatesExpiryOnAccess: Bool = true, expectedLength: Int64? = nil, lastModified: String? = nil,
            entityTag: String? = nil
        ) {
            self.identifier = identifier
            self.url = url
            self.dimensions = dimensions
            self.bytesUsed = bytesUsed
            self.progress = min(max(progress, 0), 1)
            self.timeToLive = timeToLive
            self.lastAccess = lastAccess
            self.image = image
            self.imageType = imageType
            self.isAnimated = isAnimated
            self.isPlaceholder = isPlaceholder
            self.updatesExpiryOnAccess = updatesExpiryOnAccess
            self.expectedLength = expectedLength
            self.lastModified = lastModified
            self.entityTag = entityTag
        }
    }

    /// The inspected pipeline's identifier.
    public let imagePipelineIdentifier: String
    /// Rendered images (empty while the rendered cache is weak in the background).
    public let completeRenderedEntries: [Entry]
    /// Complete encoded images in memory.
    public let completeMemoryEntries: [Entry]
    /// Partial encoded images in memory.
    public let partialMemoryEntries: [Entry]
    /// Complete image files on disk.
    public let completeDiskEntries: [Entry]
    /// Partial image files on disk.
    public let partialDiskEntries: [Entry]

    /// Bytes the rendered and memory caches use.
    public var inMemoryBytesUsed: Int64 {
        (completeRenderedEntries + completeMemoryEntries + partialMemoryEntries).reduce(0) { $0 + $1.bytesUsed }
    }

    /// Bytes the disk cache uses.
    public var onDiskBytesUsed: Int64 {
        (completeDiskEntries + partialDiskEntries).reduce(0) { $0 + $1.bytesUsed }
    }
}
