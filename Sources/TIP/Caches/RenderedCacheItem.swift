import Foundation

/// One rendered image of an identifier: the image at one size, the transformer that produced it,
/// the dimensions of the image it was rendered from, and whether it was marked dirty.
///
/// The image is held strongly, except while the rendered cache is weak (in the background): then only
/// a weak reference and the descriptor remain, and the item survives only if something else still
/// holds the image. A value type owned by a ``RenderedCacheCollection``; guarded like it.
struct RenderedCacheItem {
    private var strongImage: ImageContainer?
    private weak var weakImage: ImageContainer?
    /// Dimensions and byte count of the image, known even while it is held weakly.
    let descriptor: RenderedImageDescriptor
    /// The identity of what changed the image: the transformer's identifier (TIP), or a processed variant's
    /// identity (see `ImageFetchProcessing.variant(transformed:)`); nil for a plain image.
    let transformerIdentifier: String?
    /// Whether the image matches lookups by `transformerIdentifier` alone (processed images, whose identity names
    /// the target sizing and whose size is whatever their processors made) instead of TIP's sizing rule.
    let matchesTargetExactly: Bool
    /// Dimensions of the decoded image this one was rendered from.
    let originalDimensions: CGSize
    /// The URL the image was loaded from, when the caller knew it (for inspection only).
    let url: URL?
    /// Whether the item was marked dirty: it still serves a preview, but fetches must load again, and
    /// the next store of the same size replaces it.
    var isDirty: Bool
    /// When the image it was rendered from stops being fresh (HTTP caching); nil: never. A stale item is
    /// treated as dirty from its first lookup on.
    let freshUntil: Date?

    /// A clean item holding `image` strongly.
    init(
        image: ImageContainer, transformerIdentifier: String?, originalDimensions: CGSize, url: URL?,
        freshUntil: Date? = nil, matchesTargetExactly: Bool = false
    ) {
        self.strongImage = image
        self.descriptor = RenderedImageDescriptor(image)
        self.transformerIdentifier = transformerIdentifier
        self.matchesTargetExactly = matchesTargetExactly
        self.originalDimensions = originalDimensions
        self.url = url
        self.isDirty = false
        self.freshUntil = freshUntil
    }

    /// Whether the image it was rendered from must be revalidated at `now`.
    func isStale(at now: Date) -> Bool { freshUntil.map { now >= $0 } ?? false }

    /// The image, if it is held strongly or still alive elsewhere.
    var image: ImageContainer? { strongImage ?? weakImage }
    /// Pixel dimensions of the image.
    var dimensions: CGSize { descriptor.dimensions }
    /// Bytes the image takes in memory.
    var byteCount: Int64 { descriptor.byteCount }
    /// Whether the image is held only weakly.
    var isWeak: Bool { strongImage == nil }

    /// Keeps only a weak reference to the image.
    mutating func weakify() {
        guard let strongImage else { return }
        weakImage = strongImage
        self.strongImage = nil
    }

    /// Holds the image strongly again; false when it was released meanwhile.
    mutating func strongify() -> Bool {
        guard let image = strongImage ?? weakImage else { return false }
        strongImage = image
        weakImage = nil
        return true
    }
}
