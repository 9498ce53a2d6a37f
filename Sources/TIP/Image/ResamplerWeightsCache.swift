/// The last few ``ResamplerWeights`` built, so that resizing many images between the same sizes (a
/// feed of thumbnails, decode-to-target) skips recomputing the kernels, which takes a noticeable share
/// of a small resize. Entries are immutable values; thread-safe.
enum ResamplerWeightsCache {
    private struct Key: Equatable {
        let filter: ResamplingFilter
        let sourceCount: Int
        let count: Int
        let extentBits: UInt64?
        let window: Range<Int>?
    }

    /// Most recently used last.
    private static let entries = Locked<[(key: Key, weights: ResamplerWeights)]>([])
    private static let capacity = 8
    /// Tables of more weights than this (each kept in several layouts, about 14 bytes per weight) are
    /// rebuilt every time rather than kept; a large resize hardly notices the cost.
    private static let largestKept = 1 << 14

    /// `ResamplerWeights(filter:sourceCount:count:sourceExtent:window:)`, from the cache when it was built recently.
    static func weights(
        filter: ResamplingFilter, sourceCount: Int, count: Int, sourceExtent: Double? = nil, window: Range<Int>? = nil
    ) -> ResamplerWeights {
        let key = Key(
            filter: filter, sourceCount: sourceCount, count: count, extentBits: sourceExtent?.bitPattern, window: window
        )
        let cached: ResamplerWeights? = entries.withLock { list in
            guard let index = list.firstIndex(where: { $0.key == key }) else { return nil }
            let entry = list.remove(at: index)
            list.append(entry)
            return entry.weights
        }
        if let cached { return cached }
        let weights = ResamplerWeights(
            filter: filter, sourceCount: sourceCount, count: count, sourceExtent: sourceExtent, window: window)
        if weights.count * weights.stride <= largestKept {
            entries.withLock { list in
                if !list.contains(where: { $0.key == key }) {
                    if list.count >= capacity { list.removeFirst() }
                    list.append((key, weights))
                }
            }
        }
        return weights
    }
}
