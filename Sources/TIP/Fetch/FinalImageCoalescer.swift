import Foundation

/// Lets concurrent fetches of one image (same identifier, URL, target sizing, transformer and processors) decode and
/// process it once: the first fetch about to make the final image becomes its producer, fetches arriving meanwhile
/// wait for its result instead of making their own, and a fetch arriving after it finished finds it in the rendered
/// cache (looked up under the same lock, so there is no gap between the two).
///
/// ```swift
/// switch coalescer.enter(key, lookup: { renderedImage() }, waiter: { image in ... }) {
/// case .producer: ...   // make it, then coalescer.finish(key, with: image)
/// case .joined: break   // `waiter` gets the producer's image (nil: make it yourself)
/// case .cached(let image): ...
/// }
/// ```
///
/// One per pipeline. Thread-safe: one lock, held while `lookup` runs (which may take the rendered cache's lock:
/// never call back into the coalescer from it).
final class FinalImageCoalescer: Sendable {
    /// What makes two fetches' final images the same.
    struct Key: Hashable, Sendable {
        var identifier: String
        var url: URL
        var targetWidth: Double
        var targetHeight: Double
        var contentMode: Int
        /// The rendered-cache variant (transformer and processors).
        var variant: String?
        var isPlaceholder: Bool
        var maximumPixelCount: Int

        /// The key of `request`'s final image, with `configuration`'s maximum pixel count when the request has none
        /// (``ImagePrefetcher`` keys its prefetches by it too).
        init(request: any ImageFetchRequest, processing: ImageFetchProcessing, configuration: GlobalConfiguration?) {
            identifier = request.resolvedImageIdentifier
            url = request.imageURL
            targetWidth = Double(request.targetDimensions.width)
            targetHeight = Double(request.targetDimensions.height)
            contentMode = request.targetContentMode.rawValue
            variant = processing.lookupVariant
            isPlaceholder = request.options.contains(.treatAsPlaceholder)
            maximumPixelCount = request.resolvedMaximumPixelCount(configuration)
        }
    }

    /// A fetch's part in making a final image.
    enum Role {
        /// Nobody makes it yet: this fetch does, and calls ``FinalImageCoalescer/finish(_:with:)``.
        case producer
        /// Another fetch makes it: the waiter gets its image.
        case joined
        /// Already made: here it is.
        case cached(ImageFetchFinalImage)
    }

    private let jobs = Locked<[Key: [@Sendable (ImageFetchFinalImage?) -> Void]]>([:])

    /// Joins the fetch making `key`'s image (`waiter` then gets the image, or nil when that fetch made none, on the
    /// producer's thread); else returns what `lookup` finds; else makes the caller the producer.
    func enter(
        _ key: Key, lookup: () -> ImageFetchFinalImage?,
        waiter: @escaping @Sendable (ImageFetchFinalImage?) -> Void
    ) -> Role {
        jobs.withLock { jobs in
            if jobs[key] != nil {
                jobs[key]?.append(waiter)
                return .joined
            }
            if let found = lookup() { return .cached(found) }
            jobs[key] = []
            return .producer
        }
    }

    /// The producer of `key` is done: every waiter gets `image` (nil: it made none; the waiters try themselves).
    /// Call it after the image is in the rendered cache, so that a fetch arriving now finds it there.
    func finish(_ key: Key, with image: ImageFetchFinalImage?) {
        let waiters = jobs.withLock { $0.removeValue(forKey: key) } ?? []
        var shared = image
        shared?.bytes = nil
        for waiter in waiters { waiter(shared) }
    }

    /// Final images being made (for tests).
    var inFlightCount: Int { jobs.withLock { $0.count } }
}
