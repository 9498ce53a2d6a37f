import Synchronization

/// The 64 bytes that describe one entry, in its chunk's record block.
///
/// ```
/// 0  UInt32 state        free (0), being written, or valid: the last word written
/// 4  UInt32 checksum     of the slot number, the state and bytes 8..<48
/// 8  entity key          16 bytes: digest of the entity identifier
/// 24 source key          16 bytes: digest of the source identifier
/// 40 UInt64 pixel checksum  of the entry's pixels, seeded with the keys, the slot and the write sequence
/// 48 UInt64 write sequence  which of two records of one entity is newer
/// 56 UInt64 last access     LRU order across launches (not checksummed: rewritten in place)
/// ```
///
/// A write marks the record `writing`, writes the pixels, then the fields, and `valid` last (with fences in
/// between), so a process killed at any instruction leaves either the old state, a `writing` record (dropped
/// when the table is opened) or a complete entry. The checksums catch what a kill cannot explain (a power
/// cut writing pages back out of order, a damaged disk): the record's on open, the pixels' on an entry's
/// first retrieval in a process.
struct ImageTableRecord: Equatable {
    static let free: UInt32 = 0
    static let writing: UInt32 = 0x5752_4954
    static let valid: UInt32 = 0x5641_4C44

    var state: UInt32
    var checksum: UInt32
    var entity: ImageTableKey
    var source: ImageTableKey
    var pixelChecksum: UInt64
    var writeSequence: UInt64
    var lastAccess: UInt64

    /// The record stored at `p`.
    static func load(from p: UnsafeRawPointer) -> ImageTableRecord {
        func word(_ offset: Int) -> UInt64 {
            UInt64(littleEndian: p.loadUnaligned(fromByteOffset: offset, as: UInt64.self))
        }
        return ImageTableRecord(
            state: UInt32(littleEndian: p.loadUnaligned(as: UInt32.self)),
            checksum: UInt32(littleEndian: p.loadUnaligned(fromByteOffset: 4, as: UInt32.self)),
            entity: ImageTableKey(low: word(8), high: word(16)),
            source: ImageTableKey(low: word(24), high: word(32)),
            pixelChecksum: word(40), writeSequence: word(48), lastAccess: word(56))
    }

    /// The checksum of this record as the entry of `slot`.
    func expectedChecksum(slot: Int) -> UInt32 {
        var sum = ImageTableChecksum.Words(seed: 0x5245_434F_5244)
        sum.add(UInt64(slot))
        sum.add(UInt64(state))
        sum.add(entity.low)
        sum.add(entity.high)
        sum.add(source.low)
        sum.add(source.high)
        sum.add(pixelChecksum)
        sum.add(writeSequence)
        return UInt32(truncatingIfNeeded: sum.value ^ (sum.value >> 32))
    }

    /// Whether this is a complete, undamaged record of the entry in `slot`.
    func isValid(slot: Int) -> Bool { state == Self.valid && checksum == expectedChecksum(slot: slot) }

    /// The seed of the pixel checksum of this entry in `slot`: pixels left by an earlier entry of the slot
    /// never match a newer record.
    func pixelSeed(slot: Int) -> UInt64 {
        entity.low ^ (source.low &* 31) ^ (writeSequence &* 0x9E37_79B9_7F4A_7C15) ^ (UInt64(slot) << 40)
    }

    /// Writes the whole record at `p` with `state` last, a fence before it: a reader of the file never sees
    /// `valid` before the rest.
    func store(to p: UnsafeMutableRawPointer) {
        p.storeBytes(of: checksum.littleEndian, toByteOffset: 4, as: UInt32.self)
        p.storeBytes(of: entity.low.littleEndian, toByteOffset: 8, as: UInt64.self)
        p.storeBytes(of: entity.high.littleEndian, toByteOffset: 16, as: UInt64.self)
        p.storeBytes(of: source.low.littleEndian, toByteOffset: 24, as: UInt64.self)
        p.storeBytes(of: source.high.littleEndian, toByteOffset: 32, as: UInt64.self)
        p.storeBytes(of: pixelChecksum.littleEndian, toByteOffset: 40, as: UInt64.self)
        p.storeBytes(of: writeSequence.littleEndian, toByteOffset: 48, as: UInt64.self)
        p.storeBytes(of: lastAccess.littleEndian, toByteOffset: 56, as: UInt64.self)
        atomicMemoryFence(ordering: .sequentiallyConsistent)
        p.storeBytes(of: state.littleEndian, as: UInt32.self)
        atomicMemoryFence(ordering: .sequentiallyConsistent)
    }

    /// Sets only the state word at `p` (`free` or `writing`), fenced on both sides.
    static func storeState(_ state: UInt32, to p: UnsafeMutableRawPointer) {
        atomicMemoryFence(ordering: .sequentiallyConsistent)
        p.storeBytes(of: state.littleEndian, as: UInt32.self)
        atomicMemoryFence(ordering: .sequentiallyConsistent)
    }

    /// Rewrites only the last-access word at `p` (outside the checksum).
    static func storeLastAccess(_ value: UInt64, to p: UnsafeMutableRawPointer) {
        p.storeBytes(of: value.littleEndian, toByteOffset: 56, as: UInt64.self)
    }
}
