import Foundation

#if canImport(Glibc)
import Glibc
#endif

extension ImagePipeline {
    /// The identifier of ``shared``: `default` (its disk cache is `<cachesRootDirectory>/TIPImagePipeline/default/`).
    public static let sharedIdentifier = "default"

    /// A pipeline ready to use (beyond TIP, where every app makes its own): identifier `default`, on
    /// ``GlobalConfiguration/shared``, made on first use and kept for the life of the process. A live pipeline
    /// that already has the identifier (`ImagePipeline(identifier: "default")`) is that pipeline.
    ///
    /// ```swift
    /// let thumbnail = try await ImagePipeline.shared.image(
    ///     for: url, targetDimensions: CGSize(width: 200, height: 200))
    /// ```
    ///
    /// Set ``GlobalConfiguration/cachesRootDirectory`` before first using it. Thread-safe.
    public static var shared: ImagePipeline {
        sharedStorage.withLock { stored in
            if let stored { return stored }
            let pipeline = makeShared(configuration: .shared)
            stored = pipeline
            return pipeline
        }
    }

    private static let sharedStorage = Locked<ImagePipeline?>(nil)

    /// The live pipeline `default` of `configuration`, made when there is none. Another thread may be making one
    /// at the same time (the identifier is then reserved but not yet live): wait for it.
    static func makeShared(configuration: GlobalConfiguration) -> ImagePipeline {
        while true {
            if let live = configuration.registry.pipeline(withIdentifier: sharedIdentifier) { return live }
            do {
                return try ImagePipeline(checkedIdentifier: sharedIdentifier, configuration: configuration)
            } catch {
                sched_yield()  // .alreadyInUse: another thread is standing it up (the identifier is valid)
            }
        }
    }

    /// Fetches the image at `url` at a size, in one line (beyond TIP; Nuke's `ImagePipeline.shared.image(for: url)`).
    ///
    /// ```swift
    /// let image = try await ImagePipeline.shared.image(for: url, targetDimensions: CGSize(width: 400, height: 400))
    /// ```
    ///
    /// `targetDimensions`: the pixel size to fit (default zero: the image's own size); `contentMode`: how it fits
    /// (default `.scaleAspectFit`: the whole image within the size, aspect kept). The URL is the cache identifier;
    /// every cache is used as by ``fetchImage(for:)``, which this calls (so it never waits for the callback queue,
    /// and cancelling the task throws `CancellationError`). For more (an identifier of your own, previews,
    /// progressive scans, metrics) build a ``GenericImageFetchRequest``.
    public func image(
        for url: URL, targetDimensions: CGSize = .zero,
        contentMode: ContentMode = .scaleAspectFit
    ) async throws -> ImageContainer {
        let request = GenericImageFetchRequest(
            imageURL: url, identifier: nil, targetDimensions: targetDimensions,
            targetContentMode: contentMode)
        return try await fetchImage(for: request).imageContainer
    }
}
