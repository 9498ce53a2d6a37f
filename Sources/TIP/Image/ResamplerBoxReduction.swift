/// Exact integer-factor box averaging, which ``Resampler`` runs before its filter when an axis shrinks
/// by a large factor: the filter then works on a source at most a few times larger than the result,
/// which is far cheaper than a kernel hundreds of taps wide and changes the result very little.
enum ResamplerBoxReduction {
    /// The filter is always left at least this much shrinking to do, so it still antialiases properly.
    static var remainingFactor: Int { 3 }
    /// Largest box side; keeps every box sum and its scaled form inside 64-bit arithmetic with room.
    static var maximumFactor: Int { 255 }

    /// The box side to pre-shrink an axis by when it goes from `source` to `count` pixels (1 = none).
    static func factor(source: Int, count: Int) -> Int {
        min(maximumFactor, max(1, source / (count * remainingFactor)))
    }

    /// `bitmap` with every `factorX` x `factorY` box averaged into one pixel (rounded to nearest).
    /// Boxes at the right and bottom edges may be partial and average what they cover, so the result is
    /// `ceil(width / factorX)` x `ceil(height / factorY)`. Averaging keeps colour ≤ alpha and keeps
    /// `rgbx8` opaque. Splits the rows across threads when half the source pixel count exceeds
    /// `parallelThreshold`.
    ///
    /// With `region` (source pixels, origin on the box grid, ending on it or at the bitmap's edge), only
    /// the boxes inside it are averaged: the result is that part of the whole reduction.
    static func reduce(
        _ bitmap: Bitmap, factorX: Int, factorY: Int, region: (x: Int, y: Int, width: Int, height: Int)? = nil,
        parallelThreshold: Int = Resampler.defaultParallelThreshold
    ) -> Bitmap {
        let area = region ?? (0, 0, bitmap.width, bitmap.height)
        precondition(
            area.x % factorX == 0 && area.y % factorY == 0 && area.width > 0 && area.height > 0
                && area.x + area.width <= bitmap.width && area.y + area.height <= bitmap.height,
            "box reduction region off the grid")
        let (w, h) = (area.width, area.height)
        let outW = (w + factorX - 1) / factorX, outH = (h + factorY - 1) / factorY
        guard var out = Bitmap(uninitializedWidth: outW, height: outH, format: bitmap.format) else {
            preconditionFailure("box reduction: the output bitmap could not be allocated")
        }
        let bpp = bitmap.format.bytesPerPixel
        let srcStride = bitmap.bytesPerRow, dstStride = out.bytesPerRow
        bitmap.withUnsafeBytes { src in
            out.withUnsafeMutableBytes { dst in
                guard let s = src.baseAddress, let d = dst.baseAddress else { return }
                let origin = s + area.y * srcStride + area.x * bpp
                let buffers = ResamplerPasses.Buffers(
                    source: origin, sourceStride: srcStride, destination: d, destinationStride: dstStride)
                Resampler.forEachBand(rows: outH, work: w * h / 2, threshold: parallelThreshold) { band in
                    reduceRows(
                        band, buffers, width: w, height: h, outWidth: outW, bytesPerPixel: bpp, factorX: factorX,
                        factorY: factorY)
                }
            }
        }
        return out
    }

    /// Output rows `rows` of ``reduce(_:factorX:factorY:parallelThreshold:)``.
    private static func reduceRows(
        _ rows: Range<Int>, _ buffers: ResamplerPasses.Buffers, width w: Int, height h: Int, outWidth outW: Int,
        bytesPerPixel bpp: Int, factorX: Int, factorY: Int
    ) {
        // One running sum per output pixel of the current output row not made by the fast path (4 lanes;
        // gray uses lane 0).
        let sums = UnsafeMutablePointer<SIMD4<UInt32>>.allocate(capacity: outW)
        defer { sums.deallocate() }
        for oy in rows {
            let firstRow = oy * factorY, count = min(factorY, h - firstRow)
            let target = buffers.destination + oy * buffers.destinationStride
            // Output pixels already made by the 2x2 fast path (whole boxes only).
            var done = 0
            if factorX == 2 && factorY == 2 && count == 2 && bpp == 4 {
                let upper = buffers.source + firstRow * buffers.sourceStride
                done = reduce2x2(upper, upper + buffers.sourceStride, width: w, into: target)
            }
            guard done < outW else { continue }
            sums.initialize(repeating: SIMD4(repeating: 0), count: outW - done)
            let skipped = done * factorX * bpp
            for r in 0..<count {
                let row = buffers.source + (firstRow + r) * buffers.sourceStride + skipped
                if bpp == 4 {
                    addRow4(row, width: w - done * factorX, factor: factorX, into: sums)
                } else {
                    addRow1(row, width: w - done * factorX, factor: factorX, into: sums)
                }
            }
            for ox in done..<outW {
                let n = UInt64(min(factorX, w - ox * factorX) * count)
                // Multiply by a rounded reciprocal: exact for any n up to maximumFactor².
                let reciprocal = ((1 << 32) + n / 2) / n
                let sum = sums[ox - done]
                for c in 0..<bpp {
                    let average = (UInt64(sum[c]) &* reciprocal &+ (1 << 31)) >> 32
                    target.storeBytes(
                        of: UInt8(truncatingIfNeeded: average), toByteOffset: ox * bpp + c, as: UInt8.self)
                }
            }
        }
    }

    /// The first output pixels of a 2x2 reduction of the 4-byte rows `upper` and `lower` (`width` pixels),
    /// 4 at a time in 16-bit lanes, into `target`: as many whole boxes as fill groups of 4. Returns how many
    /// were made; the same values as the general path, `(sum + 2) / 4`.
    private static func reduce2x2(
        _ upper: UnsafeRawPointer, _ lower: UnsafeRawPointer, width: Int, into target: UnsafeMutableRawPointer
    ) -> Int {
        let count = width / 8 * 4
        var ox = 0
        @inline(__always)
        func pixelSums(_ a: SIMD8<UInt8>, _ b: SIMD8<UInt8>) -> SIMD4<Int16> {
            let two = ResamplerLanes.widen(a) &+ ResamplerLanes.widen(b)
            return two.lowHalf &+ two.highHalf
        }
        while ox < count {
            let a = (upper + ox &* 8).loadUnaligned(as: SIMD32<UInt8>.self),
                b = (lower + ox &* 8).loadUnaligned(as: SIMD32<UInt8>.self)
            let low = SIMD8(
                lowHalf: pixelSums(a.lowHalf.lowHalf, b.lowHalf.lowHalf),
                highHalf: pixelSums(a.lowHalf.highHalf, b.lowHalf.highHalf))
            let high = SIMD8(
                lowHalf: pixelSums(a.highHalf.lowHalf, b.highHalf.lowHalf),
                highHalf: pixelSums(a.highHalf.highHalf, b.highHalf.highHalf))
            let rounded = SIMD16(lowHalf: (low &+ 2) &>> 2, highHalf: (high &+ 2) &>> 2)
            (target + ox &* 4).storeBytes(of: ResamplerLanes.narrow(rounded), as: SIMD16<UInt8>.self)
            ox &+= 4
        }
        return count
    }

    private static func addRow4(
        _ row: UnsafeRawPointer, width: Int, factor: Int, into sums: UnsafeMutablePointer<SIMD4<UInt32>>
    ) {
        var x = 0, ox = 0
        while x < width {
            let end = min(width, x + factor)
            var acc = SIMD4<UInt32>(repeating: 0)
            while x < end {
                acc &+= SIMD4<UInt32>(
                    truncatingIfNeeded: row.loadUnaligned(fromByteOffset: x * 4, as: SIMD4<UInt8>.self))
                x += 1
            }
            sums[ox] &+= acc
            ox += 1
        }
    }

    private static func addRow1(
        _ row: UnsafeRawPointer, width: Int, factor: Int, into sums: UnsafeMutablePointer<SIMD4<UInt32>>
    ) {
        let bytes = row.assumingMemoryBound(to: UInt8.self)
        var x = 0, ox = 0
        while x < width {
            let end = min(width, x + factor)
            var acc: UInt32 = 0
            while x < end {
                acc &+= UInt32(bytes[x])
                x += 1
            }
            sums[ox][0] &+= acc
            ox += 1
        }
    }
}
