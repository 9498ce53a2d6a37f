import Foundation
import TIP

/// Pre-rendered images of fixed formats in memory-mapped table files, one per format: a hit costs no
/// decoding, no copy and no allocation (FastImageCache's `FICImageCache`, on TIP's pipeline).
///
/// ```swift
/// let avatar = try ImageTableFormat(name: "avatar-64", width: 64, height: 64,
///                                   pixelFormat: .rgba8Premultiplied, maximumCount: 2_000)
/// let store = try ImageTableStore(directory: tablesURL, formats: [avatar], pipeline: pipeline)
/// let user = GenericImageTableEntity(identifier: "user-42", sourceURL: avatarURL)
/// if let image = store.image(for: user, formatName: "avatar-64") {
///     show(image)                                   // a view of the mapped entry
/// } else {
///     let image = try await store.retrieveImage(for: user, formatName: "avatar-64")   // fetched, drawn, stored
/// }
/// ```
///
/// Thread-safe: retrieve from any thread. Fills fetch their source through the store's image pipeline
/// (joining any fetch of the same URL, and caching it there), draw it on the table's own queue (one fill at a
/// time per table) and publish the entry; completions run on the configuration's callback queue. The store
/// holds each table file's lock (`<name>.tiptable.lock`): one store at a time, in one process. Images retrieved
/// from it hold the lock too, after the store went away: until they do, another store gets
/// ``ImageTableError/tableInUse(path:)``.
public final class ImageTableStore: Sendable {
    /// Where the table files are (`<format name>.tiptable`).
    public let directory: URL
    /// The registered formats, in the order given.
    public let formats: [ImageTableFormat]
    /// Fetches sources; nil: only ``setImage(_:for:formatName:)`` fills entries.
    public let pipeline: ImagePipeline?
    let configuration: GlobalConfiguration
    let tables: [String: ImageTable]
    /// The tables in format order: a hit finds its table by comparing names, cheaper than hashing one for
    /// the few formats a store has.
    private let tableList: [ImageTable]
    let waiterCounter = Locked<UInt64>(0)

    /// Opens the table of every format in `directory` (created when missing), making anew any table whose
    /// file is damaged, truncated or was made for another definition of its format (reported to
    /// `configuration`'s problem observer as ``TIP/Problem/imageTableRebuilt``). Problems are reported to and
    /// completions called on `configuration` (default ``GlobalConfiguration/shared``). Throws when the
    /// directory or a file cannot be used, a table is open in another process, or two formats share a name.
    public init(
        directory: URL, formats: [ImageTableFormat], pipeline: ImagePipeline? = nil,
        configuration: GlobalConfiguration = .shared
    ) throws(ImageTableError) {
        if let failure = Directories.make(directory.path, mode: 0o777) {
            throw .storageFailed(path: directory.path, operation: "create directory", errno: failure.rawValue)
        }
        // Every name is checked before any table is opened: opening one may rebuild its file.
        var names = Set<String>()
        for format in formats where !names.insert(format.name).inserted {
            throw .invalidFormat("two formats are named '\(format.name)'")
        }
        var tables: [String: ImageTable] = [:]
        for format in formats {
            tables[format.name] = try ImageTable(format: format, directory: directory, configuration: configuration)
        }
        self.directory = directory
        self.formats = formats
        self.pipeline = pipeline
        self.configuration = configuration
        self.tables = tables
        self.tableList = formats.compactMap { tables[$0.name] }
    }

    /// The registered format named `name`.
    public func format(named name: String) -> ImageTableFormat? { tables[name]?.format }

    // MARK: Retrieving

    /// The entity's entry of the format, or nil (a miss: none yet, drawn from another source, or an unknown
    /// format). The image is a view of the mapped entry, valid for as long as you keep it, even if the entry
    /// is replaced or deleted meanwhile; mutating it copies the pixels first. No I/O beyond page faults, no
    /// allocation; the first retrieval of an entry in a process also checks its pixels against their
    /// checksum (a damaged entry misses and is reported). Any thread.
    @inlinable
    public func image(for entity: some ImageTableEntity, formatName: String) -> Bitmap? {
        image(forEntityIdentifier: entity.identifier, sourceIdentifier: entity.sourceIdentifier, formatName: formatName)
    }

    /// The entry of the entity with `entityIdentifier`, drawn from `sourceIdentifier`, or nil.
    public func image(forEntityIdentifier entityIdentifier: String, sourceIdentifier: String, formatName: String)
        -> Bitmap?
    {
        table(named: formatName)?.image(entity: entityIdentifier, source: sourceIdentifier)
    }

    /// The table of the format named `name`: a scan of the names for a few formats, the dictionary beyond.
    func table(named name: String) -> ImageTable? {
        guard tableList.count <= 8 else { return tables[name] }
        for table in tableList where table.format.name == name { return table }
        return nil
    }

    /// The entity's entry when there is one, else a fill (FastImageCache's `retrieveImageForEntity`). On a hit
    /// `completion` runs before this returns, on the calling thread, and the result is true; otherwise it runs
    /// later on the configuration's callback queue, once the source is fetched, drawn and stored (or failed),
    /// and the result is false. Requests for an entity whose fill is in flight join it.
    @discardableResult
    public func retrieveImage(
        for entity: some ImageTableEntity, formatName: String,
        completion: @escaping @Sendable (Result<Bitmap, ImageTableError>) -> Void
    ) -> Bool {
        let queue = configuration.callbackQueue
        guard let table = table(named: formatName) else {
            queue.async { completion(.failure(.unknownFormat(formatName))) }
            return false
        }
        if let hit = table.image(entity: entity.identifier, source: entity.sourceIdentifier) {
            completion(.success(hit))
            return true
        }
        fill(entity, in: table, waiterID: nextWaiterID()) { result in queue.async { completion(result) } }
        return false
    }

    /// The entity's entry, filled first when missing (beyond FastImageCache). Cancelling the task makes this
    /// throw ``ImageTableError/cancelled`` at once; the source fetch is cancelled when no one else waits for
    /// the same fill.
    ///
    /// ```swift
    /// let avatar = try await store.retrieveImage(for: user, formatName: "avatar-64")
    /// ```
    public func retrieveImage(for entity: some ImageTableEntity, formatName: String) async throws(ImageTableError)
        -> Bitmap
    {
        guard let table = table(named: formatName) else { throw .unknownFormat(formatName) }
        if let hit = table.image(entity: entity.identifier, source: entity.sourceIdentifier) { return hit }
        let waiterID = nextWaiterID()
        let key = ImageTableFill.Key(entity: entity.identifier, source: entity.sourceIdentifier)
        let result = await withTaskCancellationHandler {
            await withCheckedContinuation {
                (continuation: CheckedContinuation<Result<Bitmap, ImageTableError>, Never>) in
                fill(entity, in: table, waiterID: waiterID) { continuation.resume(returning: $0) }
                if Task.isCancelled { cancelWaiter(waiterID, fill: key, in: table) }
            }
        } onCancel: {
            cancelWaiter(waiterID, fill: key, in: table)
        }
        return try result.get()
    }

    // MARK: Storing and removing

    /// Draws `source` (an image you already have) into the entity's entry of the format with the entity's
    /// drawing, replacing any entry it had; returns the new entry's view (FastImageCache's `setImage`).
    /// Synchronous: waits for any write of the same table. Do not call it from a drawing.
    public func setImage(_ source: Bitmap, for entity: some ImageTableEntity, formatName: String)
        throws(ImageTableError) -> Bitmap
    {
        guard let table = table(named: formatName) else { throw .unknownFormat(formatName) }
        return try table.write(
            entity: entity.identifier, source: entity.sourceIdentifier, image: source,
            drawing: entity.drawing(for: table.format)
        ).get()
    }

    /// Deletes the entity's entry of the format (views already handed out stay valid). Fills in flight still
    /// complete.
    public func deleteEntry(forEntityIdentifier entityIdentifier: String, formatName: String) {
        table(named: formatName)?.delete(entity: entityIdentifier)
    }

    /// Deletes the entity's entries of every format.
    public func deleteEntries(forEntityIdentifier entityIdentifier: String) {
        for table in tables.values { table.delete(entity: entityIdentifier) }
    }

    /// Empties the format's table: its file is replaced by an empty one. Views already handed out stay valid
    /// (the old file stays mapped until the last of them goes).
    public func reset(formatName: String) throws(ImageTableError) {
        guard let table = table(named: formatName) else { throw .unknownFormat(formatName) }
        try table.reset().get()
    }

    /// Saves the LRU order and writes every table's dirty pages to the disk, waiting for them (`msync`).
    /// Without it the entries survive a killed process anyway (they are in the page cache); this is for a
    /// machine that may lose power. The LRU order is also saved when the store goes away.
    public func synchronize() {
        for table in tables.values { table.synchronize() }
    }

    /// What the format's table holds and counted since it was opened.
    public func statistics(formatName: String) -> ImageTableStatistics? { table(named: formatName)?.statistics }
}
