import Foundation
import TIP

#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// One format's table: its file, its in-memory state and its writer.
///
/// Readers (hits) take the state lock for a dictionary lookup and an LRU move, and copy out a view: no
/// allocation, no system call. Writers take the writer lock for a whole write (so writes are serialized per
/// table) and the state lock only to reserve a slot and to publish it. The one lock order is writer, then
/// state.
final class ImageTable: @unchecked Sendable {
    let format: ImageTableFormat
    let layout: ImageTableLayout
    let path: String
    /// Why the file was made anew when the table was opened, if it was.
    let rebuildReason: String?
    /// Where asynchronous fills draw and write, one at a time.
    let fillQueue: DispatchQueue
    let state: Locked<ImageTableState>
    private let header: [UInt8]
    private let writer = Locked(())
    /// The table's lock, which every mapping of its files keeps too.
    private let lock: ImageTableLock
    private let configuration: GlobalConfiguration

    /// Opens (or makes, or rebuilds) the table of `format` in `directory`.
    init(format: ImageTableFormat, directory: URL, configuration: GlobalConfiguration) throws(ImageTableError) {
        self.format = format
        self.configuration = configuration
        layout = ImageTableLayout(format: format)
        path = directory.appendingPathComponent(format.name + ".tiptable").path
        header = ImageTableHeader.encode(format: format, layout: layout)
        fillQueue = DispatchQueue(label: "tip.image-table.\(format.name)")
        lock = try ImageTableFile.lock(path)
        let opened = try ImageTableFile.openOrMake(path, header: header, layout: layout, lock: lock)
        rebuildReason = opened.rebuildReason
        state = Locked(ImageTableState(layout: layout, mapping: opened.mapping, chunkCount: opened.chunkCount))
        if let reason = opened.rebuildReason {
            configuration.post(
                .imageTableRebuilt,
                userInfo: [
                    ProblemInfoKey.path: path, ImageTableProblemInfoKey.reason: reason,
                    ImageTableProblemInfoKey.formatName: format.name,
                ])
        }
    }

    deinit {
        // The lock stays held while views of the entries are alive (their mapping keeps it).
        state.withLock { $0._persistAccessOrder() }
    }

    // MARK: Reading

    /// The entry of `entity` drawn from `source`, or nil. Its first retrieval in a process checks its pixels
    /// against their checksum; a damaged entry is dropped, counted and reported, and misses.
    func image(entity: String, source: String) -> Bitmap? {
        switch state.withLock({ $0._lookup(entity: entity, source: source) }) {
        case .miss:
            return nil
        case .hit(let view):
            return view
        case .unverified(let view, let slot, let checksum, let seed, let mapping):
            let actual = view.withUnsafeBytes { bytes in
                bytes.baseAddress.map { ImageTableChecksum.pixels($0, count: bytes.count, seed: seed) } ?? ~checksum
            }
            if actual == checksum {
                state.withLock { $0._markVerified(slot, of: mapping) }
                return view
            }
            if state.withLock({ $0._discardDamaged(slot, of: mapping) }) {
                configuration.post(
                    .imageTableEntryCorrupt,
                    userInfo: [
                        ProblemInfoKey.path: path, ProblemInfoKey.imageIdentifier: entity,
                        ImageTableProblemInfoKey.formatName: format.name,
                    ])
            }
            return nil
        }
    }

    /// Whether a fill of `entity` from `source` would add something: no such entry, and no fill in flight.
    func wantsFill(entity: String, source: String) -> Bool {
        state.withLock {
            $0.fills[ImageTableFill.Key(entity: entity, source: source)] == nil
                && !$0._contains(entity: entity, source: source)
        }
    }

    // MARK: Writing

    /// Draws `source` into a free (or the least recently used) entry with `drawing` and makes it the entry of
    /// `entity`; returns its view. Blocks while another write of this table runs.
    func write(entity: String, source: String, image: Bitmap, drawing: ImageTableDrawing) -> Result<
        Bitmap, ImageTableError
    > {
        writer.withLock { _ in _write(entity: entity, source: source, image: image, drawing: drawing) }
    }

    /// Drops the entry of `entity`; true when there was one.
    @discardableResult
    func delete(entity: String) -> Bool {
        writer.withLock { _ in state.withLock { $0._delete(entity: entity) } }
    }

    /// Empties the table: a new, empty file replaces the old one, which stays mapped until the last view of
    /// it goes away. Fills in flight carry on into the new file.
    func reset() -> Result<Void, ImageTableError> {
        writer.withLock { _ in
            do throws(ImageTableError) {
                let opened = try ImageTableFile.make(path, header: header, layout: layout, lock: lock, reason: nil)
                state.withLock { state in
                    let fills = state.fills
                    state = ImageTableState(layout: layout, mapping: opened.mapping, chunkCount: 0)
                    state.fills = fills
                }
                return .success(())
            } catch {
                return .failure(error)
            }
        }
    }

    /// Writes the LRU order into the records, then every dirty page to the disk (`msync`), and waits.
    func synchronize() {
        let (mapping, length) = state.withLock { state in
            state._persistAccessOrder()
            return (state.mapping, layout.fileLength(chunks: state.chunkCount))
        }
        mapping.synchronize(byteCount: length)
    }

    /// What the table holds and counted.
    var statistics: ImageTableStatistics {
        state.withLock { state in
            ImageTableStatistics(
                format: format, path: path, entryCount: state.count, capacity: state.slots.count,
                fileLength: layout.fileLength(chunks: state.chunkCount), hits: state.counters.hits,
                misses: state.counters.misses, corruptEntries: state.counters.corrupt,
                discardedEntries: state.counters.discarded, evictions: state.counters.evictions,
                rebuildReason: rebuildReason)
        }
    }

    /// The write itself, with the writer lock held.
    private func _write(entity: String, source: String, image: Bitmap, drawing: ImageTableDrawing) -> Result<
        Bitmap, ImageTableError
    > {
        var reserved: (slot: Int32, mapping: ImageTableMapping)?
        while reserved == nil {
            let (reservation, mapping, chunks) = state.withLock { ($0._reserve(), $0.mapping, $0.chunkCount) }
            switch reservation {
            case .slot(let slot):
                reserved = (slot, mapping)
            case .grow:
                do {
                    try ImageTableFile.grow(mapping, from: chunks, layout: layout)
                } catch {
                    configuration.post(
                        .imageTableWriteFailed,
                        userInfo: [
                            ProblemInfoKey.path: path, ProblemInfoKey.error: error.description,
                            ImageTableProblemInfoKey.formatName: format.name,
                        ])
                    return .failure(error)
                }
                state.withLock { $0._addChunk() }
            case .full:
                return .failure(.tableFull(formatName: format.name))
            }
        }
        guard let (slot, mapping) = reserved else { return .failure(.tableFull(formatName: format.name)) }
        let recordPointer = mapping.base + layout.recordOffset(Int(slot))
        let pixels = mapping.base + layout.pixelOffset(Int(slot))
        ImageTableRecord.storeState(ImageTableRecord.writing, to: recordPointer)
        var canvas = ImageTableCanvas(
            pixels: pixels, width: layout.width, height: layout.height,
            bytesPerRow: layout.bytesPerRow, pixelFormat: layout.pixelFormat)
        canvas.clear()
        do {
            try drawing.body(image, &canvas)
        } catch {
            ImageTableRecord.storeState(ImageTableRecord.free, to: recordPointer)
            state.withLock { $0._release(slot) }
            return .failure(.drawingFailed(error))
        }
        canvas.normalize()
        let sequence = state.withLock { $0._nextSequence() }
        var record = ImageTableRecord(
            state: ImageTableRecord.valid, checksum: 0, entity: ImageTableKey(entity),
            source: ImageTableKey(source), pixelChecksum: 0, writeSequence: sequence, lastAccess: sequence)
        record.pixelChecksum = ImageTableChecksum.pixels(
            pixels, count: layout.entryLength, seed: record.pixelSeed(slot: Int(slot)))
        record.checksum = record.expectedChecksum(slot: Int(slot))
        record.store(to: recordPointer)
        let key = record.entity
        guard let view = state.withLock({ $0._publish(slot, entity: entity, source: source, key: key) }) else {
            ImageTableRecord.storeState(ImageTableRecord.free, to: recordPointer)
            return .failure(.invalidFormat("the entries of '\(format.name)' cannot be viewed"))
        }
        return .success(view)
    }
}
