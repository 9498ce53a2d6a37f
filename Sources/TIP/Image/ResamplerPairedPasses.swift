/// The passes of ``Resampler`` written around the 16-bit multiply-add of baseline x86-64 (SSE2
/// `pmaddwd`, 8 products summed in pairs into 4 32-bit lanes): for 4-byte pixels and for the vertical
/// pass, samples of two neighbouring taps sit side by side in 16-bit lanes and meet a pair of weights
/// from ``ResamplerWeights/pairWeights``; for 1-byte pixels, 8 neighbouring samples meet 8 weights of
/// ``ResamplerWeights/octetWeights``. The integer sums, and so the output bytes, are exactly those of
/// ``ResamplerPasses``; only the order of the additions differs. The 4-byte horizontal pass and the
/// vertical pass need ``ResamplerWeights/pairsFit``. Same buffer contract as ``ResamplerPasses``.
enum ResamplerPairedPasses {
    typealias Buffers = ResamplerPasses.Buffers
    typealias Finish = ResamplerPasses.Finish

    // Computed, not stored: see ``ResamplerPasses``.
    private static var half: Int32 { 1 << (ResamplerWeights.precision - 1) }

    /// Filters rows `rows` of `source` (4-byte pixels) horizontally into `destination`.
    static func horizontal4(_ buffers: Buffers, rows: Range<Int>, weights: ResamplerWeights, finish: Finish) {
        let sourceCount = weights.sourceCount
        // Every coordinate runs the same number of pairs (the extra weights are zero), so the loop
        // branches the same way every time.
        let pairCount = (weights.maxTaps + 1) / 2
        // One 16-byte entry per source pixel i: the channels of pixels i and i + 1, interleaved; then
        // zero entries for the pairs read past the last pixel.
        let filled = (sourceCount + 3) / 4 * 4, tail = 2 * pairCount
        let pairs = UnsafeMutableRawPointer.allocate(byteCount: (filled + tail) * 16, alignment: 64)
        defer { pairs.deallocate() }
        (pairs + filled * 16).initializeMemory(as: UInt8.self, repeating: 0, count: tail * 16)
        weights.starts.withUnsafeBufferPointer { starts in
            weights.pairWeights.withUnsafeBufferPointer { table in
                guard let starts = starts.baseAddress, let table = table.baseAddress else { return }
                let width = weights.count, pairStride = weights.pairStride
                for y in rows {
                    let row = buffers.source + y * buffers.sourceStride
                    interleaveNeighbours(row, count: sourceCount, stride: buffers.sourceStride, into: pairs)
                    let d = buffers.destination + y * buffers.destinationStride
                    @inline(__always)
                    func sum(_ x: Int) -> SIMD4<Int32> {
                        var p = UnsafeRawPointer(pairs) + Int(starts[x]) &* 16
                        var w = table + x &* pairStride
                        var acc = SIMD4<Int32>(repeating: half)
                        for _ in 0..<pairCount {
                            acc &+= multiplyAdd(
                                p.load(as: SIMD8<Int16>.self), unsafeBitCast(w.pointee, to: SIMD8<Int16>.self))
                            p += 32
                            w += 1
                        }
                        return acc
                    }
                    var x = 0
                    while x &+ 4 <= width {
                        let bytes = packed(sum(x), sum(x &+ 1), sum(x &+ 2), sum(x &+ 3), finish)
                        (d + x &* 4).storeBytes(of: bytes, as: SIMD16<UInt8>.self)
                        x &+= 4
                    }
                    while x < width {
                        let a = sum(x)
                        let bytes = packed(a, a, a, a, finish)
                        (d + x &* 4).storeBytes(of: unsafeBitCast(bytes, to: SIMD4<UInt32>.self)[0], as: UInt32.self)
                        x &+= 1
                    }
                }
            }
        }
    }

    /// Writes, for each of the `count` 4-byte pixels i of `row`, 8 16-bit lanes
    /// `(r[i], r[i+1], g[i], g[i+1], b[i], b[i+1], a[i], a[i+1])` at `pairs + 16 * i` (pixel `count` is
    /// the row's zero padding, or zero). `stride` bytes of `row` are readable.
    @inline(__always)
    private static func interleaveNeighbours(
        _ row: UnsafeRawPointer, count: Int, stride: Int, into pairs: UnsafeMutableRawPointer
    ) {
        var i = 0
        while i < count {
            let a = (row + i &* 4).load(as: SIMD16<UInt8>.self)
            let b: SIMD16<UInt8>
            if i &* 4 &+ 20 <= stride {
                b = (row + (i &* 4 &+ 4)).loadUnaligned(as: SIMD16<UInt8>.self)
            } else {
                let words = unsafeBitCast(a, to: SIMD4<UInt32>.self)
                b = unsafeBitCast(SIMD4<UInt32>(words[1], words[2], words[3], 0), to: SIMD16<UInt8>.self)
            }
            let low = interleave(a.lowHalf, b.lowHalf), high = interleave(a.highHalf, b.highHalf)
            let out = pairs + i &* 16
            out.storeBytes(of: ResamplerLanes.widen(low.lowHalf), as: SIMD8<Int16>.self)
            (out + 16).storeBytes(of: ResamplerLanes.widen(low.highHalf), as: SIMD8<Int16>.self)
            (out + 32).storeBytes(of: ResamplerLanes.widen(high.lowHalf), as: SIMD8<Int16>.self)
            (out + 48).storeBytes(of: ResamplerLanes.widen(high.highHalf), as: SIMD8<Int16>.self)
            i &+= 4
        }
    }

    /// Filters rows `rows` of `source` (1-byte pixels) horizontally into `destination`: the row is
    /// widened to 16 bits once, then each destination pixel multiplies 8 neighbouring samples at a time
    /// by 8 weights of ``ResamplerWeights/octetWeights``.
    static func horizontal1(_ buffers: Buffers, rows: Range<Int>, weights: ResamplerWeights) {
        let sourceCount = weights.sourceCount, groups = weights.octetStride
        // Samples past the row's 16-byte chunks are zero, for the groups read past the last pixel.
        let filled = (sourceCount + 15) / 16 * 16, tail = groups * 8
        let samples = UnsafeMutableRawPointer.allocate(byteCount: (filled + tail) * 2, alignment: 64)
        defer { samples.deallocate() }
        (samples + filled * 2).initializeMemory(as: UInt8.self, repeating: 0, count: tail * 2)
        let shift = Int32(ResamplerWeights.precision)
        weights.starts.withUnsafeBufferPointer { starts in
            weights.octetWeights.withUnsafeBufferPointer { table in
                guard let starts = starts.baseAddress, let table = table.baseAddress else { return }
                let width = weights.count
                for y in rows {
                    let row = buffers.source + y * buffers.sourceStride
                    var i = 0
                    while i < sourceCount {
                        let bytes = (row + i).load(as: SIMD16<UInt8>.self)
                        (samples + i &* 2).storeBytes(of: ResamplerLanes.widen(bytes), as: SIMD16<Int16>.self)
                        i &+= 16
                    }
                    let d = (buffers.destination + y * buffers.destinationStride).assumingMemoryBound(to: UInt8.self)
                    for x in 0..<width {
                        var p = UnsafeRawPointer(samples) + Int(starts[x]) &* 2
                        var w = table + x &* groups
                        var acc = SIMD4<Int32>(repeating: 0)
                        for _ in 0..<groups {
                            acc &+= multiplyAdd(p.loadUnaligned(as: SIMD8<Int16>.self), w.pointee)
                            p += 16
                            w += 1
                        }
                        let value = (acc.wrappedSum() &+ half) &>> shift
                        d[x] = UInt8(truncatingIfNeeded: Swift.min(255, Swift.max(0, value)))
                    }
                }
            }
        }
    }

    /// Filters `source` vertically into rows `rows` of `destination`, `rowBytes` used bytes per row,
    /// 16 bytes at a time, two source rows per multiply-add.
    static func vertical(_ buffers: Buffers, rows: Range<Int>, rowBytes: Int, weights: ResamplerWeights, finish: Finish)
    {
        let (source, sourceStride) = (buffers.source, buffers.sourceStride)
        // Rows are 64-byte aligned and padded, so whole 16-byte chunks stay inside every row.
        let span = (rowBytes + 15) & ~15
        weights.starts.withUnsafeBufferPointer { starts in
            weights.tapCounts.withUnsafeBufferPointer { counts in
                weights.pairWeights.withUnsafeBufferPointer { table in
                    guard let starts = starts.baseAddress, let counts = counts.baseAddress,
                        let table = table.baseAddress
                    else { return }
                    for y in rows {
                        let first = source + Int(starts[y]) * sourceStride
                        let n = Int(counts[y])
                        let w = table + y * weights.pairStride
                        let d = buffers.destination + y * buffers.destinationStride
                        var x = 0
                        while x < span {
                            var a0 = SIMD4<Int32>(repeating: half), a1 = a0, a2 = a0, a3 = a0
                            var r = first + x
                            var k = 0
                            @inline(__always)
                            func add(_ upper: SIMD16<UInt8>, _ lower: SIMD16<UInt8>) {
                                let weight = unsafeBitCast(w[k], to: SIMD8<Int16>.self)
                                let low = interleave(upper.lowHalf, lower.lowHalf),
                                    high = interleave(upper.highHalf, lower.highHalf)
                                a0 &+= multiplyAdd(ResamplerLanes.widen(low.lowHalf), weight)
                                a1 &+= multiplyAdd(ResamplerLanes.widen(low.highHalf), weight)
                                a2 &+= multiplyAdd(ResamplerLanes.widen(high.lowHalf), weight)
                                a3 &+= multiplyAdd(ResamplerLanes.widen(high.highHalf), weight)
                            }
                            while k &* 2 &+ 2 <= n {
                                add(r.load(as: SIMD16<UInt8>.self), (r + sourceStride).load(as: SIMD16<UInt8>.self))
                                r += sourceStride &* 2
                                k &+= 1
                            }
                            if n & 1 != 0 {
                                // The pair's second weight is zero and the row below may not exist: pair the row with
                                // itself.
                                let last = r.load(as: SIMD16<UInt8>.self)
                                add(last, last)
                            }
                            (d + x).storeBytes(of: packed(a0, a1, a2, a3, finish), as: SIMD16<UInt8>.self)
                            x &+= 16
                        }
                        if span > rowBytes {
                            (d + rowBytes).initializeMemory(as: UInt8.self, repeating: 0, count: span - rowBytes)
                        }
                    }
                }
            }
        }
    }

    // MARK: - Lane helpers, written so that LLVM selects single SSE2 instructions

    /// `(a0*b0 + a1*b1, a2*b2 + a3*b3, ...)`: `pmaddwd`.
    @inline(__always)
    private static func multiplyAdd(_ a: SIMD8<Int16>, _ b: SIMD8<Int16>) -> SIMD4<Int32> {
        let products = ResamplerLanes.widen(a) &* ResamplerLanes.widen(b)
        return products.evenHalf &+ products.oddHalf
    }

    /// `(a0, b0, a1, b1, ...)`: `punpcklbw`.
    @inline(__always)
    private static func interleave(_ a: SIMD8<UInt8>, _ b: SIMD8<UInt8>) -> SIMD16<UInt8> {
        SIMD16(a[0], b[0], a[1], b[1], a[2], b[2], a[3], b[3], a[4], b[4], a[5], b[5], a[6], b[6], a[7], b[7])
    }

    /// Four pixels' sums (one pixel, channels in lanes, per argument) scaled down, clamped to 0...255,
    /// finished and packed into 16 bytes. The scaled sums fit in 16 bits (``ResamplerWeights/pairsFit``).
    @inline(__always)
    private static func packed(
        _ a0: SIMD4<Int32>, _ a1: SIMD4<Int32>, _ a2: SIMD4<Int32>, _ a3: SIMD4<Int32>, _ finish: Finish
    ) -> SIMD16<UInt8> {
        let shift = Int32(ResamplerWeights.precision)
        var low = clamp(ResamplerLanes.narrow(SIMD8(lowHalf: a0 &>> shift, highHalf: a1 &>> shift)))
        var high = clamp(ResamplerLanes.narrow(SIMD8(lowHalf: a2 &>> shift, highHalf: a3 &>> shift)))
        if case .premultiplied = finish {
            low = minimum(low, alphas(low))
            high = minimum(high, alphas(high))
        }
        let bytes = ResamplerLanes.narrow(SIMD16(lowHalf: low, highHalf: high))
        if case .opaque = finish {
            return unsafeBitCast(
                unsafeBitCast(bytes, to: SIMD4<UInt32>.self) | SIMD4(repeating: 0xFF00_0000), to: SIMD16<UInt8>.self)
        }
        return bytes
    }

    /// Lanes clamped to 0...255 with sign masks.
    @inline(__always)
    private static func clamp(_ v: SIMD8<Int16>) -> SIMD8<Int16> {
        let nonNegative = v & ~(v &>> 15)
        return (nonNegative | ((SIMD8(repeating: 255) &- nonNegative) &>> 15)) & SIMD8(repeating: 255)
    }

    /// Each pixel's alpha (lanes 3 and 7) repeated over its 4 lanes, with shifts: a lane shuffle here
    /// would keep LLVM from recognising the clamps around it.
    @inline(__always)
    private static func alphas(_ v: SIMD8<Int16>) -> SIMD8<Int16> {
        var pixels = unsafeBitCast(v, to: SIMD2<UInt64>.self) &>> 48
        pixels |= pixels &<< 16
        pixels |= pixels &<< 32
        return unsafeBitCast(pixels, to: SIMD8<Int16>.self)
    }

    /// Lane-wise minimum of two vectors of values in 0...255.
    @inline(__always)
    private static func minimum(_ a: SIMD8<Int16>, _ b: SIMD8<Int16>) -> SIMD8<Int16> {
        let difference = b &- a
        return a &+ (difference & (difference &>> 15))
    }
}
