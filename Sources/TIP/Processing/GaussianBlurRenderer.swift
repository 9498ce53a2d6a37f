import Foundation

/// The Gaussian blur behind ``ImageProcessors/GaussianBlur``.
///
/// The kernel is Pillow's (`ImageFilter.GaussianBlur`): three passes of a box whose fractional radius
/// gives exactly the variance sigma² (Gwosdek et al., "Theoretical foundations of Gaussian convolution by
/// extended box filtering"), here convolved into one kernel and applied in one sweep over both axes
/// (``SymmetricConvolution``; the resampler's passes for the rare long kernels),
/// with the edge pixels repeated beyond the edges (Pillow repeats each pass's edge instead, which differs
/// only within a few sigma of the edge). Larger blurs take a cheaper route with the same result to within
/// a level or two: the image is averaged down, blurred there by the sigma that remains once the averaging
/// and the enlarging are accounted for, and enlarged back with linear interpolation, so the work no longer
/// grows with sigma. 4-byte images are halved by 2x2 boxes and doubled back, recursively, while sigma is
/// ≥ ``halvingSigma`` (``ResamplerDoubling``); gray images are reduced once by an integer factor. Every route keeps
/// premultiplied colour ≤ alpha, `rgbx8` opaque and `gray8` gray.
enum GaussianBlurRenderer {
    /// Passes run on several threads above this much work (see ``Resampler/forEachBand``): a blur's passes
    /// do little per unit, so they split earlier than a resize's.
    static var parallelThreshold: Int { 1 << 18 }

    /// Sigma per reduction step for gray images: a blur of sigma is averaged down by about sigma / 1.25
    /// (measured on photos: ≥ 47 dB PSNR against the direct blur at every sigma).
    static var sigmaPerReductionFactor: Double { 1.25 }

    /// `bitmap` blurred with standard deviation `sigma` pixels (> 0, finite). A sigma over twice the
    /// longer side blurs as much as that.
    static func blur(_ bitmap: Bitmap, sigma requested: Double, parallelThreshold: Int = parallelThreshold) -> Bitmap {
        precondition(requested.isFinite && requested > 0, "blur needs a positive sigma")
        let sigma = min(requested, Double(2 * max(bitmap.width, bitmap.height)))
        guard bitmap.format.bytesPerPixel == 1 && reduces(bitmap, sigma: sigma) else {
            return blurBounded(bitmap, sigma: sigma, parallelThreshold: parallelThreshold)
        }
        // A reduced gray image would repeat averaged edge pixels beyond its edges, not the edge pixels: blur
        // an image whose edges are already repeated 3 sigma out (beyond the blur's reach), then cut it back.
        let margin = Int((3 * sigma).rounded(.up))
        let padded = bitmap.repeatingEdges(by: margin)
        let blurred = blurBounded(padded, sigma: sigma, parallelThreshold: parallelThreshold)
        return blurred.cropped(x: margin, y: margin, width: bitmap.width, height: bitmap.height)
    }

    /// Whether a blur of `sigma` reduces `bitmap` first (else it convolves it directly).
    private static func reduces(_ bitmap: Bitmap, sigma: Double) -> Bool {
        if bitmap.format.bytesPerPixel == 4 { return sigma >= halvingSigma && min(bitmap.width, bitmap.height) >= 32 }
        return reductionFactor(sigma: sigma, width: bitmap.width, height: bitmap.height) > 1
    }

    /// Sigma from which a 4-byte image is halved first (the halving and doubling then add most of the blur).
    /// Measured on carnival.jpg against Pillow: ≥ 47 dB PSNR just above it, and the direct route below it
    /// costs no more than a halving level.
    static var halvingSigma: Double { 1.6 }

    private static func blurBounded(_ bitmap: Bitmap, sigma: Double, parallelThreshold: Int) -> Bitmap {
        if bitmap.format.bytesPerPixel == 4 && reduces(bitmap, sigma: sigma) {
            // Halve (2x2 boxes add variance 1/4, in full-size pixels), blur the half (its pixels are 2 wide),
            // double (linear interpolation adds 1/2): the levels recurse until sigma is small. The half gets a
            // margin made of this level's edge pixels averaged in pairs, as the 2x2 boxes of repeated edge
            // pixels would be: the levels below then repeat the true edges, not averaged ones.
            let half = ResamplerBoxReduction.reduce(
                bitmap, factorX: 2, factorY: 2, parallelThreshold: parallelThreshold)
            let remaining = ((sigma * sigma - 0.75) / 4).squareRoot()
            let margin = Int((3 * remaining).rounded(.up)) + 1
            let padded = half.withMargin(margin, edgesHalvedFrom: bitmap)
            let blurred = blurBounded(padded, sigma: remaining, parallelThreshold: parallelThreshold)
            return ResamplerDoubling.doubled(
                blurred, width: bitmap.width, height: bitmap.height, origin: margin,
                parallelThreshold: parallelThreshold)
        }
        let factor = reductionFactor(sigma: sigma, width: bitmap.width, height: bitmap.height)
        if factor == 1 {
            return convolve(bitmap, sigma: sigma, parallelThreshold: parallelThreshold)
        }
        // Gray images: one reduction by an integer factor, enlarged back by the resampler's triangle filter.
        let reduced = ResamplerBoxReduction.reduce(
            bitmap, factorX: factor, factorY: factor, parallelThreshold: parallelThreshold)
        // Variance (in full-size pixels) added by the box average, (f² - 1) / 12, and by the linear
        // enlargement, (f² - 1) / 6; the rest is blurred at the reduced size.
        let f = Double(factor)
        let remaining = max(sigma * sigma - (f * f - 1) / 4, 0.25 * f * f)
        let blurred = convolve(reduced, sigma: remaining.squareRoot() / f, parallelThreshold: parallelThreshold)
        let columns = ResamplerWeights(
            filter: .triangle, sourceCount: reduced.width, count: bitmap.width, sourceExtent: Double(bitmap.width) / f)
        let lines = ResamplerWeights(
            filter: .triangle, sourceCount: reduced.height, count: bitmap.height,
            sourceExtent: Double(bitmap.height) / f)
        return Resampler.apply(columns: columns, lines: lines, to: blurred, parallelThreshold: parallelThreshold)
    }

    /// `bitmap` convolved with ``kernel(sigma:)`` along both axes, edges repeated: in 16-bit lanes when the
    /// kernel is short (``SymmetricConvolution``), else with the resampler's 14-bit taps.
    static func convolve(_ bitmap: Bitmap, sigma: Double, parallelThreshold: Int) -> Bitmap {
        let k = kernel(sigma: sigma)
        if let short = SymmetricConvolution(kernel: k) {
            return short.apply(to: bitmap, parallelThreshold: parallelThreshold)
        }
        return Resampler.apply(
            columns: ResamplerWeights(kernel: k, count: bitmap.width),
            lines: ResamplerWeights(kernel: k, count: bitmap.height),
            to: bitmap, parallelThreshold: parallelThreshold)
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

extension Bitmap {
    /// This bitmap with `margin` more pixels on every side, each a copy of the nearest edge pixel.
    func repeatingEdges(by margin: Int) -> Bitmap {
        withMargin(
            margin, top: cropped(x: 0, y: 0, width: width, height: 1),
            bottom: cropped(x: 0, y: height - 1, width: width, height: 1),
            left: cropped(x: 0, y: 0, width: 1, height: height),
            right: cropped(x: width - 1, y: 0, width: 1, height: height),
            corners: (
                pixelBytes(0, 0), pixelBytes(width - 1, 0), pixelBytes(0, height - 1), pixelBytes(width - 1, height - 1)
            ))
    }

    /// This bitmap, the 2x2 box reduction of `full`, with `margin` more pixels on every side: the rows above
    /// and below repeat `full`'s top and bottom rows averaged in horizontal pairs, the columns beside it
    /// `full`'s side columns averaged in vertical pairs, the corners `full`'s corners.
    func withMargin(_ margin: Int, edgesHalvedFrom full: Bitmap) -> Bitmap {
        func halved(_ x: Int, _ y: Int, _ w: Int, _ h: Int, _ fx: Int, _ fy: Int) -> Bitmap {
            ResamplerBoxReduction.reduce(full, factorX: fx, factorY: fy, region: (x, y, w, h))
        }
        // Regions must start on the box grid: a last row or column at an odd index is a box of its own.
        let lastRow = full.height - 1, lastColumn = full.width - 1
        return withMargin(
            margin, top: halved(0, 0, full.width, 1, 2, 1), bottom: halved(0, lastRow, full.width, 1, 2, 1),
            left: halved(0, 0, 1, full.height, 1, 2), right: halved(lastColumn, 0, 1, full.height, 1, 2),
            corners: (
                full.pixelBytes(0, 0), full.pixelBytes(lastColumn, 0), full.pixelBytes(0, lastRow),
                full.pixelBytes(lastColumn, lastRow)
            ))
    }

    /// The raw bytes of pixel (`x`, `y`) (1 or 4 of them, in the low bytes).
    private func pixelBytes(_ x: Int, _ y: Int) -> UInt32 {
        withUnsafeBytes { bytes in
            format.bytesPerPixel == 4
                ? bytes.load(fromByteOffset: y * bytesPerRow + x * 4, as: UInt32.self)
                : UInt32(bytes[y * bytesPerRow + x])
        }
    }

    /// This bitmap inside a `margin`-pixel frame: `top` and `bottom` (rows of this width) repeated above and
    /// below, `left` and `right` (columns of this height) beside, `corners` (top-left, top-right,
    /// bottom-left, bottom-right) in the corners.
    private func withMargin(
        _ margin: Int, top: Bitmap, bottom: Bitmap, left: Bitmap, right: Bitmap,
        corners: (UInt32, UInt32, UInt32, UInt32)
    ) -> Bitmap {
        precondition(
            top.width == width && bottom.width == width && left.height == height && right.height == height,
            "margin pieces do not fit")
        let bpp = format.bytesPerPixel, width = self.width, height = self.height
        guard var out = Bitmap(uninitializedWidth: width + 2 * margin, height: height + 2 * margin, format: format)
        else {
            preconditionFailure("blur: the framed bitmap could not be allocated")
        }
        let stride = out.bytesPerRow, rowBytes = width * bpp
        func fill(_ row: UnsafeMutableRawPointer, _ value: UInt32, count: Int) {
            for i in 0..<count {
                if bpp == 4 {
                    (row + i * 4).storeBytes(of: value, as: UInt32.self)
                } else {
                    row.storeBytes(of: UInt8(truncatingIfNeeded: value), toByteOffset: i, as: UInt8.self)
                }
            }
        }
        withUnsafeBytes { src in
            top.withUnsafeBytes { topBytes in
                bottom.withUnsafeBytes { bottomBytes in
                    out.withUnsafeMutableBytes { dst in
                        guard let s = src.baseAddress, let t = topBytes.baseAddress, let b = bottomBytes.baseAddress,
                            let d = dst.baseAddress
                        else { return }
                        for y in 0..<(height + 2 * margin) {
                            let row = d + y * stride
                            let inside = y >= margin && y < margin + height
                            let source = inside ? s + (y - margin) * bytesPerRow : (y < margin ? t : b)
                            (row + margin * bpp).copyMemory(from: source, byteCount: rowBytes)
                            if inside {
                                fill(row, left.pixelBytes(0, y - margin), count: margin)
                                fill(row + (margin + width) * bpp, right.pixelBytes(0, y - margin), count: margin)
                            } else {
                                fill(row, y < margin ? corners.0 : corners.2, count: margin)
                                fill(row + (margin + width) * bpp, y < margin ? corners.1 : corners.3, count: margin)
                            }
                        }
                    }
                }
            }
        }
        return out
    }
}
