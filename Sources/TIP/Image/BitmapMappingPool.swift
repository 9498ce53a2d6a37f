import Foundation

/// Large bitmap buffers released lately, kept mapped for the next bitmap of the same size.
///
/// Large bitmaps live in their own mappings (``PageMapping``) so that their pages go back to the system
/// instead of staying in glibc's heaps. A fresh mapping costs a page fault per 4 KiB on first write, which
/// made a thumbnail decode about 20% slower than reusing warm heap memory; decoding the same sizes over and
/// over (a list of thumbnails) now reuses a warm mapping instead. A pool keeps at most ``capacity`` bytes
/// and is emptied by ``drain()`` (``GlobalConfiguration/handleMemoryPressure()`` drains the shared one).
final class BitmapMappingPool: Sendable {
    /// The pool every bitmap uses: 8 MiB per processor, 16-64 MiB. What it serves is the decodes running at
    /// once, which the processors bound; each kept byte stays resident (a fixed 32 MiB was 7 MB of the main
    /// job's peak RSS on 2 cores, for no CPU saved over 16 MiB).
    static let shared = BitmapMappingPool(
        capacity: defaultCapacity(processors: Processors.active))

    /// The shared pool's capacity on a machine with `processors` processors.
    static func defaultCapacity(processors: Int) -> Int {
        min(max(processors * 8, 16), 64) << 20
    }

    /// The most bytes kept for reuse.
    let capacity: Int

    /// Kept mappings, oldest first, as address bit patterns (raw pointers are not `Sendable`).
    private let kept = Locked<[(address: UInt, length: Int)]>([])

    /// A pool keeping up to `capacity` bytes.
    init(capacity: Int) {
        self.capacity = capacity
    }

    deinit { drain() }

    /// The largest kept mapping that a smaller request may cut a piece from: half a huge page. Larger ones
    /// (a progressive decode's coefficient arrays, a big PNG's rows) stay whole for the next request of their
    /// size, which a piece cut off them could no longer serve.
    static let largestCut = 1 << 20

    /// The smallest piece of a cut mapping worth keeping: the smallest bitmap that gets a mapping
    /// (``BitmapStorage/mappingThreshold``). A smaller rest goes back to the system.
    static let smallestPiece = 64 * 1024

    /// A mapping of at least `byteCount` bytes: a kept one at most a quarter larger (any larger one with
    /// `acceptingAnyLarger`, for scratch memory whose unused tail is never touched), or the first `byteCount`
    /// bytes (whole pages) cut from the smallest kept one that is larger still but at most ``largestCut``, else
    /// a new one (`isNew`: all zero; its pages provided at once when `populated`, see
    /// ``PageMapping/map(_:populated:)``); nil when the system refuses one.
    ///
    /// Cutting lets a thumbnail reuse the pages of the larger scaled decode it was resampled from, and a decode
    /// those of a larger one before it, where each used to be a new populated mapping unless the pool held a
    /// mapping of nearly its size.
    func take(
        _ byteCount: Int, acceptingAnyLarger: Bool = false, populated: Bool = false
    ) -> (pointer: UnsafeMutableRawPointer, length: Int, isNew: Bool)? {
        guard byteCount > 0, byteCount <= Int.max - PageMapping.pageSize else { return nil }
        let rounded = (byteCount + PageMapping.pageSize - 1) / PageMapping.pageSize * PageMapping.pageSize
        var rest: (address: UInt, length: Int)?
        let reused = kept.withLock { kept -> (UInt, Int)? in
            var best: Int?
            for (index, entry) in kept.enumerated() where entry.length >= rounded {
                let fits =
                    acceptingAnyLarger || entry.length - rounded <= rounded / 4 || entry.length <= Self.largestCut
                if fits, best.map({ entry.length < kept[$0].length }) ?? true { best = index }
            }
            guard let best else { return nil }
            let entry = kept[best]
            guard !acceptingAnyLarger, entry.length - rounded > rounded / 4 else {
                kept.remove(at: best)
                return (entry.address, entry.length)
            }
            // Cut: the rest stays where the mapping was (as old as it), or goes back when too small to use.
            let remainder = (address: entry.address + UInt(rounded), length: entry.length - rounded)
            if remainder.length >= Self.smallestPiece {
                kept[best] = remainder
            } else {
                kept.remove(at: best)
                rest = remainder
            }
            return (entry.address, rounded)
        }
        if let rest { unmap(rest) }
        if let (address, length) = reused, let pointer = UnsafeMutableRawPointer(bitPattern: address) {
            return (pointer, length, false)
        }
        return PageMapping.map(byteCount, populated: populated).map { ($0.pointer, $0.length, true) }
    }

    /// Gives a mapping back: kept for reuse while the pool has room (the oldest ones make way), else unmapped.
    /// A kept neighbour in memory (the rest of a mapping it was cut from, or an adjacent one) joins it while the
    /// two together are at most ``largestCut``, so that cut mappings grow whole again and stay cuttable; larger
    /// neighbours stay apart, each for a request of its own size.
    func give(_ pointer: UnsafeMutableRawPointer, length: Int) {
        guard length <= capacity else { return PageMapping.unmap(pointer, length: length) }
        let evicted = kept.withLock { kept -> [(address: UInt, length: Int)] in
            var joined = (address: UInt(bitPattern: pointer), length: length)
            if let before = kept.firstIndex(where: {
                $0.address + UInt($0.length) == joined.address && $0.length + joined.length <= Self.largestCut
            }) {
                joined = (kept[before].address, kept[before].length + joined.length)
                kept.remove(at: before)
            }
            if let after = kept.firstIndex(where: {
                $0.address == joined.address + UInt(joined.length) && $0.length + joined.length <= Self.largestCut
            }) {
                joined.length += kept[after].length
                kept.remove(at: after)
            }
            kept.append(joined)
            var total = kept.reduce(0) { $0 + $1.length }
            var evicted: [(address: UInt, length: Int)] = []
            while total > capacity {
                let oldest = kept.removeFirst()
                total -= oldest.length
                evicted.append(oldest)
            }
            return evicted
        }
        for entry in evicted { unmap(entry) }
    }

    /// Unmaps every kept mapping.
    func drain() {
        let all = kept.withLock { kept -> [(address: UInt, length: Int)] in
            defer { kept.removeAll() }
            return kept
        }
        for entry in all { unmap(entry) }
    }

    /// Bytes kept for reuse now.
    var keptBytes: Int { kept.withLock { $0.reduce(0) { $0 + $1.length } } }

    private func unmap(_ entry: (address: UInt, length: Int)) {
        if let pointer = UnsafeMutableRawPointer(bitPattern: entry.address) {
            PageMapping.unmap(pointer, length: entry.length)
        }
    }
}
