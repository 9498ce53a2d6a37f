import Foundation

/// Resizes bitmaps with a separable filter.
///
/// ```swift
/// let thumbnail = Resampler.resample(bitmap, width: 400, height: 267)
/// ```
///
/// Two passes (one per axis, the cheaper order first) with precomputed fixed-point weights; when
/// shrinking, the kernel is widened by the scale factor so the result is properly antialiased. The
/// passes run on AVX2 where the CPU has it (checked at run time), else on baseline SSE2. An axis
/// shrinking 6 times or more is first averaged down by an integer box, leaving the filter 3x to 6x.
/// Passes worth more than a few milliseconds are split across threads with
/// `DispatchQueue.concurrentPerform`. Safe to call from any thread; the call is synchronous.
package enum Resampler {
    /// `bitmap` resized to `width` x `height` pixels (both > 0) with the filter chosen by `quality`
    /// (`.none` nearest neighbour, `.low` triangle, `.medium` Catmull-Rom, `.high` Lanczos-3, `.default`
    /// Lanczos-2 for reductions of at most 2x per axis and Lanczos-3 otherwise). Returns `bitmap` itself when
    /// the size does not change. Works on premultiplied
    /// pixels, so transparent edges do not bleed colour; colour channels never exceed alpha and `rgbx8`
    /// stays opaque. The result has the same format as `bitmap`.
    package static func resample(_ bitmap: Bitmap, width: Int, height: Int, quality: InterpolationQuality = .default)
        -> Bitmap
    {
        resample(
            bitmap, width: width, height: height, quality: quality, parallelThreshold: defaultParallelThreshold,
            boxReduction: true)
    }

    /// Work units above which a pass is split across threads. A unit (4 horizontal taps of a pixel, or
    /// one vertical tap of 16 bytes) is about 1-2 ns of one core with the paired passes, so only passes
    /// of several milliseconds pay for waking a second core; smaller ones stay on the caller's thread,
    /// which also suits servers running many resizes at once.
    static var defaultParallelThreshold: Int { 1 << 22 }

    /// The part `region` of `bitmap` resized to `width` x `height` (both > 0): byte for byte what
    /// `resample(bitmap, width: width, height: height, quality: quality)` followed by
    /// `cropped(x: region.x, y: region.y, width: region.width, height: region.height)` gives, but only the
    /// kept pixels are computed and only the source pixels under them are read, so cropping costs nothing
    /// and a very large intermediate (filling a 200x200 square with a 3x1000 sliver) is never allocated.
    ///
    /// ```swift
    /// // carnival.jpg's 1880x1253 pixels filled into 200x200: scaled to 300x200, the middle 200 columns kept.
    /// let square = Resampler.resample(
    ///     photo, width: 300, height: 200, cropping: (x: 50, y: 0, width: 200, height: 200))
    /// ```
    ///
    /// `region` must lie inside `width` x `height` and have positive sides (a precondition).
    package static func resample(
        _ bitmap: Bitmap, width: Int, height: Int, cropping region: (x: Int, y: Int, width: Int, height: Int),
        quality: InterpolationQuality = .default
    ) -> Bitmap {
        resample(
            bitmap, width: width, height: height, region: region, quality: quality,
            parallelThreshold: defaultParallelThreshold, boxReduction: true)
    }

    /// ``resample(_:width:height:quality:)`` splitting passes whose work exceeds `parallelThreshold`
    /// across threads, pre-shrinking large factors with a box average when `boxReduction` is set, and using
    /// the AVX2 passes when `vectorExtensions` is set and the CPU has them (tests vary all three).
    static func resample(
        _ bitmap: Bitmap, width: Int, height: Int, quality: InterpolationQuality, parallelThreshold: Int,
        boxReduction: Bool,
        vectorExtensions: Bool = true
    ) -> Bitmap {
        resample(
            bitmap, width: width, height: height, region: nil, quality: quality, parallelThreshold: parallelThreshold,
            boxReduction: boxReduction, vectorExtensions: vectorExtensions)
    }

    /// The common body of the resampling entry points: `region` nil keeps the whole result.
    static func resample(
        _ bitmap: Bitmap, width: Int, height: Int, region: (x: Int, y: Int, width: Int, height: Int)?,
        quality: InterpolationQuality, parallelThreshold: Int, boxReduction: Bool, vectorExtensions: Bool = true
    ) -> Bitmap {
        precondition(width > 0 && height > 0, "resample needs positive dimensions")
        if let region {
            precondition(
                region.width > 0 && region.height > 0 && region.x >= 0 && region.y >= 0
                    && region.x + region.width <= width && region.y + region.height <= height,
                "resample: crop region outside the result")
        }
        let columnWindow = region.flatMap { $0.x == 0 && $0.width == width ? nil : $0.x..<($0.x + $0.width) }
        let lineWindow = region.flatMap { $0.y == 0 && $0.height == height ? nil : $0.y..<($0.y + $0.height) }
        if width == bitmap.width && height == bitmap.height {
            guard let region else { return bitmap }
            return bitmap.cropped(x: region.x, y: region.y, width: region.width, height: region.height)
        }
        // Chosen on the whole resize, so a cropped resample uses the filter (and gives the bytes) of a whole one.
        let filter = ResamplingFilter(
            quality, sourceWidth: bitmap.width, sourceHeight: bitmap.height, width: width, height: height)
        if filter == .nearest {
            let columns = ResamplerWeights(
                filter: .nearest, sourceCount: bitmap.width, count: width, window: columnWindow)
            let lines = ResamplerWeights(
                filter: .nearest, sourceCount: bitmap.height, count: height, window: lineWindow)
            let source = bitmap.cropped(
                x: columns.sourceOffset, y: lines.sourceOffset, width: columns.sourceCount, height: lines.sourceCount)
            guard var out = Bitmap(uninitializedWidth: columns.count, height: lines.count, format: bitmap.format) else {
                preconditionFailure("resample: \(width)x\(height) is too large to allocate")
            }
            let bpp = bitmap.format.bytesPerPixel
            withBuffers(from: source, into: &out) { buffers in
                forEachBand(rows: lines.count, work: columns.count * lines.count, threshold: parallelThreshold) {
                    band in
                    ResamplerPasses.nearest(buffers, rows: band, columns: columns, lines: lines, bytesPerPixel: bpp)
                }
            }
            return out
        }
        let factorX = boxReduction ? ResamplerBoxReduction.factor(source: bitmap.width, count: width) : 1
        let factorY = boxReduction ? ResamplerBoxReduction.factor(source: bitmap.height, count: height) : 1
        // Partial boxes at the edges make the reduced image cover a fractional number of pixels.
        let extentX = Double(bitmap.width) / Double(factorX), extentY = Double(bitmap.height) / Double(factorY)
        let reducedWidth = (bitmap.width + factorX - 1) / factorX,
            reducedHeight = (bitmap.height + factorY - 1) / factorY
        // An axis that keeps its size is only cropped; the others get taps (for the kept window only).
        let columns =
            width == bitmap.width
            ? nil
            : ResamplerWeightsCache.weights(
                filter: filter, sourceCount: reducedWidth, count: width, sourceExtent: extentX, window: columnWindow)
        let lines =
            height == bitmap.height
            ? nil
            : ResamplerWeightsCache.weights(
                filter: filter, sourceCount: reducedHeight, count: height, sourceExtent: extentY, window: lineWindow)
        // The source pixels the kept output reads, in the original bitmap (whole boxes when reducing).
        func span(_ weights: ResamplerWeights?, factor: Int, size: Int, window: Range<Int>?) -> Range<Int> {
            guard let weights else { return window ?? 0..<size }
            return (weights.sourceOffset * factor)..<min(size, (weights.sourceOffset + weights.sourceCount) * factor)
        }
        let xs = span(columns, factor: factorX, size: bitmap.width, window: columnWindow)
        let ys = span(lines, factor: factorY, size: bitmap.height, window: lineWindow)
        let source: Bitmap
        if factorX > 1 || factorY > 1 {
            let area = (xs.lowerBound, ys.lowerBound, xs.count, ys.count)
            source = ResamplerBoxReduction.reduce(
                bitmap, factorX: factorX, factorY: factorY, region: area, parallelThreshold: parallelThreshold)
        } else {
            source = bitmap.cropped(x: xs.lowerBound, y: ys.lowerBound, width: xs.count, height: ys.count)
        }
        return apply(
            columns: columns, lines: lines, to: source, parallelThreshold: parallelThreshold,
            vectorExtensions: vectorExtensions)
    }

    /// `source` filtered by `columns` horizontally and `lines` vertically (an axis without taps is kept
    /// as is), in the cheaper order (vertical then horizontal fused row by row on AVX2 when `vectorExtensions`
    /// is set and the CPU has it). The taps' source counts must be `source`'s dimensions.
    static func apply(
        columns: ResamplerWeights?, lines: ResamplerWeights?, to source: Bitmap, parallelThreshold: Int,
        vectorExtensions: Bool = true
    ) -> Bitmap {
        let bitmap = source
        let width = columns?.count ?? bitmap.width, height = lines?.count ?? bitmap.height
        precondition(
            (columns?.sourceCount ?? bitmap.width) == bitmap.width
                && (lines?.sourceCount ?? bitmap.height) == bitmap.height,
            "resampler taps do not match the source")
        let finish: ResamplerPasses.Finish
        switch bitmap.format {
        case .rgba8Premultiplied: finish = .premultiplied
        case .rgbx8: finish = .opaque
        case .gray8: finish = .none
        }
        func allocate(_ w: Int, _ h: Int) -> Bitmap {
            guard let bitmap = Bitmap(uninitializedWidth: w, height: h, format: source.format) else {
                preconditionFailure("resample: \(w)x\(h) is too large to allocate")
            }
            return bitmap
        }
        switch (columns, lines) {
        case (let columns?, nil):
            var out = allocate(width, height)
            horizontal(
                from: bitmap, into: &out, weights: columns, finish: finish, threshold: parallelThreshold,
                vectorExtensions: vectorExtensions)
            return out
        case (nil, let lines?):
            var out = allocate(width, height)
            vertical(
                from: bitmap, into: &out, weights: lines, finish: finish, threshold: parallelThreshold,
                vectorExtensions: vectorExtensions)
            return out
        case (let columns?, let lines?):
            var out = allocate(width, height)
            if horizontalFirstIsCheaper(columns: columns, lines: lines) {
                var middle = allocate(width, bitmap.height)
                horizontal(
                    from: bitmap, into: &middle, weights: columns, finish: .none, threshold: parallelThreshold,
                    vectorExtensions: vectorExtensions)
                vertical(
                    from: middle, into: &out, weights: lines, finish: finish, threshold: parallelThreshold,
                    vectorExtensions: vectorExtensions)
            } else if vectorExtensions && ResamplerAVX2Passes.isAvailable && bitmap.format.bytesPerPixel == 4
                && lines.pairsFit && columns.pairsFit
                && fused(
                    from: bitmap, into: &out, lines: lines, columns: columns, finish: finish,
                    threshold: parallelThreshold)
            {
                return out
            } else {
                var middle = allocate(bitmap.width, height)
                vertical(
                    from: bitmap, into: &middle, weights: lines, finish: .none, threshold: parallelThreshold,
                    vectorExtensions: vectorExtensions)
                horizontal(
                    from: middle, into: &out, weights: columns, finish: finish, threshold: parallelThreshold,
                    vectorExtensions: vectorExtensions)
            }
            return out
        case (nil, nil):
            return bitmap
        }
    }

    /// Relative cost of one tap of one pixel in the horizontal pass against the vertical pass, which
    /// works on 16 bytes at a time.
    private static var horizontalTapCost: Int { 2 }

    /// Whether filtering columns first (then rows) does less work than the other order, judged on the
    /// whole mappings (so a cropped resample takes the same order, and gives the same bytes, as a whole one).
    static func horizontalFirstIsCheaper(columns: ResamplerWeights, lines: ResamplerWeights) -> Bool {
        let (outW, outH, srcW, srcH) = (
            columns.whole.count, lines.whole.count, columns.whole.sourceCount, lines.whole.sourceCount
        )
        let xTaps = columns.whole.taps * horizontalTapCost, yTaps = lines.whole.taps
        let horizontalFirst = outW * srcH * xTaps + outW * outH * yTaps
        let verticalFirst = srcW * outH * yTaps + outW * outH * xTaps
        return horizontalFirst <= verticalFirst
    }

    private static func horizontal(
        from source: Bitmap, into destination: inout Bitmap, weights: ResamplerWeights, finish: ResamplerPasses.Finish,
        threshold: Int,
        vectorExtensions: Bool
    ) {
        let rows = destination.height, bpp = source.format.bytesPerPixel
        let avx2 = vectorExtensions && ResamplerAVX2Passes.isAvailable
        withBuffers(from: source, into: &destination) { buffers in
            forEachBand(rows: rows, work: weights.count * rows * weights.maxTaps / 4, threshold: threshold) { band in
                if bpp == 4 && weights.pairsFit {
                    if avx2 && ResamplerAVX2Passes.horizontal4(buffers, rows: band, weights: weights, finish: finish) {
                        return
                    }
                    ResamplerPairedPasses.horizontal4(buffers, rows: band, weights: weights, finish: finish)
                } else if bpp == 1 {
                    ResamplerPairedPasses.horizontal1(buffers, rows: band, weights: weights)
                } else {
                    ResamplerPasses.horizontal(
                        buffers, rows: band, weights: weights, bytesPerPixel: bpp, finish: finish)
                }
            }
        }
    }

    private static func vertical(
        from source: Bitmap, into destination: inout Bitmap, weights: ResamplerWeights, finish: ResamplerPasses.Finish,
        threshold: Int,
        vectorExtensions: Bool
    ) {
        let rows = destination.height, rowBytes = destination.width * destination.format.bytesPerPixel
        let avx2 = vectorExtensions && ResamplerAVX2Passes.isAvailable
        withBuffers(from: source, into: &destination) { buffers in
            forEachBand(rows: rows, work: rowBytes * rows * weights.maxTaps / 16, threshold: threshold) { band in
                if weights.pairsFit && avx2 {
                    ResamplerAVX2Passes.vertical(
                        buffers, rows: band, rowBytes: rowBytes, weights: weights, finish: finish)
                } else if weights.pairsFit {
                    ResamplerPairedPasses.vertical(
                        buffers, rows: band, rowBytes: rowBytes, weights: weights, finish: finish)
                } else {
                    ResamplerPasses.vertical(buffers, rows: band, rowBytes: rowBytes, weights: weights, finish: finish)
                }
            }
        }
    }

    /// Both passes on AVX2, vertical then horizontal, row by row (no intermediate image). Returns false when
    /// the AVX2 code could not allocate its scratch rows; `destination` is then to be written by the passes.
    private static func fused(
        from source: Bitmap, into destination: inout Bitmap, lines: ResamplerWeights, columns: ResamplerWeights,
        finish: ResamplerPasses.Finish, threshold: Int
    ) -> Bool {
        let rows = destination.height
        let work = source.width * rows * 4 * lines.maxTaps / 16 + columns.count * rows * columns.maxTaps / 4
        let failed = Locked(false)
        withBuffers(from: source, into: &destination) { buffers in
            forEachBand(rows: rows, work: work, threshold: threshold) { band in
                if !ResamplerAVX2Passes.verticalThenHorizontal4(
                    buffers, rows: band, lines: lines, columns: columns, finish: finish)
                {
                    failed.withLock { $0 = true }
                }
            }
        }
        return !failed.withLock { $0 }
    }

    /// Calls `body` with the raw rows of `source` and of `destination` (made unique first).
    private static func withBuffers(
        from source: Bitmap, into destination: inout Bitmap,
        _ body: (ResamplerPasses.Buffers) -> Void
    ) {
        let srcStride = source.bytesPerRow, dstStride = destination.bytesPerRow
        source.withUnsafeBytes { src in
            destination.withUnsafeMutableBytes { dst in
                guard let s = src.baseAddress, let d = dst.baseAddress else { return }
                body(
                    ResamplerPasses.Buffers(
                        source: s, sourceStride: srcStride, destination: d, destinationStride: dstStride))
            }
        }
    }

    /// Runs `body` over `0..<rows`, split into bands on several threads when `work` exceeds
    /// `threshold` and processors are idle (``DecodeGate/parallelism(processors:limit:)``: while the pipelines
    /// decode on every processor, bands would only add their hand-offs). Bands write disjoint destination rows.
    static func forEachBand(
        rows: Int, work: Int, threshold: Int, gate: DecodeGate = .shared, _ body: @Sendable (Range<Int>) -> Void
    ) {
        // The gate is asked only for work worth splitting: its lock is the decoding threads' too.
        let threads = work > threshold ? min(gate.parallelism(limit: 8), rows) : 1
        guard threads > 1 else {
            body(0..<rows)
            return
        }
        let bands = threads * 2
        DispatchQueue.concurrentPerform(iterations: bands) { band in
            let lower = rows * band / bands, upper = rows * (band + 1) / bands
            if lower < upper { body(lower..<upper) }
        }
    }
}
