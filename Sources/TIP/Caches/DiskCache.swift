import Foundation

#if canImport(Glibc)
import Glibc
#endif

/// The on-disk cache of one pipeline, in `<root>/TIPImagePipeline/<identifier>/` (TIP's
/// `TIPImageDiskCache`).
///
/// Per identifier a complete file `<safeId>` and a partial download `<safeId>.tmp`
/// (``SafeIdentifier``), each with ``DiskCacheMetadata`` in `user.` extended attributes, or in a
/// ``DiskCacheSidecar`` where the file system has none. Every write goes to a uniquely named
/// temporary file that gets its metadata and is renamed into place (fsynced first when
/// ``GlobalConfiguration/diskCacheWritesAreDurable``), so a process killed at any moment never leaves an
/// entry that is later served wrong.
///
/// The manifest (LRU order, byte totals) loads in the background at start-up; until then reads go
/// straight to the files (complete files only) and changes are reconciled when loading ends, so the
/// totals stay exact.
///
/// Thread contract: every member may be called from any thread; state and file changes run on the
/// ``DiskCacheDomain`` queue (directly when already on it). ``waitUntilManifestLoaded()`` must not be
/// called on that queue.
package final class DiskCache: BudgetedCache, @unchecked Sendable {
    // Every `var` below is guarded by `domain.queue`; `loadGroup` is thread-safe.

    /// Where metadata is kept.
    package enum MetadataStorage: Sendable, Equatable {
        /// `user.` extended attributes on each file.
        case extendedAttributes
        /// A `<file>#meta` sidecar next to each file.
        case sidecar
    }

    /// Where a stored image's bytes come from.
    package enum Source: Sendable {
        /// Bytes in memory.
        case data(Data)
        /// An existing file (copied; e.g. another pipeline's cache file).
        case file(URL)
    }

    /// The serial domain every disk cache of the configuration shares.
    let domain: DiskCacheDomain
    /// Clock, logging, problems.
    let configuration: GlobalConfiguration
    /// Files flushed with `fsync` so far (``GlobalConfiguration/diskCacheWritesAreDurable``); thread-safe.
    let flushCount = Locked(0)
    /// The serial queue that installs finished downloads' files and writes stored processed images
    /// (``ImagePipelineCaches/diskWriteQueue``): creating and renaming files in one directory from several
    /// threads at once made them contend for the directory's lock in the kernel, which spins.
    let commits = DispatchQueue(label: "tip.disk-cache.commits", qos: .utility)
    /// The cache directory.
    let directory: URL
    /// `directory.path` without a trailing slash.
    let directoryPath: String
    /// Extended attributes or sidecars, chosen once at start-up.
    let metadataStorage: MetadataStorage

    var lru = LRUList<String, DiskCacheEntry>()
    var bytesHeld: Int64 = 0
    var isLoaded = false
    var isTornDown = false
    /// Safe names changed while the manifest loads; re-read from disk when it finishes.
    var touchedWhileLoading: Set<String> = []
    /// Identifier prefixes cleared while the manifest loads (processed images): their entries are missed until the
    /// clear runs, once it has loaded.
    var prefixesClearedWhileLoading: [String] = []
    /// Bumped when the directory is emptied or recreated during loading (the scan is then stale).
    var directoryGeneration = 0
    /// Whether `clearAll` removed the directory: the next write brings it back without reporting a fault.
    var directoryWasCleared = false
    /// The names of the entries that hold stored processed images, by the identifier of the original each was made
    /// from (see ``DiskCache/originalIdentifier(ofProcessed:)``): an original that changes drops its processed images
    /// without a walk over every entry.
    var processedEntryNames: [String: Set<String>] = [:]
    /// The names of the entries that hold stored processed images known only by their hashed names (identifiers too
    /// long for an extended attribute, read back before a read re-attached them), by the file name of the original
    /// each was made from (``DiskCacheMetadata/originalName``).
    var unattachedProcessedEntryNames: [String: Set<String>] = [:]
    /// Temporary files open for downloads (never deleted as strays).
    var liveTemporaryNames: Set<String> = []
    /// When each errno of a failed write was last logged at error level
    /// (see ``reportWriteFailure(_:path:identifier:)``).
    var writeFailuresLogged: [Int32: Date] = [:]
    let loadGroup = DispatchGroup()
    /// Identifiers of images served from the rendered cache, refreshed later in one batch (thread-safe).
    let pendingTouches = DeferredTouches()
    let manifestLoadHook: (@Sendable () -> Void)?

    /// A cache in `directory` (created 0700 if needed) whose manifest starts loading at once.
    init(directory: URL, domain: DiskCacheDomain, configuration: GlobalConfiguration) {
        self.directory = directory
        self.domain = domain
        self.configuration = configuration
        self.directoryPath = DiskCache.normalizedPath(directory)
        self.manifestLoadHook = nil
        DiskCache.createDirectory(directoryPath)
        self.metadataStorage =
            ExtendedAttributes.isSupported(inDirectory: directoryPath) ? .extendedAttributes : .sidecar
        start()
    }

    /// For tests: forces the metadata storage and runs `manifestLoadHook` on the loading thread after
    /// the directory was scanned and before the manifest is applied.
    package init(
        directory: URL, domain: DiskCacheDomain, configuration: GlobalConfiguration,
        metadataStorage: MetadataStorage?, manifestLoadHook: (@Sendable () -> Void)? = nil
    ) {
        self.directory = directory
        self.domain = domain
        self.configuration = configuration
        self.directoryPath = DiskCache.normalizedPath(directory)
        self.manifestLoadHook = manifestLoadHook
        DiskCache.createDirectory(directoryPath)
        self.metadataStorage =
            metadataStorage
            ?? (ExtendedAttributes.isSupported(inDirectory: directoryPath) ? .extendedAttributes : .sidecar)
        start()
    }

    private func start() {
        loadGroup.enter()
        domain.sync { domain.budget.register(self) }
        DispatchQueue.global(qos: .utility).async { [self] in
            let scan = scanDirectory()
            manifestLoadHook?()
            domain.async { [self] in finishLoading(scan) }
        }
    }

    private static func normalizedPath(_ url: URL) -> String {
        var path = url.path
        while path.count > 1 && path.hasSuffix("/") { path.removeLast() }
        return path
    }

    @discardableResult
    static func createDirectory(_ path: String) -> Bool {
        // A symbolic link planted where the directory goes would send the cache's files out of the caches
        // root: it is removed, and a real directory made in its place.
        var info = stat()
        if lstat(path, &info) == 0, info.st_mode & S_IFMT == S_IFLNK { unlink(path) }
        do {
            try FileManager.default.createDirectory(
                atPath: path, withIntermediateDirectories: true,
                attributes: [.posixPermissions: 0o700])
        } catch {
            return false
        }
        return lstat(path, &info) == 0 && info.st_mode & S_IFMT == S_IFDIR
    }

    // MARK: Manifest state

    /// Whether the manifest finished loading.
    var isManifestLoaded: Bool { domain.sync { isLoaded } }

    /// Blocks until the manifest is loaded (tests, benchmarks). Not on the domain queue.
    package func waitUntilManifestLoaded() {
        loadGroup.wait()
    }

    /// Whether `identifier` has a complete file (no access refreshed, nothing expired or removed).
    func hasCompleteFile(identifier: String) -> Bool {
        guard !identifier.isEmpty else { return false }
        let name = SafeIdentifier.fileName(for: identifier)
        return domain.sync { currentEntry(name)?.complete != nil }
    }

    /// Waits for the manifest while it loads, when `identifier` has a partial file on disk: partials are served
    /// from the manifest only, and a download that could resume one must not start over for want of a few
    /// milliseconds of loading. A stat of one name, and no wait at all, otherwise; never a wait on the domain
    /// queue, where the load finishes.
    func waitForManifestIfPartialExists(identifier: String) {
        guard !identifier.isEmpty, !domain.isOnQueue, !domain.sync({ isLoaded }) else { return }
        let name = DiskCache.partialName(SafeIdentifier.fileName(for: identifier))
        guard access(path(name), F_OK) == 0 else { return }
        loadGroup.wait()
    }

    /// Entries held (identifiers with a complete and/or partial file); 0 while loading.
    package var count: Int { domain.sync { lru.count } }
    /// Bytes of all files held; 0 while loading.
    package var totalBytes: Int64 { domain.sync { bytesHeld } }

    var _budgetedEntryCount: Int { lru.count }

    func _evictLeastRecentlyUsedEntry() -> Bool {
        guard let (name, entry) = lru.removeTail() else { return false }
        indexProcessedEntry(name, from: entry, to: nil)
        deleteFiles(of: entry)
        bytesHeld -= entry.byteCount
        if !isTornDown { domain.budget.subtract(bytes: entry.byteCount, count: 1) }
        return true
    }

    /// Leaves the shared budget, subtracting exactly what this cache holds. Files stay.
    package func tearDown() {
        domain.sync {
            guard !isTornDown else { return }
            isTornDown = true
            domain.budget.unregister(self, bytes: bytesHeld, count: lru.count)
        }
    }

    // MARK: Paths

    func path(_ name: String) -> String { directoryPath + "/" + name }

    static func partialName(_ safeName: String) -> String { safeName + ".tmp" }

    func url(_ name: String) -> URL { URL(fileURLWithPath: path(name), isDirectory: false) }

    // MARK: Entry bookkeeping (on the queue)

    /// The entry for a safe name: the manifest's when loaded, else read from the files, unless a clear made while
    /// loading covers it (its files are then deleted now, before the clear itself runs once the manifest is loaded).
    func currentEntry(_ name: String) -> DiskCacheEntry? {
        if isLoaded { return lru.peek(name) }
        guard let entry = readEntryFromFiles(name) else { return nil }
        if !prefixesClearedWhileLoading.isEmpty, isClearedWhileLoading(entry) {
            deleteFiles(of: entry)
            setEntry(nil, forName: name)
            return nil
        }
        return entry
    }

    /// Records `entry` (nil or empty: removed) for `name`, keeping the totals exact. While loading only
    /// the name is noted (reconciled from the files when loading ends).
    func setEntry(_ entry: DiskCacheEntry?, forName name: String, bump: Bool = true) {
        guard isLoaded else {
            touchedWhileLoading.insert(name)
            return
        }
        let old = lru.peek(name)
        let new = (entry?.isEmpty ?? true) ? nil : entry
        let byteDelta = (new?.byteCount ?? 0) - (old?.byteCount ?? 0)
        let countDelta = (new == nil ? 0 : 1) - (old == nil ? 0 : 1)
        indexProcessedEntry(name, from: old, to: new)
        if let new {
            if bump || old == nil { lru.insertAtHead(name, new) } else { lru.updateValue(new, for: name) }
        } else {
            lru.remove(name)
        }
        bytesHeld += byteDelta
        guard !isTornDown else { return }
        if byteDelta > 0 || countDelta > 0 {
            domain.budget.add(bytes: max(byteDelta, 0), count: max(countDelta, 0))
        }
        if byteDelta < 0 || countDelta < 0 {
            domain.budget.subtract(bytes: max(-byteDelta, 0), count: max(-countDelta, 0))
        }
    }

    /// Drops every entry from the manifest (directory emptied or vanished).
    func forgetAllEntries() {
        if isLoaded {
            if !isTornDown { domain.budget.subtract(bytes: bytesHeld, count: lru.count) }
            lru.removeAll()
            processedEntryNames.removeAll()
            unattachedProcessedEntryNames.removeAll()
            bytesHeld = 0
        } else {
            directoryGeneration += 1
            touchedWhileLoading.removeAll()
        }
    }

    // MARK: Faults

    /// Recreates the directory when it vanished (dropping the manifest). Returns whether it exists.
    @discardableResult
    func ensureDirectory() -> Bool {
        var info = stat()
        if lstat(directoryPath, &info) == 0 { return (info.st_mode & S_IFMT) == S_IFDIR }
        guard errno == ENOENT else { return false }
        forgetAllEntries()
        guard DiskCache.createDirectory(directoryPath) else { return false }
        if directoryWasCleared {
            directoryWasCleared = false
            return true
        }
        configuration.log(.warning, "disk cache directory \(directoryPath) vanished; recreated")
        configuration.post(.diskCacheDirectoryRecreated, userInfo: [ProblemInfoKey.path: directoryPath])
        return true
    }

    /// How long the same write error is logged at debug level after it was logged at error level.
    static let repeatedWriteFailureQuietInterval: TimeInterval = 60

    /// Reports a failed write (full disk, read-only or vanished directory). Every failure goes to the problem
    /// observer; the logger gets one error per errno a minute, the repeats at debug level (a full disk or an
    /// unusable caches root fails every write).
    func reportWriteFailure(_ error: POSIXError, path: String, identifier: String?) {
        var info: [String: any Sendable] = [
            ProblemInfoKey.path: path, ProblemInfoKey.error: "\(error.code) (\(error.code.rawValue))",
        ]
        if let identifier { info[ProblemInfoKey.imageIdentifier] = identifier }
        let now = configuration.clock()
        let code = error.code.rawValue
        let isRepeat =
            writeFailuresLogged[code].map {
                now.timeIntervalSince($0) < Self.repeatedWriteFailureQuietInterval
            } ?? false
        if !isRepeat { writeFailuresLogged[code] = now }
        let quieter = isRepeat ? "" : "; the same error in this cache in the next minute is logged at debug level"
        configuration.post(
            .diskCacheWriteFailed, userInfo: info, level: isRepeat ? .debug : .error,
            message:
                """
                disk cache write failed at \(path): \(error.code) (\(error.code.rawValue)); the memory caches \
                keep working\(quieter)
                """
        )
        ensureDirectory()
    }
}
