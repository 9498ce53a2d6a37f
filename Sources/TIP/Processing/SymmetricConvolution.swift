import Foundation

/// A same-size convolution of every channel with a short symmetric kernel along both axes, edge pixels
/// repeated beyond the edges: the direct route of ``GaussianBlurRenderer``.
///
/// The weights are 8-bit fixed point summing exactly to 256, so a weighted sum of 8-bit samples fits a
/// 16-bit lane and every product is one `pmullw`; the two symmetric taps of each offset are added before
/// their multiply. Both passes run in one sweep per output row: the vertical pass writes one row, with the
/// edge pixels repeated on both sides, into a small buffer that the horizontal pass reads at once. Bands
/// of rows run on several threads. A solid colour comes out exactly; premultiplied colour stays ≤ alpha
/// (every channel gets the same weights) and opaque alpha stays 255.
struct SymmetricConvolution {
    /// Weights for offsets 0 (the centre), 1, ..., `radius`, summing (centre once, others twice) to 256.
    let weights: [UInt16]

    /// Kernels up to this radius take this route; longer ones lose too much to 8-bit weights.
    static var maximumRadius: Int { 8 }

    /// Outer taps weighing this little (of 256) or less are left out and their weight given to the centre:
    /// they cost a full step each and move a pixel by at most a level per axis, next to a full-contrast edge.
    static var negligibleWeight: Int { 1 }

    /// `kernel` (odd length, symmetric, summing to 1) quantised, without its negligible outer taps; nil
    /// when its quantised radius still exceeds ``maximumRadius``, or when the taps left out weigh more than
    /// ``negligibleWeight`` twice over in all (a wide kernel's taps each round to 1 or 0, and left out together
    /// they would leave the centre alone: no blur at all).
    init?(kernel: [Double]) {
        let middle = kernel.count / 2
        var half = (0...middle).map { Int((kernel[middle + $0] * 256).rounded()) }
        while half.count > 1 && half[half.count - 1] <= Self.negligibleWeight { half.removeLast() }
        guard half.count - 1 <= Self.maximumRadius else { return nil }
        let leftOut = kernel[(middle + half.count)...].reduce(0, +) * 256
        guard leftOut <= Double(2 * Self.negligibleWeight) else { return nil }
        half[0] = 256 - 2 * half.dropFirst().reduce(0, +)
        guard half[0] >= 0 else { return nil }
        weights = half.map { UInt16($0) }
    }

    /// Taps on each side of the centre.
    var radius: Int { weights.count - 1 }

    /// `bitmap` convolved along both axes.
    func apply(to bitmap: Bitmap, parallelThreshold: Int) -> Bitmap {
        guard var out = Bitmap(uninitializedWidth: bitmap.width, height: bitmap.height, format: bitmap.format) else {
            preconditionFailure("convolution: the output bitmap could not be allocated")
        }
        let geometry = Geometry(
            width: bitmap.width, height: bitmap.height, bytesPerPixel: bitmap.format.bytesPerPixel,
            sourceStride: bitmap.bytesPerRow, destinationStride: out.bytesPerRow, radius: radius)
        let work = bitmap.width * bitmap.height * weights.count
        let broadcast = weights.map { SIMD8<UInt16>(repeating: $0) }
        let destinationStride = out.bytesPerRow
        bitmap.withUnsafeBytes { src in
            out.withUnsafeMutableBytes { dst in
                guard let s = src.baseAddress, let d = dst.baseAddress else { return }
                let buffers = ResamplerPasses.Buffers(
                    source: s, sourceStride: bitmap.bytesPerRow, destination: d, destinationStride: destinationStride)
                broadcast.withUnsafeBufferPointer { table in
                    guard let w = table.baseAddress else { return }
                    let taps = Taps(pointer: w)
                    Resampler.forEachBand(rows: bitmap.height, work: work, threshold: parallelThreshold) { band in
                        Self.convolve(rows: band, buffers, geometry, taps)
                    }
                }
            }
        }
        return out
    }

    /// The sizes one sweep needs.
    private struct Geometry: Sendable {
        let width: Int, height: Int, bytesPerPixel: Int, sourceStride: Int, destinationStride: Int, radius: Int
        /// Used bytes of a row.
        var rowBytes: Int { width * bytesPerPixel }
        /// A row's bytes rounded up to whole 16-byte chunks (rows are padded to 64 bytes, so these exist).
        var span: Int { (rowBytes + 15) & ~15 }
    }

    /// The weights, each repeated over 8 lanes, for the worker threads. `@unchecked Sendable`: read-only
    /// during one `apply` call.
    private struct Taps: @unchecked Sendable {
        let pointer: UnsafePointer<SIMD8<UInt16>>
    }

    /// Output rows `rows`: each row's vertical sums go into a padded one-row buffer, then its horizontal
    /// sums into the destination.
    private static func convolve(rows: Range<Int>, _ buffers: ResamplerPasses.Buffers, _ g: Geometry, _ taps: Taps) {
        let bpp = g.bytesPerPixel, radius = g.radius, w = taps.pointer
        // [radius repeated pixels][the row][radius repeated pixels], the row 16-byte aligned, plus slack for
        // whole 32-byte steps.
        let lead = (radius * bpp + 15) & ~15
        let size = 2 * lead + g.span + 48
        let scratch = UnsafeMutableRawPointer.allocate(byteCount: size, alignment: 16)
        defer { scratch.deallocate() }
        scratch.initializeMemory(as: UInt8.self, repeating: 0, count: size)
        let middle = scratch + lead
        // Source rows y - radius ... y + radius (edges repeated), refilled for each output row.
        let sourceRows = UnsafeMutablePointer<UnsafeRawPointer>.allocate(capacity: 2 * radius + 1)
        defer { sourceRows.deallocate() }
        for y in rows {
            for k in -radius...radius {
                sourceRows[k + radius] = buffers.source + min(max(y + k, 0), g.height - 1) * buffers.sourceStride
            }
            // Vertical: row y of the vertical pass into the buffer. Reading 32 bytes at a time may run 16
            // bytes past a row's 16-byte span: rows are padded to 64 bytes and the buffer has slack.
            var x = 0
            while x < g.span {
                var sums = Sums(sourceRows[radius].load(fromByteOffset: x, as: SIMD32<UInt8>.self), w[0])
                var k = 1
                while k <= radius {
                    sums.add(
                        sourceRows[radius - k].load(fromByteOffset: x, as: SIMD32<UInt8>.self),
                        sourceRows[radius + k].load(fromByteOffset: x, as: SIMD32<UInt8>.self), w[k])
                    k &+= 1
                }
                sums.store(to: middle + x)
                x &+= 32
            }
            // The edge pixels repeated into the padding (overwriting the spill past the row).
            for i in 0..<radius {
                (middle - (i + 1) * bpp).copyMemory(from: middle, byteCount: bpp)
                (middle + g.rowBytes + i * bpp).copyMemory(from: middle + g.rowBytes - bpp, byteCount: bpp)
            }
            // Horizontal: the buffer into the destination row (through the buffer's slack when the row's
            // span is not a multiple of 32).
            let target = buffers.destination + y * buffers.destinationStride
            x = 0
            while x < g.span {
                var sums = Sums((middle + x).load(as: SIMD32<UInt8>.self), w[0])
                var k = 1, offset = bpp
                while k <= radius {
                    sums.add(
                        (middle + (x &- offset)).loadUnaligned(as: SIMD32<UInt8>.self),
                        (middle + (x &+ offset)).loadUnaligned(as: SIMD32<UInt8>.self), w[k])
                    k &+= 1
                    offset &+= bpp
                }
                if x &+ 32 <= g.span {
                    sums.store(to: target + x)
                } else {
                    sums.storeLow(to: target + x)
                }
                x &+= 32
            }
            if g.span > g.rowBytes {
                (target + g.rowBytes).initializeMemory(as: UInt8.self, repeating: 0, count: g.span - g.rowBytes)
            }
        }
    }

    /// Weighted sums of 32 samples in four 16-bit vectors.
    private struct Sums {
        var a: SIMD8<UInt16>, b: SIMD8<UInt16>, c: SIMD8<UInt16>, d: SIMD8<UInt16>

        /// The centre samples times `weight`, plus the rounding half.
        @inline(__always)
        init(_ centre: SIMD32<UInt8>, _ weight: SIMD8<UInt16>) {
            let half = SIMD8<UInt16>(repeating: 128)
            a = widenLow(centre.lowHalf) &* weight &+ half
            b = widenHigh(centre.lowHalf) &* weight &+ half
            c = widenLow(centre.highHalf) &* weight &+ half
            d = widenHigh(centre.highHalf) &* weight &+ half
        }

        /// Adds `(first + second) * weight`.
        @inline(__always)
        mutating func add(_ first: SIMD32<UInt8>, _ second: SIMD32<UInt8>, _ weight: SIMD8<UInt16>) {
            a &+= (widenLow(first.lowHalf) &+ widenLow(second.lowHalf)) &* weight
            b &+= (widenHigh(first.lowHalf) &+ widenHigh(second.lowHalf)) &* weight
            c &+= (widenLow(first.highHalf) &+ widenLow(second.highHalf)) &* weight
            d &+= (widenHigh(first.highHalf) &+ widenHigh(second.highHalf)) &* weight
        }

        /// The 32 results (sums / 256) as bytes.
        @inline(__always)
        func store(to pointer: UnsafeMutableRawPointer) {
            pointer.storeBytes(of: narrow(a &>> 8, b &>> 8), as: SIMD16<UInt8>.self)
            (pointer + 16).storeBytes(of: narrow(c &>> 8, d &>> 8), as: SIMD16<UInt8>.self)
        }

        /// The first 16 results as bytes.
        @inline(__always)
        func storeLow(to pointer: UnsafeMutableRawPointer) {
            pointer.storeBytes(of: narrow(a &>> 8, b &>> 8), as: SIMD16<UInt8>.self)
        }
    }
}

// Lane conversions spelled out lane by lane so that they inline into single unpack and pack instructions
// (see ``ResamplerLanes``).

@inline(__always)
private func widenLow(_ v: SIMD16<UInt8>) -> SIMD8<UInt16> {
    SIMD8(
        UInt16(v[0]), UInt16(v[1]), UInt16(v[2]), UInt16(v[3]), UInt16(v[4]), UInt16(v[5]), UInt16(v[6]), UInt16(v[7]))
}

@inline(__always)
private func widenHigh(_ v: SIMD16<UInt8>) -> SIMD8<UInt16> {
    SIMD8(
        UInt16(v[8]), UInt16(v[9]), UInt16(v[10]), UInt16(v[11]), UInt16(v[12]), UInt16(v[13]), UInt16(v[14]),
        UInt16(v[15]))
}

/// Two vectors of values 0...255 packed into bytes.
@inline(__always)
private func narrow(_ low: SIMD8<UInt16>, _ high: SIMD8<UInt16>) -> SIMD16<UInt8> {
    SIMD16(
        UInt8(truncatingIfNeeded: low[0]), UInt8(truncatingIfNeeded: low[1]), UInt8(truncatingIfNeeded: low[2]),
        UInt8(truncatingIfNeeded: low[3]),
        UInt8(truncatingIfNeeded: low[4]), UInt8(truncatingIfNeeded: low[5]), UInt8(truncatingIfNeeded: low[6]),
        UInt8(truncatingIfNeeded: low[7]),
        UInt8(truncatingIfNeeded: high[0]), UInt8(truncatingIfNeeded: high[1]), UInt8(truncatingIfNeeded: high[2]),
        UInt8(truncatingIfNeeded: high[3]),
        UInt8(truncatingIfNeeded: high[4]), UInt8(truncatingIfNeeded: high[5]), UInt8(truncatingIfNeeded: high[6]),
        UInt8(truncatingIfNeeded: high[7]))
}
