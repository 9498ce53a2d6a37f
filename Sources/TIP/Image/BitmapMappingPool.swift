import Foundation

/// Large bitmap buffers released lately, kept mapped for the next bitmap of the same size.
///
/// Large bitmaps live in their own mappings (``PageMapping``) so that their pages go back to the system
/// instead of staying in glibc's heaps. A fresh mapping costs a page fault per 4 KiB on first write, which
/// made a thumbnail decode about 20% slower than reusing warm heap memory; decoding the same sizes over and
/// over (a list of thumbnails) now reuses a warm mapping instead. A pool keeps at most ``capacity`` bytes
/// and is emptied by ``drain()`` (``GlobalConfiguration/handleMemoryPressure()`` drains the shared one).
final class BitmapMappingPool: Sendable {
    /// The pool every bitmap uses: 4 MiB per processor, 8-32 MiB. What it serves is the decodes running at
    /// once, which the processors bound; each kept byte stays resident (on 2 cores, 8 MiB saved as much CPU in a
    /// warm main job as 16 MiB, for 4 MB less peak RSS).
    static let shared = BitmapMappingPool(capacity: defaultCapacity(processors: Processors.active) / 2)

    /// The pool of decoders' scratch memory (a progressive JPEG's coefficient arrays, taken at any larger size):
    /// 8 MiB per processor, 16-64 MiB. Apart from the bitmaps' so that the stream of small bitmaps given back (one
    /// or two per fetch) does not push out the few large mappings every progressive decode reuses: in one pool
    /// they were evicted a dozen times a warm main job, and each new one costs its pages again (0.6-16 ms for
    /// 5 MB of huge pages on the benchmark machine).
    static let scratch = BitmapMappingPool(capacity: defaultCapacity(processors: Processors.active))

    /// The scratch pool's capacity on a machine with `processors` processors (the shared pool's is half).
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

    /// A mapping of at least `byteCount` bytes: a kept one at most a quarter larger (any larger one with
    /// `acceptingAnyLarger`, for scratch memory whose unused tail is never touched), else a new one (`isNew`:
    /// all zero; its pages provided at once when `populated`, see ``PageMapping/map(_:populated:)``); nil
    /// when the system refuses one.
    func take(
        _ byteCount: Int, acceptingAnyLarger: Bool = false, populated: Bool = false
    ) -> (pointer: UnsafeMutableRawPointer, length: Int, isNew: Bool)? {
        let reused = kept.withLock { kept -> (UInt, Int)? in
            var best: Int?
            for (index, entry) in kept.enumerated()
            where entry.length >= byteCount && (acceptingAnyLarger || entry.length - byteCount <= byteCount / 4) {
                if best.map({ entry.length < kept[$0].length }) ?? true { best = index }
            }
            guard let best else { return nil }
            let entry = kept.remove(at: best)
            return (entry.address, entry.length)
        }
        if let (address, length) = reused, let pointer = UnsafeMutableRawPointer(bitPattern: address) {
            return (pointer, length, false)
        }
        return PageMapping.map(byteCount, populated: populated).map { ($0.pointer, $0.length, true) }
    }

    /// Gives a mapping back: kept for reuse while the pool has room (the oldest ones make way), else unmapped.
    func give(_ pointer: UnsafeMutableRawPointer, length: Int) {
        guard length <= capacity else { return PageMapping.unmap(pointer, length: length) }
        let evicted = kept.withLock { kept -> [(address: UInt, length: Int)] in
            kept.append((UInt(bitPattern: pointer), length))
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

    /// Whether the mapping at `pointer` is kept for reuse now.
    func holds(_ pointer: UnsafeMutableRawPointer) -> Bool {
        let address = UInt(bitPattern: pointer)
        return kept.withLock { $0.contains { $0.address == address } }
    }

    /// Bytes kept for reuse now.
    var keptBytes: Int { kept.withLock { $0.reduce(0) { $0 + $1.length } } }

    private func unmap(_ entry: (address: UInt, length: Int)) {
        if let pointer = UnsafeMutableRawPointer(bitPattern: entry.address) {
            PageMapping.unmap(pointer, length: entry.length)
        }
    }
}
