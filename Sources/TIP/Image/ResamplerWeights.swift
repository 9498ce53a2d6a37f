import Foundation

/// The fixed-point filter taps of one axis of a resize: for every destination coordinate, the first
/// source index, how many consecutive source pixels contribute and their weights.
///
/// Weights carry ``precision`` fractional bits and those of every destination coordinate sum exactly to
/// ``one``, so a solid colour survives any resize unchanged. Taps never reach outside the source: near
/// the edges the kernel is cut and renormalised.
struct ResamplerWeights: Sendable {
    /// Fractional bits of every weight.
    static var precision: Int { 14 }
    /// The fixed-point value of weight 1.
    static var one: Int32 { 1 << precision }

    /// Source pixels along this axis.
    let sourceCount: Int
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
    init(filter: ResamplingFilter, sourceCount: Int, count: Int, sourceExtent: Double? = nil) {
        precondition(sourceCount > 0 && count > 0, "resampler weights need positive sizes")
        self.sourceCount = sourceCount
        self.count = count
        let scale = (sourceExtent ?? Double(sourceCount)) / Double(count)
        let filterScale = max(scale, 1)
        let support = filter.support * filterScale
        let reach = min(sourceCount, Int(support.rounded(.up)) * 2 + 4)

        var starts = [Int32](repeating: 0, count: count)
        var tapCounts = [Int32](repeating: 1, count: count)
        // Every coordinate's kept taps, back to back; coordinate x owns tapCounts[x] of them.
        var kept = [Int32]()
        kept.reserveCapacity(count * min(reach, 8))
        var real = [Double](repeating: 0, count: reach)
        var quantised = [Int32](repeating: 0, count: reach)
        var maxTaps = 1
        for x in 0..<count {
            if filter == .nearest {
                // Exact integer form of floor((x + 0.5) * scale).
                starts[x] = Int32(min(sourceCount - 1, (2 * x + 1) * sourceCount / (2 * count)))
                kept.append(Self.one)
                continue
            }
            let centre = (Double(x) + 0.5) * scale
            let first = max(0, Int((centre - support).rounded(.down)))
            let end = min(sourceCount, Int((centre + support).rounded(.up)) + 1)
            var total = 0.0
            var n = 0
            for i in first..<end {
                let w = filter.value(at: (Double(i) + 0.5 - centre) / filterScale)
                real[n] = w
                total += w
                n += 1
            }
            guard total > 1e-12 else {
                starts[x] = Int32(min(sourceCount - 1, max(0, Int(centre))))
                kept.append(Self.one)
                continue
            }
            var sum: Int32 = 0
            var largest = 0
            for i in 0..<n {
                let q = Int32(clamping: Int((real[i] / total * Double(Self.one)).rounded()))
                quantised[i] = q
                sum += q
                if abs(q) > abs(quantised[largest]) { largest = i }
            }
            quantised[largest] += Self.one - sum
            // Drop taps whose weight rounded to zero at both ends: they cost time and add nothing.
            var lo = 0, hi = n
            while lo < hi - 1 && quantised[lo] == 0 { lo += 1 }
            while hi - 1 > lo && quantised[hi - 1] == 0 { hi -= 1 }
            starts[x] = Int32(first + lo)
            tapCounts[x] = Int32(hi - lo)
            maxTaps = max(maxTaps, hi - lo)
            kept.append(contentsOf: quantised[lo..<hi])
        }
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
