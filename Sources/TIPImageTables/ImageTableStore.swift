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
/// holds each table file's lock (`<name>.tiptable.lock`): one process at a time.
public final class ImageTableStore: Sendable {
    /// Where the table files are (`<format name>.tiptable`).
    public let directory: URL
    /// The registered formats, in the order given.
    public let formats: [ImageTableFormat]
    /// Fetches sources; nil: only ``setImage(_:for:formatName:)`` fills entries.
    public let pipeline: ImagePipeline?
    let configuration: GlobalConfiguration
    private let tables: [String: ImageTable]
    /// The tables in format order: a hit finds its table by comparing names, cheaper than hashing one for
    /// the few formats a store has.
    private let tableList: [ImageTable]
    private let waiterCounter = Locked<UInt64>(0)

    /// Opens the table of every format in `directory` (created when missing), making anew any table whose
    /// file is damaged, truncated or was made for another definition of its format (reported to
    /// `configuration`'s problem observer as ``TIP/Problem/imageTableRebuilt``). Problems are reported to and
    /// completions called on `configuration` (default ``GlobalConfiguration/shared``). Throws when the
    /// directory or a file cannot be used, a table is open in another process, or two formats share a name.
    public init(directory: URL, formats: [ImageTableFormat], pipeline: ImagePipeline? = nil,
                configuration: GlobalConfiguration = .shared) throws(ImageTableError) {
        do {
            try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        } catch {
            let underlying = (error as NSError).userInfo[NSUnderlyingErrorKey] as? NSError
            let code = underlying.flatMap { $0.domain == NSPOSIXErrorDomain ? Int32(clamping: $0.code) : nil } ?? EIO
            throw .storageFailed(path: directory.path, operation: "create directory", errno: code)
        }
        var tables: [String: ImageTable] = [:]
        for format in formats {
            guard tables[format.name] == nil else { throw .invalidFormat("two formats are named '\(format.name)'") }
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
    public func image(forEntityIdentifier entityIdentifier: String, sourceIdentifier: String, formatName: String) -> Bitmap? {
        table(named: formatName)?.image(entity: entityIdentifier, source: sourceIdentifier)
    }

    /// The table of the format named `name`: a scan of the names for a few formats, the dictionary beyond.
    private func table(named name: String) -> ImageTable? {
        guard tableList.count <= 8 else { return tables[name] }
        for table in tableList where table.format.name == name { return table }
        return nil
    }

    /// The entity's entry when there is one, else a fill (FastImageCache's `retrieveImageForEntity`). On a hit
    /// `completion` runs before this returns, on the calling thread, and the result is true; otherwise it runs
    /// later on the configuration's callback queue, once the source is fetched, drawn and stored (or failed),
    /// and the result is false. Requests for an entity whose fill is in flight join it.
    @discardableResult
    public func retrieveImage(for entity: some ImageTableEntity, formatName: String,
                              completion: @escaping @Sendable (Result<Bitmap, ImageTableError>) -> Void) -> Bool {
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
    public func retrieveImage(for entity: some ImageTableEntity, formatName: String) async throws(ImageTableError) -> Bitmap {
        guard let table = table(named: formatName) else { throw .unknownFormat(formatName) }
        if let hit = table.image(entity: entity.identifier, source: entity.sourceIdentifier) { return hit }
        let waiterID = nextWaiterID()
        let identifier = entity.identifier
        let result = await withTaskCancellationHandler {
            await withCheckedContinuation { (continuation: CheckedContinuation<Result<Bitmap, ImageTableError>, Never>) in
                fill(entity, in: table, waiterID: waiterID) { continuation.resume(returning: $0) }
                if Task.isCancelled { cancelWaiter(waiterID, entity: identifier, in: table) }
            }
        } onCancel: {
            cancelWaiter(waiterID, entity: identifier, in: table)
        }
        return try result.get()
    }

    // MARK: Storing and removing

    /// Draws `source` (an image you already have) into the entity's entry of the format with the entity's
    /// drawing, replacing any entry it had; returns the new entry's view (FastImageCache's `setImage`).
    /// Synchronous: waits for any write of the same table. Do not call it from a drawing.
    public func setImage(_ source: Bitmap, for entity: some ImageTableEntity, formatName: String) throws(ImageTableError) -> Bitmap {
        guard let table = table(named: formatName) else { throw .unknownFormat(formatName) }
        return try table.write(entity: entity.identifier, source: entity.sourceIdentifier, image: source,
                               drawing: entity.drawing(for: table.format)).get()
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

    // MARK: Fills

    private func nextWaiterID() -> UInt64 {
        waiterCounter.withLock { counter in
            counter += 1
            return counter
        }
    }

    /// Joins the entity's fill in `table`, or starts one: fetch, then draw and write on the table's queue.
    /// Other formats of the family that want the same source and lack the entity are drawn from the same
    /// fetch, which asks for the largest of their sizes.
    private func fill(_ entity: some ImageTableEntity, in table: ImageTable, waiterID: UInt64,
                      deliver: @escaping @Sendable (Result<Bitmap, ImageTableError>) -> Void) {
        let identifier = entity.identifier
        let waiter = ImageTableFill.Waiter(id: waiterID, deliver: deliver)
        let (job, isNew) = table.state.withLock { state -> (ImageTableFill, Bool) in
            if let job = state.fills[identifier] {
                job.waiters.append(waiter)
                return (job, false)
            }
            let job = ImageTableFill()
            job.waiters.append(waiter)
            state.fills[identifier] = job
            return (job, true)
        }
        guard isNew else { return }
        guard let pipeline else { return finish(job, entity: identifier, in: table, .failure(.noPipeline)) }
        let url = entity.sourceURL(for: table.format)
        let source = entity.sourceIdentifier
        let siblings = tables.values.filter { sibling in
            sibling !== table && !table.format.family.isEmpty && sibling.format.family == table.format.family
                && entity.sourceURL(for: sibling.format) == url && sibling.wantsFill(entity: identifier, source: source)
        }
        let drawings = siblings.map { entity.drawing(for: $0.format) }
        let drawing = entity.drawing(for: table.format)
        let width = siblings.reduce(table.format.width) { max($0, $1.format.width) }
        let height = siblings.reduce(table.format.height) { max($0, $1.format.height) }
        let request = GenericImageFetchRequest(imageURL: url, identifier: nil, targetDimensions: CGSize(width: width, height: height),
                                               targetContentMode: drawing.sourceContentMode)
        let operation = pipeline.operation(with: request) { result, error in
            table.fillQueue.async {
                let outcome: Result<Bitmap, ImageTableError>
                if let image = result?.imageContainer.image {
                    outcome = table.write(entity: identifier, source: source, image: image, drawing: drawing)
                    for (sibling, siblingDrawing) in zip(siblings, drawings) {
                        sibling.fillQueue.async {
                            if sibling.wantsFill(entity: identifier, source: source) {
                                _ = sibling.write(entity: identifier, source: source, image: image, drawing: siblingDrawing)
                            }
                        }
                    }
                } else if let error = error as? ImageFetchError, error.code == .cancelled || error.code == .cancelledAfterLoadingPreview {
                    outcome = .failure(.cancelled)
                } else {
                    outcome = .failure(.fetchFailed(error ?? ImageFetchError(.unknown, "The fetch ended without an image or an error.")))
                }
                self.finish(job, entity: identifier, in: table, outcome)
            }
        }
        let abandoned = table.state.withLock { _ in
            job.operation = operation
            return job.waiters.isEmpty
        }
        if abandoned { return }
        pipeline.fetchImage(with: operation)
    }

    /// Ends `job`: it leaves the table's fills, and every waiter gets `outcome`.
    private func finish(_ job: ImageTableFill, entity: String, in table: ImageTable, _ outcome: Result<Bitmap, ImageTableError>) {
        let waiters = table.state.withLock { state -> [ImageTableFill.Waiter] in
            if state.fills[entity] === job { state.fills[entity] = nil }
            defer { job.waiters.removeAll() }
            return job.waiters
        }
        for waiter in waiters { waiter.deliver(outcome) }
    }

    /// One waiter leaves its fill (it gets ``ImageTableError/cancelled``); the last one out cancels the fetch.
    private func cancelWaiter(_ waiterID: UInt64, entity: String, in table: ImageTable) {
        let (waiter, operation) = table.state.withLock { state -> (ImageTableFill.Waiter?, ImageFetchOperation?) in
            guard let job = state.fills[entity], let index = job.waiters.firstIndex(where: { $0.id == waiterID }) else { return (nil, nil) }
            let waiter = job.waiters.remove(at: index)
            guard job.waiters.isEmpty else { return (waiter, nil) }
            state.fills[entity] = nil
            return (waiter, job.operation)
        }
        operation?.cancel()
        waiter?.deliver(.failure(.cancelled))
    }
}
