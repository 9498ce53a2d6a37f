import Foundation

/// An image pipeline: a rendered-image cache, an encoded-data memory cache and a disk cache under one
/// identifier, through which images are fetched and stored (TIP's `TIPImagePipeline`).
///
/// ```swift
/// guard let pipeline = ImagePipeline(identifier: "avatars") else { fatalError("identifier in use") }
/// pipeline.clearMemoryCaches()
/// ```
///
/// Identifiers are non-empty, use only `A-Z a-z 0-9 . _ -` (not `.` or `..`), and belong to one live
/// pipeline at a time. The disk cache lives in `<cachesRootDirectory>/TIPImagePipeline/<identifier>/`
/// and outlives the pipeline: a new pipeline with the same identifier finds the old entries.
/// Thread-safe.
public final class ImagePipeline: Sendable {
    /// The pipeline's identifier.
    public let identifier: String
    /// The configuration whose budgets and settings this pipeline uses.
    let configuration: GlobalConfiguration
    /// `<root>/TIPImagePipeline/<identifier>`.
    let directory: URL
    let renderedCache: RenderedCache
    let memoryCache: MemoryCache
    let diskCache: DiskCache
    /// Lets concurrent fetches of one image at one target with the same processing make it once.
    let finalImages = FinalImageCoalescer()
    /// Processed-image identifiers whose image is not stored on disk whatever the fetch (unscaled, `no-store`, a
    /// placeholder): fetches asking for them take rendered-cache hits, as there is nothing to store.
    let unstorableProcessedImages = UnstorableProcessedImages()

    /// The door fetches and downloads use to read and write the three caches.
    var caches: ImagePipelineCaches { ImagePipelineCaches(pipeline: self) }

    private let state = Locked<(any ImagePipelineObserver)?>(nil)
    private let additionalCacheList = Locked<[any ImageAdditionalCache]>([])

    /// Posted (object: the pipeline) when a pipeline is created.
    public static let didStandUpNotification = Notification.Name("TIPImagePipelineDidStandUpImagePipelineNotification")
    /// Posted (object: nil; user info `imagePipelineId`) when a pipeline is torn down.
    public static let didTearDownNotification = Notification.Name(
        "TIPImagePipelineDidTearDownImagePipelineNotification")
    /// User-info key of the pipeline identifier in notifications.
    public static let notificationPipelineIdentifierKey = "imagePipelineId"

    /// The folder under the caches root that holds one directory per pipeline identifier.
    public static let directoryName = "TIPImagePipeline"

    /// A pipeline using ``GlobalConfiguration/shared``; nil when `identifier` is invalid or a live
    /// pipeline already uses it (the reason is logged; ``init(checkedIdentifier:)`` throws it instead).
    public convenience init?(identifier: String) {
        self.init(identifier: identifier, configuration: .shared)
    }

    /// A pipeline using ``GlobalConfiguration/shared``, or an error that says why there can be none (beyond TIP,
    /// whose initializer returns nil).
    ///
    /// ```swift
    /// let avatars = try ImagePipeline(checkedIdentifier: "avatars")
    /// ```
    ///
    /// Throws ``ImagePipelineIdentifierError/invalid(_:)`` for an identifier with characters other than
    /// `A-Z a-z 0-9 . _ -` (or empty, `.`, `..`), ``ImagePipelineIdentifierError/alreadyInUse(_:)`` while another
    /// live pipeline has it.
    public convenience init(checkedIdentifier identifier: String) throws(ImagePipelineIdentifierError) {
        try self.init(checkedIdentifier: identifier, configuration: .shared)
    }

    /// A pipeline using `configuration` (tests give each pipeline its own configuration and caches root); nil
    /// (and the reason logged) when the identifier is invalid or in use.
    convenience init?(identifier: String, configuration: GlobalConfiguration) {
        do {
            try self.init(checkedIdentifier: identifier, configuration: configuration)
        } catch {
            configuration.log(.error, error.description)
            return nil
        }
    }

    /// A pipeline using `configuration`, or why there can be none.
    init(checkedIdentifier identifier: String, configuration: GlobalConfiguration) throws(ImagePipelineIdentifierError)
    {
        guard ImagePipeline.isValidIdentifier(identifier) else { throw .invalid(identifier) }
        // Claim the identifier first: a duplicate must not open a disk cache on the live one's directory.
        guard configuration.registry.claim(identifier) else { throw .alreadyInUse(identifier) }
        self.identifier = identifier
        self.configuration = configuration
        self.directory = configuration.cachesRootDirectory
            .appendingPathComponent(ImagePipeline.directoryName, isDirectory: true)
            .appendingPathComponent(identifier, isDirectory: true)
        self.renderedCache = RenderedCache(domain: configuration.renderedDomain, configuration: configuration)
        self.memoryCache = MemoryCache(domain: configuration.memoryDomain, configuration: configuration)
        self.diskCache = DiskCache(directory: directory, domain: configuration.diskDomain, configuration: configuration)
        configuration.registry.register(self)
        // An unusable directory is reported now (problem observer and logger, with the real errno), not discovered
        // as fetches that silently cache nothing.
        diskCache.reportIfDirectoryUnusable(pipelineIdentifier: identifier)
        for observer in configuration.imagePipelineObservers {
            observer.imagePipelineDidStandUp(self)
        }
        NotificationCenter.default.post(name: ImagePipeline.didStandUpNotification, object: self)
    }

    deinit {
        renderedCache.tearDown()
        memoryCache.tearDown()
        diskCache.tearDown()
        configuration.registry.unregister(identifier: identifier)
        for observer in configuration.imagePipelineObservers {
            observer.imagePipelineDidTearDown(identifier: identifier)
        }
        NotificationCenter.default.post(
            name: ImagePipeline.didTearDownNotification, object: nil,
            userInfo: [ImagePipeline.notificationPipelineIdentifierKey: identifier])
    }

    /// Whether `identifier` may name a pipeline: 1 to 255 characters (it names the pipeline's cache directory,
    /// and no file system takes a longer name), only `A-Z a-z 0-9 . _ -`, not `.` or `..`.
    public static func isValidIdentifier(_ identifier: String) -> Bool {
        guard !identifier.isEmpty, identifier.utf8.count <= maximumIdentifierLength, identifier != ".",
            identifier != ".."
        else { return false }
        return identifier.utf8.allSatisfy { byte in
            switch byte {
            case UInt8(ascii: "A")...UInt8(ascii: "Z"), UInt8(ascii: "a")...UInt8(ascii: "z"),
                UInt8(ascii: "0")...UInt8(ascii: "9"), UInt8(ascii: "."), UInt8(ascii: "_"), UInt8(ascii: "-"):
                return true
            default:
                return false
            }
        }
    }

    /// The longest identifier a pipeline takes, in bytes: NAME_MAX, the longest file name of Linux file systems.
    public static let maximumIdentifierLength = 255

    /// Caches asked, in order, after the pipeline's own caches and before the network. Default none.
    public var additionalCaches: [any ImageAdditionalCache] {
        get { additionalCacheList.withLock { $0 } }
        set { additionalCacheList.withLock { $0 = newValue } }
    }

    /// This pipeline's observer followed by the global ones.
    var allObservers: [any ImagePipelineObserver] {
        (observer.map { [$0] } ?? []) + configuration.imagePipelineObservers
    }

    /// This pipeline's own observer, besides the global ones. Held strongly. Default nil.
    public var observer: (any ImagePipelineObserver)? {
        get { state.withLock { $0 } }
        set { state.withLock { $0 = newValue } }
    }

    /// The identifiers of every pipeline with a directory under the shared caches root, live or not, as a set;
    /// delivered on the callback queue.
    public static func getKnownImagePipelineIdentifiers(_ completion: @escaping @Sendable (Set<String>) -> Void) {
        GlobalConfiguration.shared.knownImagePipelineIdentifiers(completion)
    }

    // MARK: Clearing

    /// Removes `identifier`'s images from all three caches, processed images stored on disk included.
    public func clearImage(withIdentifier identifier: String) {
        renderedCache.clearImages(withIdentifier: identifier)
        memoryCache.clearImage(withIdentifier: identifier)
        diskCache.clearImage(withIdentifier: identifier)
        diskCache.clearImages(withIdentifierPrefix: ImageFetchProcessing.processedIdentifierPrefix(of: identifier))
    }

    /// Removes `identifier`'s rendered images.
    public func clearRenderedMemoryCacheImage(withIdentifier identifier: String) {
        renderedCache.clearImages(withIdentifier: identifier)
    }

    /// Marks `identifier`'s rendered images dirty: still shown as a synchronous preview, but a fetch
    /// loads the image again.
    public func dirtyRenderedMemoryCacheImage(withIdentifier identifier: String) {
        renderedCache.dirtyImages(withIdentifier: identifier)
    }

    /// Empties the rendered and memory caches.
    public func clearMemoryCaches() {
        renderedCache.clearAll()
        memoryCache.clearAll()
    }

    /// Empties the disk cache: its directory is removed, as TIP does, so the pipeline is no longer among the known
    /// ones until it stores an image again. `completion`, if given, runs on a background queue when done.
    public func clearDiskCache(completion: (@Sendable () -> Void)? = nil) {
        diskCache.clearAll(completion: completion)
    }

    /// Renames `oldIdentifier`'s image to `newIdentifier` in the disk and memory caches (an image only in memory is
    /// renamed there): what `newIdentifier` had is replaced, in every cache, and the rendered variants and stored
    /// processed images of both identifiers go. `completion` gets nil, or `POSIXError(.ENOENT)` when no cache has
    /// the image (`EINVAL` for an empty new identifier), on the callback queue.
    public func changeIdentifierForImage(
        withIdentifier oldIdentifier: String, toIdentifier newIdentifier: String,
        completion: (@Sendable ((any Error)?) -> Void)? = nil
    ) {
        let configuration = self.configuration
        diskCache.domain.async { [self] in
            var failure: (any Error)?
            let inMemory = memoryCache.entry(withIdentifier: oldIdentifier, touch: false)
            let renamed = Result { () throws(POSIXError) in
                try diskCache.changeIdentifier(from: oldIdentifier, to: newIdentifier)
            }
            switch renamed {
            case .success:
                break
            case .failure(let error) where error.code == .ENOENT && inMemory != nil && oldIdentifier != newIdentifier:
                // Only in memory: renamed there; what the new identifier had on disk is replaced by it.
                diskCache.clearImage(withIdentifier: newIdentifier)
            case .failure(let error):
                failure = error
            }
            if failure == nil, oldIdentifier != newIdentifier {
                moveMemoryEntries(from: oldIdentifier, to: newIdentifier, entry: inMemory)
            }
            let result = failure.map { SendableError($0) }
            configuration.dispatchToCallbackQueue { completion?(result?.error) }
        }
    }

    /// After a rename: the image's memory entry moves to `newIdentifier`, whose own entries (memory, rendered, the
    /// processed images on disk) showed the image the rename replaced, and go; the old identifier's processed images
    /// and rendered variants go too.
    private func moveMemoryEntries(from oldIdentifier: String, to newIdentifier: String, entry: MemoryCacheEntry?) {
        for identifier in [oldIdentifier, newIdentifier] {
            renderedCache.clearImages(withIdentifier: identifier)
            memoryCache.clearImage(withIdentifier: identifier)
            diskCache.clearProcessedImages(of: identifier)
        }
        if let entry {
            memoryCache.updateEntry(
                MemoryCacheEntry(identifier: newIdentifier, complete: entry.complete, partial: entry.partial),
                forciblyReplaceExisting: true)
        }
    }

    /// Copies `identifier`'s complete disk file to a temporary file and calls `completion` with its
    /// path on a background queue; the copy is deleted when `completion` returns. Missing entries give
    /// `POSIXError(.ENOENT)`.
    public func copyDiskCacheFile(
        withIdentifier identifier: String, completion: @escaping @Sendable (String?, (any Error)?) -> Void
    ) {
        diskCache.domain.async { [self] in
            do {
                let copy = try diskCache.copyCompleteFile(withIdentifier: identifier)
                DispatchQueue.global(qos: .utility).async {
                    completion(copy.path, nil)
                    try? FileManager.default.removeItem(at: copy)
                }
            } catch {
                let failure = SendableError(error)
                DispatchQueue.global(qos: .utility).async { completion(nil, failure.error) }
            }
        }
    }

    // MARK: Inspection

    /// What the three caches hold, delivered on the callback queue once the disk cache has read its
    /// directory (as TIP, whose disk work waits for the manifest).
    public func inspect(_ completion: @escaping @Sendable (ImagePipelineInspectionResult) -> Void) {
        let configuration = self.configuration
        inspectWhenLoaded { result in configuration.dispatchToCallbackQueue { completion(result) } }
    }

    /// Gathers the inspection on the disk queue once the manifest is loaded and hands it to `body` there.
    func inspectWhenLoaded(_ body: @escaping @Sendable (ImagePipelineInspectionResult) -> Void) {
        diskCache.loadGroup.notify(queue: .global(qos: .utility)) { [self] in
            diskCache.domain.async { [self] in body(inspectNow()) }
        }
    }

    /// The inspection, gathered on the calling thread.
    func inspectNow() -> ImagePipelineInspectionResult {
        let rendered = renderedCache.inspectionEntries()
        let memory = memoryCache.inspectionEntries()
        let disk = diskCache.domain.sync { diskCache.inspectionEntries() }
        return ImagePipelineInspectionResult(
            imagePipelineIdentifier: identifier,
            completeRenderedEntries: rendered,
            completeMemoryEntries: memory.complete,
            partialMemoryEntries: memory.partial,
            completeDiskEntries: disk.complete,
            partialDiskEntries: disk.partial)
    }
}

/// Carries an error across a `@Sendable` boundary (errors from Foundation are not all `Sendable`).
struct SendableError: @unchecked Sendable {
    // Immutable after creation; errors are only read.
    let error: any Error
    init(_ error: any Error) { self.error = error }
}
