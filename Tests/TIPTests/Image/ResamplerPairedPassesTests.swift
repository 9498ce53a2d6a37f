import Testing

@testable import TIP

@Suite("Resampler: paired passes")
struct ResamplerPairedPassesTests {
    static let finishes: [(ResamplerPasses.Finish, PixelFormat)] = [
        (.none, .rgba8Premultiplied), (.premultiplied, .rgba8Premultiplied), (.opaque, .rgbx8),
    ]

    /// Noise with runs of 0 and 255, so that ringing overshoots both ends and alpha varies.
    static func noise(width: Int, height: Int, format: PixelFormat, seed: UInt64) -> Bitmap {
        var rng = SplitMix64(seed: seed)
        var image = Bitmap(width: width, height: height, format: format)!
        for y in 0..<height {
            for x in 0..<width {
                let r = rng.next()
                let extreme = (x / 3 + y / 2) % 3 == 0
                let bytes = SIMD4<UInt8>(truncatingIfNeeded: SIMD4<UInt64>(r, r >> 8, r >> 16, r >> 24))
                let value = extreme ? (bytes & SIMD4(repeating: 1)) &* 255 : bytes
                image.setPixel(x: x, y: y, format == .rgbx8 ? SIMD4(value[0], value[1], value[2], 255) : value)
            }
        }
        return image
    }

    /// Which implementation of a pass runs.
    enum Kind {
        /// ``ResamplerPasses``.
        case plain
        /// ``ResamplerPairedPasses``.
        case paired
        /// ``ResamplerAVX2Passes`` (4-byte pixels horizontally; the paired pass for gray).
        case avx2
    }

    /// Runs one pass (`horizontal` or not) with the paired code or the plain code into a fresh bitmap.
    static func pass(
        _ source: Bitmap, count: Int, filter: ResamplingFilter, horizontal: Bool, paired: Bool,
        finish: ResamplerPasses.Finish
    ) -> Bitmap {
        pass(
            source, count: count, filter: filter, horizontal: horizontal, kind: paired ? .paired : .plain,
            finish: finish)
    }

    /// Runs one pass (`horizontal` or not) with the code of `kind` into a fresh bitmap.
    static func pass(
        _ source: Bitmap, count: Int, filter: ResamplingFilter, horizontal: Bool, kind: Kind,
        finish: ResamplerPasses.Finish
    ) -> Bitmap {
        let weights = ResamplerWeights(
            filter: filter, sourceCount: horizontal ? source.width : source.height, count: count)
        #expect(weights.pairsFit)
        var out = Bitmap(
            width: horizontal ? count : source.width, height: horizontal ? source.height : count,
            format: source.format)!
        let (srcStride, dstStride, rows, rowBytes) = (
            source.bytesPerRow, out.bytesPerRow, out.height, out.width * out.format.bytesPerPixel
        )
        source.withUnsafeBytes { src in
            out.withUnsafeMutableBytes { dst in
                let buffers = ResamplerPasses.Buffers(
                    source: src.baseAddress!, sourceStride: srcStride, destination: dst.baseAddress!,
                    destinationStride: dstStride)
                let bpp = source.format.bytesPerPixel
                switch (horizontal, kind) {
                case (true, .paired) where bpp == 1, (true, .avx2) where bpp == 1:
                    ResamplerPairedPasses.horizontal1(buffers, rows: 0..<rows, weights: weights)
                case (true, .paired):
                    ResamplerPairedPasses.horizontal4(buffers, rows: 0..<rows, weights: weights, finish: finish)
                case (true, .avx2):
                    #expect(ResamplerAVX2Passes.horizontal4(buffers, rows: 0..<rows, weights: weights, finish: finish))
                case (true, .plain):
                    ResamplerPasses.horizontal(
                        buffers, rows: 0..<rows, weights: weights, bytesPerPixel: bpp, finish: finish)
                case (false, .paired):
                    ResamplerPairedPasses.vertical(
                        buffers, rows: 0..<rows, rowBytes: rowBytes, weights: weights, finish: finish)
                case (false, .avx2):
                    ResamplerAVX2Passes.vertical(
                        buffers, rows: 0..<rows, rowBytes: rowBytes, weights: weights, finish: finish)
                case (false, .plain):
                    ResamplerPasses.vertical(
                        buffers, rows: 0..<rows, rowBytes: rowBytes, weights: weights, finish: finish)
                }
            }
        }
        return out
    }

    @Test(
        "The paired horizontal pass writes the same bytes as the plain one",
        arguments: [ResamplingFilter.triangle, .catmullRom, .lanczos3])
    func horizontalMatches(filter: ResamplingFilter) {
        // Widths around multiples of 4 and of 16 hit every tail of the row interleaving and of the output.
        for (width, counts) in [
            (1, [3, 2]), (2, [1, 7]), (5, [3, 4, 9]), (15, [4, 16, 5]), (16, [15, 17]), (17, [3, 40]),
            (64, [63, 23, 130]), (131, [100, 7, 29]),
        ] {
            for (finish, format) in Self.finishes + [(.none, .gray8)] {
                let source = Self.noise(width: width, height: 5, format: format, seed: UInt64(width))
                for count in counts {
                    let plain = Self.pass(
                        source, count: count, filter: filter, horizontal: true, paired: false, finish: finish)
                    let paired = Self.pass(
                        source, count: count, filter: filter, horizontal: true, paired: true, finish: finish)
                    #expect(plain == paired, "\(filter) \(finish) \(width) -> \(count)")
                }
            }
        }
    }

    @Test(
        "The paired vertical pass writes the same bytes as the plain one",
        arguments: [ResamplingFilter.triangle, .catmullRom, .lanczos3])
    func verticalMatches(filter: ResamplingFilter) {
        for (height, counts) in [(1, [3, 2]), (2, [1, 5]), (7, [3, 4, 11]), (30, [29, 8, 61]), (97, [40, 13])] {
            for (finish, format) in Self.finishes + [(.none, .gray8)] {
                for width in [1, 5, 8, 13] {
                    let source = Self.noise(
                        width: width, height: height, format: format, seed: UInt64(height * 31 + width))
                    for count in counts {
                        let plain = Self.pass(
                            source, count: count, filter: filter, horizontal: false, paired: false, finish: finish)
                        let paired = Self.pass(
                            source, count: count, filter: filter, horizontal: false, paired: true, finish: finish)
                        #expect(plain == paired, "\(filter) \(finish) \(format) \(width)x\(height) -> \(count) rows")
                    }
                }
            }
        }
    }

    @Test(
        "The AVX2 passes write the same bytes as the plain ones",
        .enabled(if: ResamplerAVX2Passes.isAvailable, "the CPU has no AVX2"),
        arguments: [ResamplingFilter.triangle, .catmullRom, .lanczos3])
    func avx2Matches(filter: ResamplingFilter) {
        // Every tail of the 4-pixel row spreading, of the 4-pixel output groups and of the 32-byte vertical chunks.
        for (width, counts) in [
            (1, [3, 2]), (2, [1, 7]), (5, [3, 4, 9]), (8, [5, 13]), (15, [4, 16, 5]), (17, [3, 40]),
            (64, [63, 23, 130]), (131, [100, 7, 29]),
        ] {
            for (finish, format) in Self.finishes {
                let source = Self.noise(width: width, height: 5, format: format, seed: UInt64(width))
                for count in counts {
                    let plain = Self.pass(
                        source, count: count, filter: filter, horizontal: true, kind: .plain, finish: finish)
                    let avx2 = Self.pass(
                        source, count: count, filter: filter, horizontal: true, kind: .avx2, finish: finish)
                    #expect(plain == avx2, "horizontal \(filter) \(finish) \(width) -> \(count)")
                }
            }
        }
        for (height, counts) in [(1, [3, 2]), (2, [1, 5]), (7, [3, 4, 11]), (30, [29, 8, 61]), (97, [40, 13])] {
            for (finish, format) in Self.finishes + [(.none, .gray8)] {
                for width in [1, 5, 8, 9, 13, 40] {
                    let source = Self.noise(
                        width: width, height: height, format: format, seed: UInt64(height * 31 + width))
                    for count in counts {
                        let plain = Self.pass(
                            source, count: count, filter: filter, horizontal: false, kind: .plain, finish: finish)
                        let avx2 = Self.pass(
                            source, count: count, filter: filter, horizontal: false, kind: .avx2, finish: finish)
                        #expect(
                            plain == avx2, "vertical \(filter) \(finish) \(format) \(width)x\(height) -> \(count) rows")
                    }
                }
            }
        }
    }

    @Test(
        "The fused AVX2 resize (vertical then horizontal, row by row) writes the bytes of the two plain passes",
        .enabled(if: ResamplerAVX2Passes.isAvailable, "the CPU has no AVX2"))
    func avx2Fused() {
        for (finish, format) in Self.finishes {
            for (width, height, w, h) in [
                (1, 1, 3, 2), (5, 7, 3, 4), (17, 9, 13, 30), (64, 40, 51, 31), (131, 60, 100, 59), (40, 97, 130, 13),
            ] {
                let source = Self.noise(width: width, height: height, format: format, seed: UInt64(width * 7 + height))
                let middle = Self.pass(
                    source, count: h, filter: .lanczos2, horizontal: false, kind: .plain, finish: .none)
                let plain = Self.pass(
                    middle, count: w, filter: .lanczos2, horizontal: true, kind: .plain, finish: finish)
                let lines = ResamplerWeights(filter: .lanczos2, sourceCount: height, count: h)
                let columns = ResamplerWeights(filter: .lanczos2, sourceCount: width, count: w)
                var fused = Bitmap(width: w, height: h, format: format)!
                let (srcStride, dstStride) = (source.bytesPerRow, fused.bytesPerRow)
                source.withUnsafeBytes { src in
                    fused.withUnsafeMutableBytes { dst in
                        let buffers = ResamplerPasses.Buffers(
                            source: src.baseAddress!, sourceStride: srcStride, destination: dst.baseAddress!,
                            destinationStride: dstStride)
                        #expect(
                            ResamplerAVX2Passes.verticalThenHorizontal4(
                                buffers, rows: 0..<h, lines: lines, columns: columns, finish: finish))
                    }
                }
                #expect(plain == fused, "\(finish) \(width)x\(height) -> \(w)x\(h)")
            }
        }
    }

    @Test(
        "Whole resizes with and without AVX2 are identical",
        .enabled(if: ResamplerAVX2Passes.isAvailable, "the CPU has no AVX2"))
    func avx2Resizes() {
        for format in [PixelFormat.rgba8Premultiplied, .rgbx8, .gray8] {
            let source = Self.noise(width: 128, height: 72, format: format, seed: 9)
            for (w, h) in [(100, 56), (50, 29), (128, 30), (31, 72), (200, 113), (13, 9)] {
                let portable = Resampler.resample(
                    source, width: w, height: h, quality: .default, parallelThreshold: .max, boxReduction: true,
                    vectorExtensions: false)
                let avx2 = Resampler.resample(
                    source, width: w, height: h, quality: .default, parallelThreshold: .max, boxReduction: true,
                    vectorExtensions: true)
                #expect(portable == avx2, "\(format) 128x72 -> \(w)x\(h)")
            }
        }
    }

    @Test("Pair and octet weights hold each coordinate's taps two and eight at a time")
    func pairWeightsLayout() {
        for (source, count) in [(10, 3), (3, 10), (470, 400), (1880, 400), (1, 4)] {
            let weights = ResamplerWeights(filter: .lanczos3, sourceCount: source, count: count)
            #expect(weights.pairWeights.count == count * weights.pairStride)
            for x in 0..<count {
                for k in 0..<weights.pairStride {
                    let lanes = weights.pairWeights[x * weights.pairStride + k]
                    #expect(lanes == SIMD4(repeating: lanes[0]))
                    let low = Int16(truncatingIfNeeded: lanes[0]), high = Int16(truncatingIfNeeded: lanes[0] >> 16)
                    #expect(
                        low == weights.weights[x * weights.stride + 2 * k]
                            && high == weights.weights[x * weights.stride + 2 * k + 1])
                }
                for i in 0..<(weights.octetStride * 8) {
                    let expected = i < weights.stride ? weights.weights[x * weights.stride + i] : 0
                    #expect(weights.octetWeights[x * weights.octetStride + i / 8][i % 8] == expected)
                }
            }
        }
    }

    @Test("Cached weights equal freshly built ones")
    func cachedWeights() {
        for _ in 0..<2 {
            for (source, count, extent) in [(512, 400, nil), (288, 225, 288.0), (1253, 267, 417.6666), (100, 9, nil)]
                as [(Int, Int, Double?)]
            {
                let cached = ResamplerWeightsCache.weights(
                    filter: .lanczos3, sourceCount: source, count: count, sourceExtent: extent)
                let fresh = ResamplerWeights(filter: .lanczos3, sourceCount: source, count: count, sourceExtent: extent)
                #expect(
                    cached.starts == fresh.starts && cached.tapCounts == fresh.tapCounts
                        && cached.weights == fresh.weights)
                #expect(
                    cached.pairWeights == fresh.pairWeights && cached.sourceCount == source && cached.count == count)
            }
        }
        let triangle = ResamplerWeightsCache.weights(filter: .triangle, sourceCount: 512, count: 400)
        #expect(triangle.weights == ResamplerWeights(filter: .triangle, sourceCount: 512, count: 400).weights)
    }

    @Test("The weights cache keeps many tables, within its count and its budget of weights")
    func cacheLimits() {
        let limits = ResamplerWeightsCache.limits
        // More small tables than the cache keeps: the newest stay, the count never passes the limit.
        for source in 3_000..<(3_000 + limits.tables + 20) {
            _ = ResamplerWeightsCache.weights(filter: .lanczos3, sourceCount: source, count: 60)
            let kept = ResamplerWeightsCache.kept
            #expect(kept.tables <= limits.tables && kept.weights <= limits.weights)
        }
        // Large tables (each near the largest kept): the budget evicts before the count does.
        for source in 2_000..<2_040 {
            let weights = ResamplerWeightsCache.weights(filter: .lanczos3, sourceCount: source, count: 400)
            #expect(weights.count * weights.stride > limits.weights / 40)
            let kept = ResamplerWeightsCache.kept
            #expect(kept.tables <= limits.tables && kept.weights <= limits.weights)
        }
        // At most 39 of those 40 fit the budget. (Not the count of all tables kept: tests running alongside
        // add tables of their own to the shared cache, and it once read the limit in a run of several suites.)
        let largeKept = (2_000..<2_040).filter {
            ResamplerWeightsCache.isKept(filter: .lanczos3, sourceCount: $0, count: 400)
        }
        #expect(largeKept.count < 40 && largeKept.contains(2_039))
    }
}
