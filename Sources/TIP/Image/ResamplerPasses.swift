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

    private static let half = Int32(1) << (ResamplerWeights.precision - 1)
    private static let shift = Int32(ResamplerWeights.precision)

    /// Filters rows `rows` of `source` horizontally into `destination` (`weights.count` pixels wide,
    /// `weights.sourceCount` source pixels) for `bytesPerPixel` 4 or 1.
    static func horizontal(_ buffers: Buffers, rows: Range<Int>, weights: ResamplerWeights, bytesPerPixel: Int, finish: Finish) {
        let (source, sourceStride) = (buffers.source, buffers.sourceStride)
        let (destination, destinationStride) = (buffers.destination, buffers.destinationStride)
        weights.starts.withUnsafeBufferPointer { starts in
            weights.tapCounts.withUnsafeBufferPointer { counts in
                weights.weights.withUnsafeBufferPointer { table in
                    guard let starts = starts.baseAddress, let counts = counts.baseAddress, let table = table.baseAddress else { return }
                    if bytesPerPixel == 4 {
                        horizontal4(source: source, sourceStride: sourceStride, destination: destination,
                                    destinationStride: destinationStride, rows: rows, width: weights.count,
                                    starts: starts, counts: counts, table: table, stride: weights.stride, finish: finish)
                    } else {
                        horizontal1(source: source, sourceStride: sourceStride, destination: destination,
                                    destinationStride: destinationStride, rows: rows, width: weights.count,
                                    starts: starts, counts: counts, table: table, stride: weights.stride)
                    }
                }
            }
        }
    }

    private static func horizontal4(
        source: UnsafeRawPointer, sourceStride: Int, destination: UnsafeMutableRawPointer, destinationStride: Int,
        rows: Range<Int>, width: Int, starts: UnsafePointer<Int32>, counts: UnsafePointer<Int32>,
        table: UnsafePointer<Int16>, stride: Int, finish: Finish
    ) {
        let zero = SIMD4<Int32>(repeating: 0), max = SIMD4<Int32>(repeating: 255)
        for y in rows {
            let s = source + y * sourceStride
            let d = destination + y * destinationStride
            for x in 0..<width {
                let p = s + Int(starts[x]) * 4
                let w = table + x * stride
                let n = Int(counts[x])
                var acc = SIMD4<Int32>(repeating: half)
                var i = 0
                while i < n {
                    let px = SIMD4<Int32>(truncatingIfNeeded: p.loadUnaligned(fromByteOffset: i * 4, as: SIMD4<UInt8>.self))
                    acc &+= px &* SIMD4<Int32>(repeating: Int32(w[i]))
                    i += 1
                }
                var v = (acc &>> shift).clamped(lowerBound: zero, upperBound: max)
                switch finish {
                case .none: break
                case .premultiplied: v = pointwiseMin(v, SIMD4(repeating: v[3]))
                case .opaque: v[3] = 255
                }
                d.storeBytes(of: SIMD4<UInt8>(truncatingIfNeeded: v), toByteOffset: x * 4, as: SIMD4<UInt8>.self)
            }
        }
    }

    private static func horizontal1(
        source: UnsafeRawPointer, sourceStride: Int, destination: UnsafeMutableRawPointer, destinationStride: Int,
        rows: Range<Int>, width: Int, starts: UnsafePointer<Int32>, counts: UnsafePointer<Int32>,
        table: UnsafePointer<Int16>, stride: Int
    ) {
        for y in rows {
            let s = (source + y * sourceStride).assumingMemoryBound(to: UInt8.self)
            let d = (destination + y * destinationStride).assumingMemoryBound(to: UInt8.self)
            for x in 0..<width {
                let p = s + Int(starts[x])
                let w = table + x * stride
                let n = Int(counts[x])
                var acc = half
                for i in 0..<n {
                    acc &+= Int32(p[i]) &* Int32(w[i])
                }
                d[x] = UInt8(truncatingIfNeeded: Swift.min(255, Swift.max(0, acc &>> shift)))
            }
        }
    }

    /// Filters `source` vertically into rows `rows` of `destination` (`weights.count` rows from
    /// `weights.sourceCount`), `rowBytes` used bytes per row. Works 16 bytes at a time across the row,
    /// so the format only matters for `finish`.
    static func vertical(_ buffers: Buffers, rows: Range<Int>, rowBytes: Int, weights: ResamplerWeights, finish: Finish) {
        let (source, sourceStride) = (buffers.source, buffers.sourceStride)
        let (destination, destinationStride) = (buffers.destination, buffers.destinationStride)
        weights.starts.withUnsafeBufferPointer { starts in
            weights.tapCounts.withUnsafeBufferPointer { counts in
                weights.weights.withUnsafeBufferPointer { table in
                    guard let starts = starts.baseAddress, let counts = counts.baseAddress, let table = table.baseAddress else { return }
                    vertical(source: source, sourceStride: sourceStride, destination: destination,
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
        let zero = SIMD16<Int32>(repeating: 0), max = SIMD16<Int32>(repeating: 255)
        var alphaMask = SIMD16<UInt8>(repeating: 0)
        for lane in Swift.stride(from: 3, to: 16, by: 4) { alphaMask[lane] = 255 }
        for y in rows {
            let first = source + Int(starts[y]) * sourceStride
            let n = Int(counts[y])
            let w = table + y * stride
            let d = destination + y * destinationStride
            var x = 0
            while x < span {
                var acc = SIMD16<Int32>(repeating: half)
                var r = first + x
                for i in 0..<n {
                    let px = SIMD16<Int32>(truncatingIfNeeded: r.load(as: SIMD16<UInt8>.self))
                    acc &+= px &* SIMD16<Int32>(repeating: Int32(w[i]))
                    r += sourceStride
                }
                var v = SIMD16<UInt8>(truncatingIfNeeded: (acc &>> SIMD16(repeating: shift)).clamped(lowerBound: zero, upperBound: max))
                switch finish {
                case .none: break
                case .premultiplied:
                    let words = unsafeBitCast(v, to: SIMD4<UInt32>.self)
                    let alpha = (words &>> 24) &* 0x0101_0101
                    v = pointwiseMin(v, unsafeBitCast(alpha, to: SIMD16<UInt8>.self))
                case .opaque:
                    v |= alphaMask
                }
                (d + x).storeBytes(of: v, as: SIMD16<UInt8>.self)
                x += 16
            }
            if span > rowBytes {
                (d + rowBytes).initializeMemory(as: UInt8.self, repeating: 0, count: span - rowBytes)
            }
        }
    }

    /// Copies, for rows `rows`, the source pixel nearest to each destination pixel's centre.
    static func nearest(_ buffers: Buffers, rows: Range<Int>, columns: ResamplerWeights, lines: ResamplerWeights, bytesPerPixel: Int) {
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
                            d.storeBytes(of: s.load(fromByteOffset: Int(xs[x]) * 4, as: UInt32.self), toByteOffset: x * 4, as: UInt32.self)
                        }
                    } else {
                        for x in 0..<width {
                            d.storeBytes(of: s.load(fromByteOffset: Int(xs[x]), as: UInt8.self), toByteOffset: x, as: UInt8.self)
                        }
                    }
                }
            }
        }
    }
}
