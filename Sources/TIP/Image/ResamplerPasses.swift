/// The inner loops of ``Resampler``: one filtering pass along one axis over a band of destination rows,
/// reading and writing raw pixel rows. Callers guarantee that every row pointer covers
/// `stride` bytes, that strides are multiples of 64 and that buffers are 64-byte aligned.
enum ResamplerPasses {
    /// What the last pass does to each finished pixel besides rounding and clamping to 0...255.
    enum Finish: Sendable {
        /// Nothing (intermediate passes and gray).
        case none
        /// Colour channels clamped to alpha, restoring the premultiplied invariant after ringing.
        case premultiplied
        /// Fourth byte forced to 255 (`rgbx8`).
        case opaque
    }

    /// The pixel rows one pass reads and writes. `@unchecked Sendable`: the pointers are only used
    /// during one ``Resampler`` call, and the threads of a pass write disjoint destination rows.
    struct Buffers: @unchecked Sendable {
        let source: UnsafeRawPointer
        let sourceStride: Int
        let destination: UnsafeMutableRawPointer
        let destinationStride: Int
    }

    // Computed, not stored: a stored static is a lazy global behind `swift_once`, which the per-pixel
    // loops would call on every access in unoptimised builds (and contend on under ThreadSanitizer).
    private static var half: Int32 { 1 << (ResamplerWeights.precision - 1) }
    private static var shift: Int32 { Int32(ResamplerWeights.precision) }

    /// Filters rows `rows` of `source` horizontally into `destination` (`weights.count` pixels wide,
    /// `weights.sourceCount` source pixels) for `bytesPerPixel` 4 or 1.
    static func horizontal(
        _ buffers: Buffers, rows: Range<Int>, weights: ResamplerWeights, bytesPerPixel: Int, finish: Finish
    ) {
        // A source narrower than the block layout is read through a zero-padded copy of each row.
        let padded = weights.blockSourceCount > weights.sourceCount
        let scratch =
            padded
            ? UnsafeMutableRawPointer.allocate(byteCount: weights.blockSourceCount * bytesPerPixel, alignment: 16) : nil
        defer { scratch?.deallocate() }
        scratch?.initializeMemory(as: UInt8.self, repeating: 0, count: weights.blockSourceCount * bytesPerPixel)
        let band = Band(
            buffers: buffers, rows: rows, width: weights.count, stride: weights.stride,
            scratch: scratch, rowBytes: weights.sourceCount * bytesPerPixel)
        weights.blockStarts.withUnsafeBufferPointer { starts in
            weights.blockCounts.withUnsafeBufferPointer { counts in
                weights.blockWeights.withUnsafeBufferPointer { table in
                    guard let starts = starts.baseAddress, let counts = counts.baseAddress,
                        let table = table.baseAddress
                    else { return }
                    if bytesPerPixel == 4 {
                        // Few blocks: per-pixel sums finish cheaper; many: per-channel sums add cheaper.
                        if weights.stride <= 8 {
                            horizontal4(
                                band, starts: starts, counts: counts, table: table, finish: finish,
                                summingWith: PixelSums.self)
                        } else {
                            horizontal4(
                                band, starts: starts, counts: counts, table: table, finish: finish,
                                summingWith: ChannelSums.self)
                        }
                    } else {
                        horizontal1(band, starts: starts, counts: counts, table: table)
                    }
                }
            }
        }
    }

    /// Geometry shared by the horizontal loops.
    private struct Band {
        let buffers: Buffers
        let rows: Range<Int>
        let width: Int
        let stride: Int
        /// Zero-padded row copy for sources narrower than the block layout, else nil.
        let scratch: UnsafeMutableRawPointer?
        /// Used bytes of a source row.
        let rowBytes: Int

        /// Where the loops read source row `y`.
        @inline(__always)
        func sourceRow(_ y: Int) -> UnsafeRawPointer {
            let row = buffers.source + y * buffers.sourceStride
            guard let scratch else { return row }
            scratch.copyMemory(from: row, byteCount: rowBytes)
            return UnsafeRawPointer(scratch)
        }
    }

    /// One pixel's sums scaled down, clamped, finished and packed into its 4 bytes.
    @inline(__always)
    private static func finished(_ acc: SIMD4<Int32>, _ finish: Finish) -> UInt32 {
        var c = Planes.clamp(acc)
        switch finish {
        case .none: break
        case .premultiplied: c = Planes.min(c, SIMD4(repeating: c[3]))
        case .opaque: c[3] = 255
        }
        return c[0] | c[1] &<< 8 | c[2] &<< 16 | c[3] &<< 24
    }

    /// 4-byte pixels, 4 taps per step, summed by `Sums` (specialised, so no dynamic dispatch).
    private static func horizontal4<Sums: BlockSums>(
        _ band: Band, starts: UnsafePointer<Int32>, counts: UnsafePointer<Int32>, table: UnsafePointer<Int16>,
        finish: Finish, summingWith _: Sums.Type
    ) {
        let b = band.buffers
        for y in band.rows {
            let s = band.sourceRow(y)
            let d = b.destination + y * b.destinationStride
            for x in 0..<band.width {
                var p = s + Int(starts[x]) &* 4
                var w = UnsafeRawPointer(table + x &* band.stride)
                var sums = Sums()
                for _ in 0..<Int(counts[x]) {
                    sums.add(
                        p.loadUnaligned(as: SIMD4<UInt32>.self),
                        taps: SIMD4<Int32>(truncatingIfNeeded: w.loadUnaligned(as: SIMD4<Int16>.self)))
                    p += 16
                    w += 8
                }
                d.storeBytes(of: finished(sums.total, finish), toByteOffset: x &* 4, as: UInt32.self)
            }
        }
    }

    /// 1-byte pixels, 4 taps per step.
    private static func horizontal1(
        _ band: Band, starts: UnsafePointer<Int32>, counts: UnsafePointer<Int32>, table: UnsafePointer<Int16>
    ) {
        let b = band.buffers
        for y in band.rows {
            let s = band.sourceRow(y)
            let d = (b.destination + y * b.destinationStride).assumingMemoryBound(to: UInt8.self)
            for x in 0..<band.width {
                var p = s + Int(starts[x])
                var w = UnsafeRawPointer(table + x &* band.stride)
                var acc = SIMD4<Int32>(repeating: 0)
                for _ in 0..<Int(counts[x]) {
                    let px = SIMD4<Int32>(truncatingIfNeeded: p.loadUnaligned(as: SIMD4<UInt8>.self))
                    acc &+= px &* SIMD4<Int32>(truncatingIfNeeded: w.loadUnaligned(as: SIMD4<Int16>.self))
                    p += 4
                    w += 8
                }
                d[x] = UInt8(truncatingIfNeeded: Swift.min(255, Swift.max(0, (acc.wrappedSum() &+ half) &>> shift)))
            }
        }
    }

    /// Filters `source` vertically into rows `rows` of `destination` (`weights.count` rows from
    /// `weights.sourceCount`), `rowBytes` used bytes per row. Works 16 bytes at a time across the row,
    /// so the format only matters for `finish`.
    static func vertical(_ buffers: Buffers, rows: Range<Int>, rowBytes: Int, weights: ResamplerWeights, finish: Finish)
    {
        let (source, sourceStride) = (buffers.source, buffers.sourceStride)
        let (destination, destinationStride) = (buffers.destination, buffers.destinationStride)
        weights.starts.withUnsafeBufferPointer { starts in
            weights.tapCounts.withUnsafeBufferPointer { counts in
                weights.weights.withUnsafeBufferPointer { table in
                    guard let starts = starts.baseAddress, let counts = counts.baseAddress,
                        let table = table.baseAddress
                    else { return }
                    vertical(
                        source: source, sourceStride: sourceStride, destination: destination,
                        destinationStride: destinationStride, rows: rows, rowBytes: rowBytes,
                        starts: starts, counts: counts, table: table, stride: weights.stride, finish: finish)
                }
            }
        }
    }

    private static func vertical(
        source: UnsafeRawPointer, sourceStride: Int, destination: UnsafeMutableRawPointer, destinationStride: Int,
        rows: Range<Int>, rowBytes: Int, starts: UnsafePointer<Int32>, counts: UnsafePointer<Int32>,
        table: UnsafePointer<Int16>, stride: Int, finish: Finish
    ) {
        // Rows are 64-byte aligned and padded, so whole 16-byte chunks stay inside every row.
        let span = (rowBytes + 15) & ~15
        for y in rows {
            let first = source + Int(starts[y]) * sourceStride
            let n = Int(counts[y])
            let w = table + y * stride
            let d = destination + y * destinationStride
            var x = 0
            // Two chunks per step share each tap's weight and row pointer.
            while x + 32 <= span {
                var left = Planes(), right = Planes()
                var r = first + x
                for i in 0..<n {
                    let weight = w[i]
                    left.add(r.load(as: SIMD4<UInt32>.self), weight: weight)
                    right.add(r.load(fromByteOffset: 16, as: SIMD4<UInt32>.self), weight: weight)
                    r += sourceStride
                }
                (d + x).storeBytes(of: left.packed(finish), as: SIMD4<UInt32>.self)
                (d + x + 16).storeBytes(of: right.packed(finish), as: SIMD4<UInt32>.self)
                x += 32
            }
            if x < span {
                var acc = Planes()
                var r = first + x
                for i in 0..<n {
                    acc.add(r.load(as: SIMD4<UInt32>.self), weight: w[i])
                    r += sourceStride
                }
                (d + x).storeBytes(of: acc.packed(finish), as: SIMD4<UInt32>.self)
            }
            if span > rowBytes {
                (d + rowBytes).initializeMemory(as: UInt8.self, repeating: 0, count: span - rowBytes)
            }
        }
    }

    /// Fixed-point sums for 16 bytes seen as four 32-bit words, split by byte position: `b0` holds the
    /// lowest byte of each word (red of 4 pixels, or every fourth gray pixel), `b3` the highest. Only
    /// plain lane-wise integer operations, which the optimiser keeps inline and turns into
    /// 16-bit multiply-adds.
    private struct Planes {
        var b0 = SIMD4<Int32>(repeating: half), b1 = SIMD4<Int32>(repeating: half)
        var b2 = SIMD4<Int32>(repeating: half), b3 = SIMD4<Int32>(repeating: half)

        @inline(__always)
        mutating func add(_ words: SIMD4<UInt32>, weight: Int16) {
            let w = SIMD4<Int32>(repeating: Int32(weight))
            let mask = SIMD4<UInt32>(repeating: 0xFF)
            b0 &+= unsafeBitCast(words & mask, to: SIMD4<Int32>.self) &* w
            b1 &+= unsafeBitCast((words &>> 8) & mask, to: SIMD4<Int32>.self) &* w
            b2 &+= unsafeBitCast((words &>> 16) & mask, to: SIMD4<Int32>.self) &* w
            b3 &+= unsafeBitCast(words &>> 24, to: SIMD4<Int32>.self) &* w
        }

        /// Scaled down, clamped to 0...255, finished and packed back into words.
        @inline(__always)
        func packed(_ finish: Finish) -> SIMD4<UInt32> {
            let c0 = Planes.clamp(b0), c1 = Planes.clamp(b1), c2 = Planes.clamp(b2), c3 = Planes.clamp(b3)
            switch finish {
            case .none:
                return c0 | c1 &<< 8 | c2 &<< 16 | c3 &<< 24
            case .premultiplied:
                return Planes.min(c0, c3) | Planes.min(c1, c3) &<< 8 | Planes.min(c2, c3) &<< 16 | c3 &<< 24
            case .opaque:
                return c0 | c1 &<< 8 | c2 &<< 16 | SIMD4(repeating: 0xFF00_0000)
            }
        }

        /// `sum >> precision` clamped to 0...255, with sign masks instead of comparisons.
        @inline(__always)
        static func clamp(_ sum: SIMD4<Int32>) -> SIMD4<UInt32> {
            let v = sum &>> shift
            let nonNegative = v & ~(v &>> 31)
            let clamped = (nonNegative | ((SIMD4(repeating: 255) &- nonNegative) &>> 31)) & SIMD4(repeating: 255)
            return unsafeBitCast(clamped, to: SIMD4<UInt32>.self)
        }

        /// Lane-wise minimum of two vectors of values in 0...255.
        @inline(__always)
        static func min(_ a: SIMD4<UInt32>, _ b: SIMD4<UInt32>) -> SIMD4<UInt32> {
            let diff = b &- a
            return a &+ (diff & (SIMD4(repeating: 0) &- (diff &>> 31)))
        }
    }

    /// Copies, for rows `rows`, the source pixel nearest to each destination pixel's centre.
    static func nearest(
        _ buffers: Buffers, rows: Range<Int>, columns: ResamplerWeights, lines: ResamplerWeights, bytesPerPixel: Int
    ) {
        let (source, sourceStride) = (buffers.source, buffers.sourceStride)
        let (destination, destinationStride) = (buffers.destination, buffers.destinationStride)
        columns.starts.withUnsafeBufferPointer { xs in
            lines.starts.withUnsafeBufferPointer { ys in
                let width = columns.count
                for y in rows {
                    let s = source + Int(ys[y]) * sourceStride
                    let d = destination + y * destinationStride
                    if bytesPerPixel == 4 {
                        for x in 0..<width {
                            d.storeBytes(
                                of: s.load(fromByteOffset: Int(xs[x]) * 4, as: UInt32.self), toByteOffset: x * 4,
                                as: UInt32.self)
                        }
                    } else {
                        for x in 0..<width {
                            d.storeBytes(
                                of: s.load(fromByteOffset: Int(xs[x]), as: UInt8.self), toByteOffset: x, as: UInt8.self)
                        }
                    }
                }
            }
        }
    }
}
