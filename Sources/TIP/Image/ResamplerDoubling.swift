/// Doubles the size of a 4-byte-pixel bitmap with linear interpolation: each output pixel is 3/4 of the
/// source pixel it lies in plus 1/4 of the nearest neighbour, `(a + 3b + 2) / 4`, rows first, then
/// columns, edge pixels repeated. These are the taps the ``Resampler``'s triangle filter has for this
/// mapping (a source whose pixels each cover 2x2 output pixels, the last row or column possibly 1),
/// computed in 16-bit lanes without the general passes' per-pixel tap tables: the enlarging step of
/// ``GaussianBlurRenderer``'s halved levels.
enum ResamplerDoubling {
    /// `bitmap` (4 bytes a pixel) enlarged to twice its size, keeping the `width` x `height` pixels that
    /// start at (2 `origin`, 2 `origin`): with `origin` 0, the whole result (`width` and `height` each twice
    /// the source's side or 1 less); with a margin of `origin` ≥ 1 source pixels on every side, the part
    /// under the source's inside, without computing the rest.
    static func doubled(_ bitmap: Bitmap, width: Int, height: Int, origin: Int = 0, parallelThreshold: Int) -> Bitmap {
        precondition(bitmap.format.bytesPerPixel == 4, "doubling works on 4-byte pixels")
        precondition(
            origin >= 0 && origin + (width + 1) / 2 <= bitmap.width && origin + (height + 1) / 2 <= bitmap.height,
            "doubling: the kept part lies outside the source")
        guard var out = Bitmap(uninitializedWidth: width, height: height, format: bitmap.format) else {
            preconditionFailure("doubling: the output bitmap could not be allocated")
        }
        let sourceRows = bitmap.height, columns = bitmap.width
        let tallStride = (columns * 4 + Bitmap.rowAlignment - 1) / Bitmap.rowAlignment * Bitmap.rowAlignment
        let outStride = out.bytesPerRow, sourceStride = bitmap.bytesPerRow
        bitmap.withUnsafeBytes { src in
            out.withUnsafeMutableBytes { dst in
                guard let s = src.baseAddress, let d = dst.baseAddress else { return }
                let buffers = ResamplerPasses.Buffers(
                    source: s, sourceStride: sourceStride, destination: d, destinationStride: outStride)
                // Each band doubles its rows into its own buffer of tall rows, then their columns: one
                // parallel section rather than two.
                Resampler.forEachBand(rows: height, work: width * height, threshold: parallelThreshold) { band in
                    let tall = UnsafeMutableRawPointer.allocate(
                        byteCount: band.count * tallStride, alignment: Bitmap.rowAlignment)
                    defer { tall.deallocate() }
                    let rows = ResamplerPasses.Buffers(
                        source: buffers.source, sourceStride: sourceStride,
                        destination: tall - band.lowerBound * tallStride,
                        destinationStride: tallStride)
                    doubleRows(band, rows, sourceRows: sourceRows, rowBytes: columns * 4, origin: origin)
                    let columnsPass = ResamplerPasses.Buffers(
                        source: tall - band.lowerBound * tallStride, sourceStride: tallStride,
                        destination: buffers.destination, destinationStride: outStride)
                    doubleColumns(band, columnsPass, columns: columns, width: width, origin: origin)
                }
            }
        }
        return out
    }

    /// Output rows `rows` (kept row y is row `y + 2 origin` of the whole result): even row 2i is
    /// `(row[i - 1] + 3 row[i] + 2) / 4`, odd row 2i + 1 is `(3 row[i] + row[i + 1] + 2) / 4`, rows clamped
    /// to the source.
    private static func doubleRows(
        _ rows: Range<Int>, _ buffers: ResamplerPasses.Buffers, sourceRows: Int, rowBytes: Int, origin: Int
    ) {
        let span = (rowBytes + 15) & ~15
        for y in rows {
            let i = origin + y / 2
            let near = buffers.source + i * buffers.sourceStride
            let farIndex = y % 2 == 0 ? max(i - 1, 0) : min(i + 1, sourceRows - 1)
            let far = buffers.source + farIndex * buffers.sourceStride
            let target = buffers.destination + y * buffers.destinationStride
            var x = 0
            while x < span {
                let mixed = mix(
                    near: near.load(fromByteOffset: x, as: SIMD16<UInt8>.self),
                    far: far.load(fromByteOffset: x, as: SIMD16<UInt8>.self))
                (target + x).storeBytes(of: mixed, as: SIMD16<UInt8>.self)
                x &+= 16
            }
            if span > rowBytes {
                (target + rowBytes).initializeMemory(as: UInt8.self, repeating: 0, count: span - rowBytes)
            }
        }
    }

    /// Output rows `rows` from the rows of the same index (kept pixel x is pixel `x + 2 origin` of the whole
    /// row): pixel 2i is `(p[i - 1] + 3 p[i] + 2) / 4`, pixel 2i + 1 is `(3 p[i] + p[i + 1] + 2) / 4`, pixels
    /// clamped to the row.
    private static func doubleColumns(
        _ rows: Range<Int>, _ buffers: ResamplerPasses.Buffers, columns: Int, width: Int, origin: Int
    ) {
        // The row with its edge pixels repeated once on each side: [p0][p0 ... p(n-1)][p(n-1)], plus slack
        // for whole 16-byte reads from the kept part's groups of 4 source pixels.
        let groups = ((width + 1) / 2 + 3) / 4
        let size = (max(columns, origin + groups * 4) + 2) * 4 + 16
        let scratch = UnsafeMutableRawPointer.allocate(byteCount: size, alignment: 16)
        defer { scratch.deallocate() }
        scratch.initializeMemory(as: UInt8.self, repeating: 0, count: size)
        let row = scratch + 4
        let outBytes = width * 4, stride = buffers.destinationStride
        for y in rows {
            let source = buffers.source + y * buffers.sourceStride
            row.copyMemory(from: source, byteCount: columns * 4)
            scratch.storeBytes(of: source.load(as: UInt32.self), as: UInt32.self)
            (row + columns * 4).storeBytes(
                of: source.load(fromByteOffset: (columns - 1) * 4, as: UInt32.self), as: UInt32.self)
            let target = buffers.destination + y * stride
            let first = row + origin * 4
            for group in 0..<groups {
                let x = group &* 16
                let centre = (first + x).loadUnaligned(as: SIMD16<UInt8>.self)
                let even = mix(near: centre, far: (first + (x &- 4)).loadUnaligned(as: SIMD16<UInt8>.self))
                let odd = mix(near: centre, far: (first + (x &+ 4)).loadUnaligned(as: SIMD16<UInt8>.self))
                let e = unsafeBitCast(even, to: SIMD4<UInt32>.self), o = unsafeBitCast(odd, to: SIMD4<UInt32>.self)
                // 8 output pixels: e0 o0 e1 o1 | e2 o2 e3 o3. The last group may spill into the row's padding
                // (a row's 64-byte blocks always hold the 32-byte steps), zeroed below.
                let low = SIMD4<UInt32>(e[0], o[0], e[1], o[1]), high = SIMD4<UInt32>(e[2], o[2], e[3], o[3])
                let offset = x &* 2
                (target + offset).storeBytes(of: low, as: SIMD4<UInt32>.self)
                (target + (offset &+ 16)).storeBytes(of: high, as: SIMD4<UInt32>.self)
            }
            let written = groups * 32
            if written > outBytes {
                (target + outBytes).initializeMemory(
                    as: UInt8.self, repeating: 0, count: min(written, stride) - outBytes)
            }
        }
    }

    /// `(far + 3 near + 2) / 4` lane by lane.
    @inline(__always)
    private static func mix(near: SIMD16<UInt8>, far: SIMD16<UInt8>) -> SIMD16<UInt8> {
        let n: SIMD16<Int16> = ResamplerLanes.widen(near), f: SIMD16<Int16> = ResamplerLanes.widen(far)
        let threeNear: SIMD16<Int16> = n &+ (n &<< 1)
        let sum: SIMD16<Int16> = f &+ threeNear &+ SIMD16(repeating: 2)
        return ResamplerLanes.narrow(sum &>> 2)
    }
}
