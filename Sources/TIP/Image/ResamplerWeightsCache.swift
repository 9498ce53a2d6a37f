/// The ``ResamplerWeights`` built most recently, so that resizing many images between the same sizes (a
/// feed of thumbnails, decode-to-target) skips recomputing the kernels, which takes a noticeable share
/// of a small resize. A feed of photos has many sizes (300 web images to 200 px: about 100 different
/// axes), so it keeps up to 128 tables within a budget of weights rather than a handful. Entries are
/// immutable values; thread-safe.
enum ResamplerWeightsCache {
    private struct Key: Equatable {
        let filter: ResamplingFilter
        let sourceCount: Int
        let count: Int
        let extentBits: UInt64?
        let window: Range<Int>?
    }

    private struct Entries {
        /// Most recently used last.
        var list: [(key: Key, weights: ResamplerWeights)] = []
        /// The weights of the tables in `list`.
        var total = 0
    }

    private static let entries = Locked(Entries())
    private static let capacity = 128
    /// Tables of more weights than this (each kept in several layouts, about 14 bytes per weight) are
    /// rebuilt every time rather than kept; a large resize hardly notices the cost.
    private static let largestKept = 1 << 14
    /// The weights all kept tables may hold together: about 3.5 MB (a 200-pixel axis takes 2,000-3,000).
    private static let budget = 1 << 18

    /// The tables kept and their weights (for tests).
    static var kept: (tables: Int, weights: Int) { entries.withLock { ($0.list.count, $0.total) } }

    /// Whether the table for these sizes is kept now (for tests).
    static func isKept(filter: ResamplingFilter, sourceCount: Int, count: Int) -> Bool {
        let key = Key(filter: filter, sourceCount: sourceCount, count: count, extentBits: nil, window: nil)
        return entries.withLock { $0.list.contains { $0.key == key } }
    }

    /// The most tables kept, and the most weights they hold together.
    static var limits: (tables: Int, weights: Int) { (capacity, budget) }

    /// `ResamplerWeights(filter:sourceCount:count:sourceExtent:window:)`, from the cache when it was built recently.
    static func weights(
        filter: ResamplingFilter, sourceCount: Int, count: Int, sourceExtent: Double? = nil, window: Range<Int>? = nil
    ) -> ResamplerWeights {
        let key = Key(
            filter: filter, sourceCount: sourceCount, count: count, extentBits: sourceExtent?.bitPattern, window: window
        )
        let cached: ResamplerWeights? = entries.withLock { entries in
            guard let index = entries.list.lastIndex(where: { $0.key == key }) else { return nil }
            let entry = entries.list.remove(at: index)
            entries.list.append(entry)
            return entry.weights
        }
        if let cached { return cached }
        let weights = ResamplerWeights(
            filter: filter, sourceCount: sourceCount, count: count, sourceExtent: sourceExtent, window: window)
        let size = weights.count * weights.stride
        if size <= largestKept {
            entries.withLock { entries in
                guard !entries.list.contains(where: { $0.key == key }) else { return }
                while !entries.list.isEmpty && (entries.list.count >= capacity || entries.total + size > budget) {
                    let evicted = entries.list.removeFirst().weights
                    entries.total -= evicted.count * evicted.stride
                }
                entries.list.append((key, weights))
                entries.total += size
            }
        }
        return weights
    }
}
