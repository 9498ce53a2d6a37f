import CTurboJPEG
import Foundation

/// Chooses the DCT scaling factor for a decode: the largest reduction that still yields at least
/// the final (target-sized) dimensions on both axes, so the resampler only ever shrinks.
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

    /// The reductions TurboJPEG and libjpeg-turbo offer (factors ≤ 1), largest first.
    static let factors: [(num: Int, denom: Int)] = {
        var count: Int32 = 0
        var result: [(num: Int, denom: Int)] = []
        if let list = tjGetScalingFactors(&count), count > 0 {
            for i in 0..<Int(count) {
                let f = list[i]
                if f.num > 0, f.denom > 0, f.num <= f.denom { result.append((Int(f.num), Int(f.denom))) }
            }
        }
        if result.isEmpty { result = (1...8).reversed().map { ($0, 8) } }
        return result.sorted { $0.num * $1.denom > $1.num * $0.denom }
    }()

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
