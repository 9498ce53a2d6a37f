import Foundation

/// The Gaussian blur behind ``ImageProcessors/GaussianBlur``, built on the ``Resampler``'s passes.
///
/// The kernel is Pillow's (`ImageFilter.GaussianBlur`): three passes of a box whose fractional radius
/// gives exactly the variance sigma² (Gwosdek et al., "Theoretical foundations of Gaussian convolution by
/// extended box filtering"), here convolved into one kernel and applied as one separable pass per axis,
/// with edge pixels repeated as Pillow does. Large blurs take a cheaper route with the same result to
/// within a level or two: the image is averaged down by an integer factor f, blurred there by the sigma
/// that remains once the averaging and the enlarging are accounted for, and enlarged back with linear
/// interpolation; the work then no longer grows with sigma. Both routes keep premultiplied colour ≤ alpha,
/// `rgbx8` opaque and `gray8` gray.
enum GaussianBlurRenderer {
    /// Passes run on several threads above this much work (see ``Resampler/forEachBand``): a blur's passes
    /// do little per unit, so they split earlier than a resize's.
    static var parallelThreshold: Int { 1 << 18 }

    /// Sigma per reduction step: a blur of sigma is averaged down by about sigma / 1.25 (measured on
    /// photos: ≥ 47 dB PSNR against the direct blur at every sigma).
    static var sigmaPerReductionFactor: Double { 1.25 }

    /// `bitmap` blurred with standard deviation `sigma` pixels (> 0, finite). A sigma over twice the
    /// longer side blurs as much as that.
    static func blur(_ bitmap: Bitmap, sigma requested: Double, parallelThreshold: Int = parallelThreshold) -> Bitmap {
        precondition(requested.isFinite && requested > 0, "blur needs a positive sigma")
        let sigma = min(requested, Double(2 * max(bitmap.width, bitmap.height)))
        let factor = reductionFactor(sigma: sigma, width: bitmap.width, height: bitmap.height)
        if factor == 1 {
            let k = kernel(sigma: sigma)
            return Resampler.apply(columns: ResamplerWeights(kernel: k, count: bitmap.width), lines: ResamplerWeights(kernel: k, count: bitmap.height),
                                   to: bitmap, parallelThreshold: parallelThreshold)
        }
        let reduced = ResamplerBoxReduction.reduce(bitmap, factorX: factor, factorY: factor, parallelThreshold: parallelThreshold)
        // Variance (in full-size pixels) added by the box average, (f² - 1) / 12, and by the linear
        // enlargement, (f² - 1) / 6; the rest is blurred at the reduced size.
        let f = Double(factor)
        let remaining = max(sigma * sigma - (f * f - 1) / 4, 0.25 * f * f)
        let k = kernel(sigma: remaining.squareRoot() / f)
        let blurred = Resampler.apply(columns: ResamplerWeights(kernel: k, count: reduced.width), lines: ResamplerWeights(kernel: k, count: reduced.height),
                                      to: reduced, parallelThreshold: parallelThreshold)
        let columns = ResamplerWeights(filter: .triangle, sourceCount: reduced.width, count: bitmap.width, sourceExtent: Double(bitmap.width) / f)
        let lines = ResamplerWeights(filter: .triangle, sourceCount: reduced.height, count: bitmap.height, sourceExtent: Double(bitmap.height) / f)
        return Resampler.apply(columns: columns, lines: lines, to: blurred, parallelThreshold: parallelThreshold)
    }

    /// The integer factor the image is averaged down by first (1: blurred directly): about
    /// sigma / ``sigmaPerReductionFactor``, at most 255 and leaving at least 16 pixels on the shorter side.
    static func reductionFactor(sigma: Double, width: Int, height: Int) -> Int {
        let bySigma = Int((sigma / sigmaPerReductionFactor).rounded(.down))
        return max(1, min(bySigma, ResamplerBoxReduction.maximumFactor, min(width, height) / 16))
    }

    /// The radius of the extended box that, applied `passes` times, has variance sigma² (Pillow's
    /// `_gaussian_blur_radius`): integer part l and fraction a, the box weighing its 2l + 1 middle pixels
    /// 1 and the two next ones a each.
    static func boxRadius(sigma: Double, passes: Int = 3) -> Double {
        let variance = sigma * sigma / Double(passes)
        let length = (12 * variance + 1).squareRoot()
        let l = ((length - 1) / 2).rounded(.down)
        let a = (2 * l + 1) * (l * (l + 1) - 3 * variance) / (6 * (variance - (l + 1) * (l + 1)))
        return l + a
    }

    /// Three extended boxes of ``boxRadius(sigma:passes:)`` convolved: an odd number of weights summing to 1.
    static func kernel(sigma: Double) -> [Double] {
        let radius = boxRadius(sigma: sigma)
        let whole = Int(radius.rounded(.down)), fraction = radius - Double(whole)
        let total = 2 * radius + 1
        var box = [Double](repeating: 1 / total, count: 2 * whole + 3)
        box[0] = fraction / total
        box[box.count - 1] = fraction / total
        var kernel = [1.0]
        for _ in 0..<3 {
            var next = [Double](repeating: 0, count: kernel.count + box.count - 1)
            for (i, a) in kernel.enumerated() {
                for (j, b) in box.enumerated() { next[i + j] += a * b }
            }
            kernel = next
        }
        return kernel
    }
}
