import TIP

/// A table's in-memory state: its mapping, its slots, the index from identifiers to slots and the LRU
/// list. Owned by ``ImageTable``'s state lock; every method expects it held (hence the underscores).
///
/// Writers never draw into a slot that is in the index or that anyone holds a view of: they reserve a
/// free slot, or the least recently used one whose view is not held elsewhere, and publish it when the
/// entry is complete. So a view handed out stays valid, whatever happens to its entity afterwards.
struct ImageTableState {
    let layout: ImageTableLayout
    var mapping: ImageTableMapping
    var chunkCount: Int
    var slots: [ImageTableSlot] = []
    /// Live entries by entity identifier.
    var index: [String: Int32] = [:]
    /// Entries read from the file and not yet looked up, by the digest of their entity identifier.
    var pending: [ImageTableKey: Int32] = [:]
    /// Free slots; the last is taken first.
    var free: [Int32] = []
    /// Most recently used entry (-1: none).
    var head: Int32 = -1
    /// Least recently used entry (-1: none).
    var tail: Int32 = -1
    /// Orders writes and accesses across launches.
    var sequence: UInt64 = 1
    /// Fills in flight, by entity and source identifier.
    var fills: [ImageTableFill.Key: ImageTableFill] = [:]
    var counters = ImageTableCounters()

    /// Sequences a file can hold: far more than any table will ever count (2^62), so that counting on from
    /// the largest one read cannot overflow.
    static let sequenceLimit: UInt64 = 1 << 62

    /// The state of a freshly opened file: records read, damaged or torn ones freed, duplicates resolved in
    /// favour of the newest write, the LRU order restored from the records' last-access words.
    init(layout: ImageTableLayout, mapping: ImageTableMapping, chunkCount: Int) {
        self.layout = layout
        self.mapping = mapping
        self.chunkCount = 0
        // The newest valid record of each entity, and the access order of the kept ones (sequences by slot:
        // two words per slot rather than whole records, so that opening a large table stays light).
        var winners: [ImageTableKey: Int32] = [:]
        var writeSequences: [UInt64] = [], lastAccesses: [UInt64] = []
        let capacity = layout.capacity(chunks: chunkCount)
        slots.reserveCapacity(capacity)
        writeSequences.reserveCapacity(capacity)
        lastAccesses.reserveCapacity(capacity)
        for chunk in 0..<chunkCount {
            _addChunk()
            writeSequences.append(contentsOf: repeatElement(0, count: slots.count - writeSequences.count))
            lastAccesses.append(contentsOf: repeatElement(0, count: slots.count - lastAccesses.count))
            let bytes = ImageTableFile.records(of: chunk, in: mapping, layout: layout)
            guard !bytes.isEmpty else { continue }
            bytes.withUnsafeBytes { raw in
                guard let base = raw.baseAddress else { return }
                for position in 0..<layout.entriesPerChunk {
                    let slot = chunk * layout.entriesPerChunk + position
                    guard slot < slots.count else { break }
                    let record = ImageTableRecord.load(from: base + position * ImageTableLayout.recordLength)
                    if record.state == ImageTableRecord.free { continue }
                    guard record.isValid(slot: slot) else {
                        counters.discarded += 1
                        ImageTableRecord.storeState(ImageTableRecord.free, to: _recordPointer(slot))
                        continue
                    }
                    // A write sequence past the limit is damage its checksum missed: dropped. The last-access
                    // word has no checksum: one past the limit only loses the entry's place in the LRU order.
                    guard record.writeSequence < Self.sequenceLimit else {
                        counters.discarded += 1
                        ImageTableRecord.storeState(ImageTableRecord.free, to: _recordPointer(slot))
                        continue
                    }
                    let lastAccess = record.lastAccess < Self.sequenceLimit ? record.lastAccess : 0
                    sequence = max(sequence, record.writeSequence + 1, lastAccess + 1)
                    writeSequences[slot] = record.writeSequence
                    lastAccesses[slot] = lastAccess
                    // A kill between writing an entity's new entry and freeing its old one leaves two.
                    if let other = winners[record.entity].map(Int.init) {
                        let dropped = writeSequences[other] < record.writeSequence ? other : slot
                        if dropped == other { winners[record.entity] = Int32(slot) }
                        ImageTableRecord.storeState(ImageTableRecord.free, to: _recordPointer(dropped))
                        counters.discarded += 1
                    } else {
                        winners[record.entity] = Int32(slot)
                    }
                }
            }
        }
        for (key, slot) in winners {
            pending[key] = slot
            slots[Int(slot)].status = .pending
        }
        let order = winners.values.sorted {
            (lastAccesses[Int($0)], writeSequences[Int($0)]) < (lastAccesses[Int($1)], writeSequences[Int($1)])
        }
        for slot in order { _pushFront(slot) }
        free = slots.indices.reversed().filter { slots[$0].status == .free }.map { Int32($0) }
    }

    /// Entries in the table.
    var count: Int { index.count + pending.count }

    // MARK: Lookups

    /// What a lookup found.
    enum Lookup {
        case miss
        case hit(Bitmap)
        /// Found, but its pixels were not checked against their checksum in this process yet.
        case unverified(Bitmap, slot: Int32, checksum: UInt64, seed: UInt64, mapping: ImageTableMapping)
    }

    /// The entry of `entity` drawn from `source`, marked most recently used.
    mutating func _lookup(entity: String, source: String) -> Lookup {
        guard let slot = index[entity] ?? _resolvePending(entity: entity, source: source) else {
            counters.misses += 1
            return .miss
        }
        let i = Int(slot)
        guard slots[i].source == source, let view = slots[i].view else {
            counters.misses += 1
            return .miss
        }
        _moveToFront(slot)
        counters.hits += 1
        if slots[i].verified { return .hit(view) }
        let record = ImageTableRecord.load(from: _recordPointer(i))
        return .unverified(
            view, slot: slot, checksum: record.pixelChecksum, seed: record.pixelSeed(slot: i), mapping: mapping)
    }

    /// Whether the table holds the entry of `entity` drawn from `source` (no counting, no LRU move).
    mutating func _contains(entity: String, source: String) -> Bool {
        guard let slot = index[entity] ?? _resolvePending(entity: entity, source: source) else { return false }
        return slots[Int(slot)].source == source
    }

    /// Moves the entry of `entity` read from the file into the index, when its record says it was drawn
    /// from `source`. Digests are computed only here: once per entry and process.
    private mutating func _resolvePending(entity: String, source: String) -> Int32? {
        guard !pending.isEmpty else { return nil }
        let key = ImageTableKey(entity)
        guard let slot = pending[key] else { return nil }
        let i = Int(slot)
        guard ImageTableRecord.load(from: _recordPointer(i)).source == ImageTableKey(source) else { return nil }
        pending[key] = nil
        index[entity] = slot
        slots[i].status = .live
        slots[i].entity = entity
        slots[i].source = source
        if slots[i].view == nil { slots[i].view = _makeView(i) }
        return slot
    }

    /// Records that the entry in `slot` passed its checksum (if it is still the one that was checked).
    mutating func _markVerified(_ slot: Int32, of checked: ImageTableMapping) {
        guard checked === mapping, slots[Int(slot)].status == .live else { return }
        slots[Int(slot)].verified = true
    }

    /// Drops the entry in `slot`, whose pixels do not match their checksum; true when it was still there.
    mutating func _discardDamaged(_ slot: Int32, of checked: ImageTableMapping) -> Bool {
        guard checked === mapping, slots[Int(slot)].status == .live else { return false }
        counters.corrupt += 1
        _free(slot)
        return true
    }

    // MARK: Writes

    /// Where the writer may draw next.
    enum Reservation {
        case slot(Int32)
        /// No free slot: the file must grow first.
        case grow
        /// At the maximum count with every entry's view held somewhere.
        case full
    }

    /// Reserves a slot for the writer: a free one nobody views, else a new chunk while under the maximum
    /// count, else the least recently used entry nobody views (evicted).
    mutating func _reserve() -> Reservation {
        var position = free.count - 1
        while position >= 0 {
            let slot = free[position]
            if slots[Int(slot)].view?.isStorageUniquelyReferenced() ?? true {
                free.remove(at: position)
                _markWriting(slot)
                return .slot(slot)
            }
            position -= 1
        }
        if slots.count < layout.maximumCount { return .grow }
        var candidate = tail
        while candidate >= 0 {
            let i = Int(candidate)
            if slots[i].view?.isStorageUniquelyReferenced() ?? true {
                _forget(candidate)
                _unlink(candidate)
                _markWriting(candidate)
                counters.evictions += 1
                return .slot(candidate)
            }
            candidate = slots[i].newer
        }
        return .full
    }

    /// Adds the slots of one more chunk (the file has grown).
    mutating func _addChunk() {
        chunkCount += 1
        let end = layout.capacity(chunks: chunkCount)
        let start = slots.count
        guard end > start else { return }
        slots.append(contentsOf: repeatElement(ImageTableSlot(), count: end - start))
        free.append(contentsOf: (start..<end).reversed().map { Int32($0) })
    }

    /// Gives a reserved slot back (the drawing failed).
    mutating func _release(_ slot: Int32) {
        slots[Int(slot)].status = .free
        free.append(slot)
    }

    /// The next write sequence number.
    mutating func _nextSequence() -> UInt64 {
        defer { sequence += 1 }
        return sequence
    }

    /// Makes the complete entry in `slot` the entry of `entity`, replacing any earlier one, and returns its
    /// view (nil only if the entry's memory cannot be viewed, which a valid layout rules out).
    mutating func _publish(_ slot: Int32, entity: String, source: String, key: ImageTableKey) -> Bitmap? {
        if let old = index[entity] { _free(old) }
        if let old = pending[key] { _free(old) }
        let i = Int(slot)
        if slots[i].view == nil { slots[i].view = _makeView(i) }
        guard slots[i].view != nil else {
            _release(slot)
            return nil
        }
        index[entity] = slot
        slots[i].status = .live
        slots[i].verified = true
        slots[i].entity = entity
        slots[i].source = source
        _pushFront(slot)
        return slots[i].view
    }

    /// Drops the entry of `entity`; true when there was one.
    mutating func _delete(entity: String) -> Bool {
        if let slot = index[entity] {
            _free(slot)
            return true
        }
        guard !pending.isEmpty, let slot = pending[ImageTableKey(entity)] else { return false }
        _free(slot)
        return true
    }

    /// Writes the LRU order into the records' last-access words (oldest first, numbered from `sequence`).
    mutating func _persistAccessOrder() {
        var slot = tail
        while slot >= 0 {
            ImageTableRecord.storeLastAccess(_nextSequence(), to: _recordPointer(Int(slot)))
            slot = slots[Int(slot)].newer
        }
    }

    // MARK: Slots

    func _recordPointer(_ slot: Int) -> UnsafeMutableRawPointer { mapping.base + layout.recordOffset(slot) }

    func _pixelPointer(_ slot: Int) -> UnsafeMutableRawPointer { mapping.base + layout.pixelOffset(slot) }

    private func _makeView(_ slot: Int) -> Bitmap? {
        Bitmap(
            width: layout.width, height: layout.height, format: layout.pixelFormat, borrowing: _pixelPointer(slot),
            owner: mapping)
    }

    private mutating func _markWriting(_ slot: Int32) {
        let i = Int(slot)
        slots[i].status = .writing
        slots[i].verified = false
        slots[i].entity = nil
        slots[i].source = nil
    }

    /// Removes the entry in `slot` from the index (or the pending entries).
    private mutating func _forget(_ slot: Int32) {
        let i = Int(slot)
        if slots[i].status == .pending {
            pending[ImageTableRecord.load(from: _recordPointer(i)).entity] = nil
        } else if let entity = slots[i].entity {
            index[entity] = nil
        }
    }

    /// Frees the slot of a live or pending entry: forgotten, its record marked free, out of the LRU list.
    /// Its view stays, so that the slot is not reused while someone still holds a copy.
    private mutating func _free(_ slot: Int32) {
        _forget(slot)
        _unlink(slot)
        ImageTableRecord.storeState(ImageTableRecord.free, to: _recordPointer(Int(slot)))
        let i = Int(slot)
        slots[i].status = .free
        slots[i].verified = false
        slots[i].entity = nil
        slots[i].source = nil
        free.append(slot)
    }

    // MARK: LRU list

    private mutating func _pushFront(_ slot: Int32) {
        let i = Int(slot)
        slots[i].newer = -1
        slots[i].older = head
        if head >= 0 { slots[Int(head)].newer = slot }
        head = slot
        if tail < 0 { tail = slot }
    }

    private mutating func _unlink(_ slot: Int32) {
        let i = Int(slot)
        let newer = slots[i].newer, older = slots[i].older
        if newer >= 0 { slots[Int(newer)].older = older } else if head == slot { head = older }
        if older >= 0 { slots[Int(older)].newer = newer } else if tail == slot { tail = newer }
        slots[i].newer = -1
        slots[i].older = -1
    }

    private mutating func _moveToFront(_ slot: Int32) {
        guard head != slot else { return }
        _unlink(slot)
        _pushFront(slot)
    }
}

/// What a table counted since it was opened.
struct ImageTableCounters {
    var hits = 0
    var misses = 0
    var corrupt = 0
    var discarded = 0
    var evictions = 0
}
