import CTurboJPEG
import Foundation

/// Chooses the DCT scaling factor for a decode: the largest reduction that still yields at least
/// the final (target-sized) dimensions on both axes, so the resampler only ever shrinks.
///
/// Only 1/8, 1/4, 1/2 and 1/1 are used. libjpeg-turbo has SIMD inverse DCTs for those (1/8 reads DC
/// alone), while 3/8, 5/8, 6/8 and 7/8 run in plain C, with slower upsampling for subsampled chroma
/// as well: decoding a 1280x1280 4:2:0 photo at 7/8 took 20.9 ms against 5.8 ms at 1/1, and at 3/8 8.1 ms
/// against 3.4 ms at 1/2. The larger decode plus the resampler's extra work still comes out ahead: that
/// photo to 1000 px in 6.3 ms instead of 11.7, to 450 px in 3.9 instead of 4.5; a 640x640 one to 200 px in
/// 0.9 instead of 1.0.
struct JPEGScaleSelection {
    /// Scale numerator and denominator (≤ 1).
    let numerator: Int
    let denominator: Int
    /// Decoded (stored-orientation) dimensions at that scale.
    let scaledWidth: Int
    let scaledHeight: Int
    /// Final dimensions in display orientation.
    let finalWidth: Int
    let finalHeight: Int

    /// The reductions used, largest first: those of 1/8, 1/4, 1/2 and 1/1 that TurboJPEG and libjpeg-turbo
    /// offer (see the type's discussion for why not the others).
    static let factors: [(num: Int, denom: Int)] = {
        var count: Int32 = 0
        var result: [(num: Int, denom: Int)] = []
        if let list = tjGetScalingFactors(&count), count > 0 {
            for i in 0..<Int(count) {
                let f = (num: Int(list[i].num), denom: Int(list[i].denom))
                if f.num > 0, f.denom > 0, f.num <= f.denom, isFast(f) { result.append(f) }
            }
        }
        if result.isEmpty { result = [(1, 1), (1, 2), (1, 4), (1, 8)] }
        return result.sorted { $0.num * $1.denom > $1.num * $0.denom }
    }()

    /// Whether `factor` is 1/8, 1/4, 1/2 or 1/1 (in any terms).
    static func isFast(_ factor: (num: Int, denom: Int)) -> Bool {
        let eighths = factor.num * 8
        return eighths % factor.denom == 0 && [1, 2, 4, 8].contains(eighths / factor.denom)
    }

    /// `dim` scaled by num/denom, rounded up (TJSCALED, libjpeg's jdiv_round_up).
    static func scaled(_ dim: Int, _ num: Int, _ denom: Int) -> Int { (dim * num + denom - 1) / denom }

    /// The scale for a `width` x `height` (stored) image shown with `orientation`, sized to the target.
    init(width: Int, height: Int, orientation: ImageOrientation, targetDimensions: CGSize, contentMode: ContentMode) {
        let swaps = orientation.swapsDimensions
        let displayW = swaps ? height : width, displayH = swaps ? width : height
        let final = TargetSizing.pixelDimensions(
            width: displayW, height: displayH,
            targetDimensions: targetDimensions, contentMode: contentMode)
        finalWidth = final.width
        finalHeight = final.height
        let needW = swaps ? final.height : final.width
        let needH = swaps ? final.width : final.height
        var best = (num: 1, denom: 1)
        for f in Self.factors
        where Self.scaled(width, f.num, f.denom) >= needW && Self.scaled(height, f.num, f.denom) >= needH {
            best = f  // factors descend, so the last fitting one is the smallest output
        }
        numerator = best.num
        denominator = best.denom
        scaledWidth = Self.scaled(width, best.num, best.denom)
        scaledHeight = Self.scaled(height, best.num, best.denom)
    }
}
