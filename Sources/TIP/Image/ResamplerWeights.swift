import Foundation

/// The fixed-point filter taps of one axis of a resize: for every destination coordinate, the first
/// source index, how many consecutive source pixels contribute and their weights.
///
/// Weights carry ``precision`` fractional bits and those of every destination coordinate sum exactly to
/// ``one``, so a solid colour survives any resize unchanged. Taps never reach outside the source: near
/// the edges a resize's kernel is cut and renormalised, and a convolution's (``init(kernel:count:)``)
/// folds the weights that fall outside onto the edge pixel.
struct ResamplerWeights: Sendable {
    /// Fractional bits of every weight.
    static var precision: Int { 14 }
    /// The fixed-point value of weight 1.
    static var one: Int32 { 1 << precision }

    /// Source pixels along this axis that the taps read (all of them unless built with a window).
    let sourceCount: Int
    /// Index, in the whole source, of source pixel 0 of these taps (0 unless built with a window).
    let sourceOffset: Int
    /// Destination and source pixels of the whole mapping, and the taps its kernel spans (from its
    /// support and scale): the same with or without a window, so that decisions made from them (the
    /// order of the passes) do not depend on the window.
    let whole: (count: Int, sourceCount: Int, taps: Int)
    /// Destination pixels along this axis.
    let count: Int
    /// Distance between the weights of consecutive destination coordinates in ``weights`` (the largest
    /// tap count, rounded up to a multiple of 4).
    let stride: Int
    /// Largest tap count of any destination coordinate.
    let maxTaps: Int
    /// First contributing source index of each destination coordinate.
    let starts: [Int32]
    /// Number of contributing source pixels of each destination coordinate (at least 1).
    let tapCounts: [Int32]
    /// `count * stride` weights; the entries past a coordinate's tap count are zero.
    let weights: [Int16]
    /// The same taps laid out for reading whole blocks of 4 source pixels: coordinate x reads
    /// `blockCounts[x]` blocks from `blockStarts[x]`, with its weights (zero where a block overhangs its
    /// taps) at `blockWeights[x * stride]`. Blocks stay inside ``blockSourceCount`` pixels.
    let blockStarts: [Int32]
    /// Number of 4-pixel blocks each destination coordinate reads (see ``blockStarts``).
    let blockCounts: [Int32]
    /// `count * stride` weights for the block layout (see ``blockStarts``).
    let blockWeights: [Int16]
    /// Source pixels the block layout may read: ``sourceCount``, or ``stride`` when the source is
    /// narrower than that (the reader then pads the source with zero pixels, which get zero weights).
    let blockSourceCount: Int
    /// The taps in pairs for 16-bit multiply-adds: entry `x * pairStride + k` holds, in each of its 4
    /// lanes, the weights of taps `2k` (low 16 bits) and `2k + 1` (high 16 bits) of coordinate x; a
    /// missing odd tap and the pairs past the last are zero.
    let pairWeights: [SIMD4<Int32>]
    /// Distance between the pairs of consecutive destination coordinates in ``pairWeights``.
    var pairStride: Int { stride / 2 }
    /// The taps in groups of 8 for the 1-byte horizontal pass: entry `x * octetStride + g` holds the
    /// weights of taps `8g ..< 8g + 8` of coordinate x, zero past the last.
    let octetWeights: [SIMD8<Int16>]
    /// Groups of 8 taps per destination coordinate in ``octetWeights``.
    let octetStride: Int
    /// Whether the paired passes may be used: every coordinate's absolute weights add up to little
    /// enough that a sum of 8-bit samples, scaled down, fits in 16 bits (always true in practice; kernels
    /// cut at an edge could in theory renormalise to huge weights).
    let pairsFit: Bool

    /// The taps of `filter` mapping `sourceCount` pixels onto `count` (both > 0). Pixel centres sit at
    /// +0.5; when shrinking, the kernel is widened by the scale factor so that it also low-passes.
    /// `sourceExtent` (default `sourceCount`) is the length in source pixels that the destination
    /// spans, for a source whose last pixel stands for less than a whole pixel (a partial box).
    ///
    /// With `window`, only the destination coordinates in `window` (a non-empty part of `0..<count`) are
    /// kept, with exactly the taps they have in the whole mapping; the source is then trimmed to the
    /// pixels they read: ``sourceOffset`` is the first of them and every start is relative to it
    /// (resampling a sub-rectangle of the output reads only the part of the source under it).
    init(filter: ResamplingFilter, sourceCount: Int, count: Int, sourceExtent: Double? = nil, window: Range<Int>? = nil)
    {
        precondition(sourceCount > 0 && count > 0, "resampler weights need positive sizes")
        let coordinates = window ?? 0..<count
        precondition(
            !coordinates.isEmpty && coordinates.lowerBound >= 0 && coordinates.upperBound <= count,
            "window outside the destination")
        let scale = (sourceExtent ?? Double(sourceCount)) / Double(count)
        let filterScale = max(scale, 1)
        let support = filter.support * filterScale
        let reach = min(sourceCount, Int(support.rounded(.up)) * 2 + 4)
        var taps = Taps(coordinates: coordinates.count, reach: reach)
        taps.whole = (count, sourceCount, filter == .nearest ? 1 : min(sourceCount, Int((2 * support).rounded(.up))))
        for x in coordinates {
            if filter == .nearest {
                // Exact integer form of floor((x + 0.5) * scale).
                taps.appendSingle(min(sourceCount - 1, (2 * x + 1) * sourceCount / (2 * count)))
                continue
            }
            let centre = (Double(x) + 0.5) * scale
            let first = max(0, Int((centre - support).rounded(.down)))
            let end = min(sourceCount, Int((centre + support).rounded(.up)) + 1)
            taps.append(first: first, count: end - first, fallback: min(sourceCount - 1, max(0, Int(centre)))) { i in
                filter.value(at: (Double(first + i) + 0.5 - centre) / filterScale)
            }
        }
        self.init(sourceCount: sourceCount, taps: taps, trimsSource: window != nil)
    }

    /// The taps of a convolution of `count` pixels (> 0) with `kernel`, an odd number of weights centred on
    /// the middle one, at the same size: destination pixel x is `sum(kernel[j] * source[x - radius + j])`
    /// with indices outside the source clamped to the edge (the edge pixels repeat), normalised to sum to one.
    init(kernel: [Double], count: Int) {
        precondition(count > 0 && kernel.count % 2 == 1, "convolution weights need a positive size and an odd kernel")
        let radius = kernel.count / 2
        let reach = min(count, kernel.count)
        var taps = Taps(coordinates: count, reach: reach)
        taps.whole = (count, count, reach)
        var folded = [Double](repeating: 0, count: reach)
        for x in 0..<count {
            let first = max(0, x - radius), end = min(count, x + radius + 1)
            for i in 0..<(end - first) { folded[i] = 0 }
            for (j, weight) in kernel.enumerated() {
                let index = min(count - 1, max(0, x - radius + j))
                folded[index - first] += weight
            }
            taps.append(first: first, count: end - first, fallback: x) { folded[$0] }
        }
        self.init(sourceCount: count, taps: taps, trimsSource: false)
    }

    /// Every coordinate's quantised taps, as the initialisers collect them.
    private struct Taps {
        var starts: [Int32] = []
        var tapCounts: [Int32] = []
        /// Every coordinate's kept taps, back to back; coordinate x owns tapCounts[x] of them.
        var kept: [Int32] = []
        var maxTaps = 1
        var whole = (count: 0, sourceCount: 0, taps: 0)
        private var real: [Double]
        private var quantised: [Int32]

        init(coordinates: Int, reach: Int) {
            starts.reserveCapacity(coordinates)
            tapCounts.reserveCapacity(coordinates)
            kept.reserveCapacity(coordinates * min(reach, 8))
            real = [Double](repeating: 0, count: reach)
            quantised = [Int32](repeating: 0, count: reach)
        }

        /// One coordinate reading only source pixel `index`, with weight one.
        mutating func appendSingle(_ index: Int) {
            starts.append(Int32(index))
            tapCounts.append(1)
            kept.append(ResamplerWeights.one)
        }

        /// One coordinate whose `count` real weights (from `weight(i)`, for source pixel `first + i`) are
        /// normalised and quantised to sum exactly to one; when they add up to nothing, source pixel
        /// `fallback` alone.
        mutating func append(first: Int, count n: Int, fallback: Int, weight: (Int) -> Double) {
            var total = 0.0
            for i in 0..<n {
                let w = weight(i)
                real[i] = w
                total += w
            }
            guard total > 1e-12 else {
                appendSingle(fallback)
                return
            }
            var sum: Int32 = 0
            var largest = 0
            for i in 0..<n {
                let q = Int32(clamping: Int((real[i] / total * Double(ResamplerWeights.one)).rounded()))
                quantised[i] = q
                sum += q
                if abs(q) > abs(quantised[largest]) { largest = i }
            }
            quantised[largest] += ResamplerWeights.one - sum
            // Drop taps whose weight rounded to zero at both ends: they cost time and add nothing.
            var lo = 0, hi = n
            while lo < hi - 1 && quantised[lo] == 0 { lo += 1 }
            while hi - 1 > lo && quantised[hi - 1] == 0 { hi -= 1 }
            starts.append(Int32(first + lo))
            tapCounts.append(Int32(hi - lo))
            maxTaps = max(maxTaps, hi - lo)
            kept.append(contentsOf: quantised[lo..<hi])
        }
    }

    /// The layouts of `taps`; with `trimsSource`, the source is first trimmed to the pixels the taps read.
    private init(sourceCount fullSourceCount: Int, taps: Taps, trimsSource: Bool) {
        var starts = taps.starts
        let tapCounts = taps.tapCounts, kept = taps.kept, maxTaps = taps.maxTaps
        let count = starts.count
        var sourceCount = fullSourceCount
        var sourceOffset = 0
        if trimsSource {
            var lowest = Int.max, highest = 0
            for x in 0..<count {
                lowest = min(lowest, Int(starts[x]))
                highest = max(highest, Int(starts[x] + tapCounts[x]))
            }
            sourceOffset = lowest
            sourceCount = highest - lowest
            for x in 0..<count { starts[x] -= Int32(lowest) }
        }
        self.sourceOffset = sourceOffset
        self.sourceCount = sourceCount
        self.whole = taps.whole
        self.count = count
        let stride = (maxTaps + 3) / 4 * 4
        var weights = [Int16](repeating: 0, count: count * stride)
        var next = 0
        for x in 0..<count {
            for i in 0..<Int(tapCounts[x]) {
                weights[x * stride + i] = Int16(clamping: kept[next])
                next += 1
            }
        }
        let blockSourceCount = max(sourceCount, stride)
        var blockStarts = [Int32](repeating: 0, count: count)
        var blockCounts = [Int32](repeating: 0, count: count)
        var blockWeights = [Int16](repeating: 0, count: count * stride)
        for x in 0..<count {
            let taps = Int(tapCounts[x])
            let blocks = (taps + 3) / 4
            // Slide the window left when its blocks would overhang the end of the source.
            let start = min(Int(starts[x]), blockSourceCount - blocks * 4)
            let shift = Int(starts[x]) - start
            blockStarts[x] = Int32(start)
            blockCounts[x] = Int32((shift + taps + 3) / 4)
            for i in 0..<taps {
                blockWeights[x * stride + shift + i] = weights[x * stride + i]
            }
        }
        var pairWeights = [SIMD4<Int32>](repeating: SIMD4(repeating: 0), count: count * stride / 2)
        var largestAbsoluteSum = 0
        for x in 0..<count {
            var absoluteSum = 0
            for k in 0..<(stride / 2) {
                let low = weights[x * stride + 2 * k], high = weights[x * stride + 2 * k + 1]
                absoluteSum += abs(Int(low)) + abs(Int(high))
                let pair = Int32(bitPattern: UInt32(UInt16(bitPattern: low)) | UInt32(UInt16(bitPattern: high)) << 16)
                pairWeights[x * stride / 2 + k] = SIMD4(repeating: pair)
            }
            largestAbsoluteSum = max(largestAbsoluteSum, absoluteSum)
        }
        self.pairWeights = pairWeights
        let octetStride = (maxTaps + 7) / 8
        var octetWeights = [SIMD8<Int16>](repeating: SIMD8(repeating: 0), count: count * octetStride)
        for x in 0..<count {
            for i in 0..<Int(tapCounts[x]) {
                octetWeights[x * octetStride + i / 8][i % 8] = weights[x * stride + i]
            }
        }
        self.octetWeights = octetWeights
        self.octetStride = octetStride
        // 255 * sum >> precision stays below 2^15.
        self.pairsFit = largestAbsoluteSum * 255 < 1 << (15 + Self.precision)
        self.blockSourceCount = blockSourceCount
        self.blockStarts = blockStarts
        self.blockCounts = blockCounts
        self.blockWeights = blockWeights
        self.starts = starts
        self.tapCounts = tapCounts
        self.weights = weights
        self.stride = stride
        self.maxTaps = maxTaps
    }
}
