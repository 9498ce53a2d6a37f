import CResampler

/// The passes of ``Resampler`` on AVX2 (the C target `CResampler`, selected at run time): the horizontal pass
/// for 4-byte pixels, the vertical pass, and both fused row by row, at twice the width of baseline x86-64's
/// SSE2. They write exactly
/// the bytes of ``ResamplerPairedPasses`` and have the same requirements (``ResamplerWeights/pairsFit``, rows
/// 64-byte aligned and padded); ``isAvailable`` says whether the CPU runs them.
enum ResamplerAVX2Passes {
    typealias Buffers = ResamplerPasses.Buffers
    typealias Finish = ResamplerPasses.Finish

    /// Whether the CPU and the system support AVX2 (asked once).
    static let isAvailable = tip_resampler_has_avx2() != 0

    /// ``ResamplerPairedPasses/horizontal4(_:rows:weights:finish:)`` on AVX2. Returns false, having written
    /// nothing, when its scratch memory cannot be allocated.
    static func horizontal4(_ buffers: Buffers, rows: Range<Int>, weights: ResamplerWeights, finish: Finish) -> Bool {
        withAxis(weights) { axis in
            tip_resample_horizontal4_avx2(
                buffers.source.assumingMemoryBound(to: UInt8.self), buffers.sourceStride,
                buffers.destination.assumingMemoryBound(to: UInt8.self), buffers.destinationStride,
                Int32(rows.lowerBound), Int32(rows.upperBound), axis, code(finish)) == 0
        }
    }

    /// ``ResamplerPairedPasses/vertical(_:rows:rowBytes:weights:finish:)`` on AVX2 (32 bytes at a time; the
    /// row's padding up to the next 32 bytes is zeroed).
    static func vertical(_ buffers: Buffers, rows: Range<Int>, rowBytes: Int, weights: ResamplerWeights, finish: Finish)
    {
        withAxis(weights) { axis in
            tip_resample_vertical_avx2(
                buffers.source.assumingMemoryBound(to: UInt8.self), buffers.sourceStride,
                buffers.destination.assumingMemoryBound(to: UInt8.self), buffers.destinationStride,
                Int32(rows.lowerBound), Int32(rows.upperBound), rowBytes, axis, code(finish))
        }
    }

    /// Both passes of a resize of 4-byte pixels, vertical (`lines`) then horizontal (`columns`), into rows
    /// `rows` of `buffers.destination`, one row at a time through scratch memory instead of an intermediate
    /// image. Returns false, having written nothing, when the scratch row cannot be allocated.
    static func verticalThenHorizontal4(
        _ buffers: Buffers, rows: Range<Int>, lines: ResamplerWeights, columns: ResamplerWeights,
        finish: Finish
    ) -> Bool {
        withAxis(lines) { lineAxis in
            withAxis(columns) { columnAxis in
                tip_resample_vertical_horizontal4_avx2(
                    buffers.source.assumingMemoryBound(to: UInt8.self), buffers.sourceStride,
                    buffers.destination.assumingMemoryBound(to: UInt8.self), buffers.destinationStride,
                    Int32(rows.lowerBound), Int32(rows.upperBound), lineAxis, columnAxis, code(finish)) == 0
            }
        }
    }

    private static func code(_ finish: Finish) -> Int32 {
        switch finish {
        case .none: Int32(TIP_RESAMPLER_FINISH_NONE)
        case .premultiplied: Int32(TIP_RESAMPLER_FINISH_PREMULTIPLIED)
        case .opaque: Int32(TIP_RESAMPLER_FINISH_OPAQUE)
        }
    }

    /// Calls `body` with the C description of `weights` (valid during the call).
    private static func withAxis<R>(_ weights: ResamplerWeights, _ body: (UnsafePointer<tip_resampler_axis>) -> R) -> R
    {
        weights.starts.withUnsafeBufferPointer { starts in
            weights.tapCounts.withUnsafeBufferPointer { counts in
                weights.pairWeights.withUnsafeBufferPointer { pairs in
                    pairs.withMemoryRebound(to: Int32.self) { words in
                        var axis = tip_resampler_axis(
                            starts: starts.baseAddress, tap_counts: counts.baseAddress, pair_words: words.baseAddress,
                            pair_stride: weights.pairStride, max_taps: Int32(weights.maxTaps),
                            source_count: Int32(weights.sourceCount), count: Int32(weights.count))
                        return body(&axis)
                    }
                }
            }
        }
    }
}
