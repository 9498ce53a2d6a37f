import TIP

/// Chooses how many wavelet resolution levels to discard for a decode (JPEG 2000's counterpart of
/// JPEG's DCT scaling): the most that still leave the image at least as large as the final
/// (target-sized) dimensions on both axes, so the resampler only ever shrinks.
struct JPEG2000ResolutionSelection: Equatable {
    /// Levels to discard (0 = full resolution).
    let discardedLevels: Int
    /// The final dimensions, at the target sizing.
    let finalWidth: Int
    let finalHeight: Int
    /// The pixels OpenJPEG decodes at that level (reference-grid estimate).
    let decodedPixelCount: Int

    /// The selection for an image whose reference grid spans `x0..<x1` and `y0..<y1`, with
    /// `resolutionLevels` levels (so at most `resolutionLevels - 1` may be discarded).
    init(x0: Int, y0: Int, x1: Int, y1: Int, resolutionLevels: Int, options: ImageDecodingOptions) {
        let final = options.outputDimensions(width: x1 - x0, height: y1 - y0)
        finalWidth = final.width
        finalHeight = final.height
        var best = 0
        var levels = 1
        while levels < max(resolutionLevels, 1) {
            let width = Self.reduced(x1, levels) - Self.reduced(x0, levels)
            let height = Self.reduced(y1, levels) - Self.reduced(y0, levels)
            guard width >= final.width, height >= final.height else { break }
            best = levels
            levels += 1
        }
        discardedLevels = best
        decodedPixelCount =
            (Self.reduced(x1, best) - Self.reduced(x0, best)) * (Self.reduced(y1, best) - Self.reduced(y0, best))
    }

    /// A reference-grid coordinate at `levels` levels down: divided by 2^levels, rounded up.
    static func reduced(_ coordinate: Int, _ levels: Int) -> Int {
        (coordinate + (1 << levels) - 1) >> levels
    }
}
