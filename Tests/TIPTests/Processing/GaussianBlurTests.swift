import Foundation
import Testing

@testable import TIP

@Suite("Processing: Gaussian blur")
struct GaussianBlurTests {
    /// Pillow's `GaussianBlur(radius: sigma)` transcribed from its definition: three horizontal passes of
    /// the extended box (24-bit fixed point, each pass repeating its own edge pixels, every pass rounded to
    /// 8 bits), then three vertical ones.
    static func pillowBlur(_ bitmap: Bitmap, sigma: Double) -> Bitmap {
        let channels = bitmap.format.bytesPerPixel
        var planes = (0..<channels).map { c in
            (0..<bitmap.height).map { y in
                (0..<bitmap.width).map { x in
                    Int(bitmap.withUnsafeBytes { $0[y * bitmap.bytesPerRow + x * channels + c] })
                }
            }
        }
        let fr = Float(GaussianBlurRenderer.boxRadius(sigma: sigma))
        let r = Int(fr)
        let ww = UInt32(Float(1 << 24) / (fr * 2 + 1))
        let fw = (UInt32(1 << 24) - UInt32(2 * r + 1) * ww) / 2
        func pass(_ line: [Int]) -> [Int] {
            let last = line.count - 1
            func e(_ i: Int) -> UInt32 { UInt32(line[min(max(i, 0), last)]) }
            return (0...last).map { x in
                var acc: UInt32 = 0
                for i in (x - r)...(x + r) { acc += e(i) }
                let bulk = acc &* ww &+ (e(x - r - 1) + e(x + r + 1)) &* fw
                return Int((bulk &+ (1 << 23)) >> 24)
            }
        }
        for c in 0..<channels {
            for _ in 0..<3 { planes[c] = planes[c].map(pass) }
            for _ in 0..<3 {
                let columns = (0..<bitmap.width).map { x in pass(planes[c].map { $0[x] }) }
                planes[c] = (0..<bitmap.height).map { y in columns.map { $0[y] } }
            }
        }
        var out = bitmap
        let stride = bitmap.bytesPerRow
        out.withUnsafeMutableBytes { bytes in
            for c in 0..<channels {
                for y in 0..<bitmap.height {
                    for x in 0..<bitmap.width { bytes[y * stride + x * channels + c] = UInt8(planes[c][y][x]) }
                }
            }
        }
        return out
    }

    /// The blur's definition in double precision: the whole kernel of ``GaussianBlurRenderer/kernel(sigma:)``
    /// along both axes, source pixels beyond the edges repeating the edge, rounded once at the end.
    static func referenceBlur(_ bitmap: Bitmap, sigma: Double) -> Bitmap {
        let k = GaussianBlurRenderer.kernel(sigma: sigma), radius = k.count / 2
        let channels = bitmap.format.bytesPerPixel, width = bitmap.width, height = bitmap.height
        var samples = [Double](repeating: 0, count: width * height * channels)
        bitmap.withUnsafeBytes { bytes in
            for y in 0..<height {
                for x in 0..<width {
                    for c in 0..<channels {
                        samples[(y * width + x) * channels + c] = Double(
                            bytes[y * bitmap.bytesPerRow + x * channels + c])
                    }
                }
            }
        }
        func pass(_ input: [Double], alongX: Bool) -> [Double] {
            var output = input
            for y in 0..<height {
                for x in 0..<width {
                    for c in 0..<channels {
                        var sum = 0.0
                        for (j, weight) in k.enumerated() {
                            let sx = alongX ? min(max(x + j - radius, 0), width - 1) : x
                            let sy = alongX ? y : min(max(y + j - radius, 0), height - 1)
                            sum += weight * input[(sy * width + sx) * channels + c]
                        }
                        output[(y * width + x) * channels + c] = sum
                    }
                }
            }
            return output
        }
        let result = pass(pass(samples, alongX: false), alongX: true)
        var out = bitmap
        let stride = bitmap.bytesPerRow
        out.withUnsafeMutableBytes { bytes in
            for y in 0..<height {
                for x in 0..<width {
                    for c in 0..<channels {
                        bytes[y * stride + x * channels + c] = UInt8(
                            min(255, max(0, result[(y * width + x) * channels + c].rounded())))
                    }
                }
            }
        }
        return out
    }

    static func blur(_ bitmap: Bitmap, _ sigma: Double) throws -> Bitmap {
        try ImageProcessors.GaussianBlur(sigma: sigma).process(bitmap, context: ImageProcessingContext())
    }

    /// The largest difference to the exact blur on these worst cases (noise at full contrast, every pixel
    /// next to an edge): per axis, a dropped outer tap (``SymmetricConvolution/negligibleWeight``) moves a
    /// pixel by up to a level, the 8-bit weights by up to a level and the rounding between the passes by
    /// half a level.
    static let tolerance = 4

    @Test("Every small image and sigma is close to the exact blur", arguments: PixelFormat.allCases)
    func smallExhaustive(format: PixelFormat) throws {
        for width in 1...6 {
            for height in 1...6 {
                let image =
                    (format == .rgba8Premultiplied
                    ? TestImages.translucent(width: width, height: height)
                    : TestImages.photo(width: width, height: height))
                    .converted(to: format)
                for sigma in [0.3, 0.7, 1, 1.6, 3, 9] {
                    let out = try Self.blur(image, sigma)
                    #expect(out.width == width && out.height == height && out.format == format)
                    // Sigma is capped at twice the longer side (see GaussianBlurRenderer.blur).
                    let exact = Self.referenceBlur(image, sigma: min(sigma, Double(2 * max(width, height))))
                    let difference = ImageComparison.maxDifference(out, exact)
                    #expect(
                        difference <= Self.tolerance,
                        "\(format) \(width)x\(height) sigma \(sigma): off by \(difference)")
                    #expect(ImageComparison.psnr(out, exact) >= 38, "\(format) \(width)x\(height) sigma \(sigma)")
                }
            }
        }
    }

    @Test(
        """
        Photos, blurred directly and through halved sizes, match the exact blur (PSNR ≥ 40 dB) and Pillow's \
        algorithm (≥ 35 dB) away from the edges' reach
        """,
        arguments: [0.8, 1.7, 3.7, 6, 11])
    func photos(sigma: Double) throws {
        // At least 32 pixels a side, so that sigma ≥ 1.6 takes the halving route.
        for image in [
            TestImages.photo(width: 72, height: 48), TestImages.translucent(width: 40, height: 56),
            TestImages.photo(width: 60, height: 40).converted(to: .gray8),
        ] {
            let out = try Self.blur(image, sigma)
            let exact = ImageComparison.psnr(out, Self.referenceBlur(image, sigma: sigma))
            #expect(exact >= 40, "sigma \(sigma) \(image.format): \(exact) dB against the exact blur")
            // Pillow repeats each pass's edge rather than the image's: when sigma nears the image's size
            // every pixel is near an edge, and the two models part. The benchmark compares real photos.
            if sigma * 8 <= Double(min(image.width, image.height)) {
                let pillow = ImageComparison.psnr(out, Self.pillowBlur(image, sigma: sigma))
                #expect(pillow >= 35, "sigma \(sigma) \(image.format): \(pillow) dB against Pillow's algorithm")
            }
        }
    }

    @Test("A large blur through several halvings stays close to the exact blur")
    func manyLevels() throws {
        // 8 → 3.9 → 1.8 (two halvings, then the direct blur at a quarter of the size). The test image's last
        // row and columns differ sharply from their neighbours; at this sigma they weigh a lot beyond the
        // edges, which the halved levels must repeat as they are (not averaged with their neighbours).
        let image = TestImages.photo(width: 128, height: 96)
        let out = try Self.blur(image, 8)
        let psnr = ImageComparison.psnr(out, Self.referenceBlur(image, sigma: 8))
        #expect(psnr >= 38, "\(psnr) dB against the exact blur")
    }

    @Test(
        """
        A thin image (no reduction) with a wide kernel, whose 8-bit taps each round to 1 or 0, is blurred: \
        it was returned unchanged
        """,
        arguments: [40.0, 65, 100])
    func wideKernelOnThinImage(sigma: Double) throws {
        let image = TestImages.photo(width: 400, height: 8)
        let out = try Self.blur(image, sigma)
        let psnr = ImageComparison.psnr(out, Self.referenceBlur(image, sigma: sigma))
        #expect(psnr >= 40, "sigma \(sigma): \(psnr) dB against the exact blur")
    }

    @Test("Solid colours stay exact; premultiplied colour never exceeds alpha; opaque stays opaque")
    func invariants() throws {
        for sigma in [0.5, 2, 7, 40] {
            let solid = TestImages.solid(width: 64, height: 48, SIMD4(90, 40, 133, 200))
            let blurredSolid = try Self.blur(solid, sigma)
            #expect(ImageComparison.maxDifference(blurredSolid, solid) == 0, "sigma \(sigma)")
            let translucent = try Self.blur(TestImages.translucent(width: 64, height: 48), sigma)
            for y in 0..<48 {
                for x in 0..<64 {
                    let p = translucent.pixel(x: x, y: y); #expect(p[0] <= p[3] && p[1] <= p[3] && p[2] <= p[3])
                }
            }
            let opaque = try Self.blur(TestImages.photo(width: 64, height: 48), sigma)
            #expect(!opaque.containsTransparency())
            opaque.withUnsafeBytes { bytes in
                for y in 0..<48 { for x in 0..<64 { #expect(bytes[y * opaque.bytesPerRow + x * 4 + 3] == 255) } }
            }
        }
    }

    @Test("Sigma 0 and 1-pixel images come back unchanged; a huge sigma is bounded")
    func edges() throws {
        let photo = TestImages.photo(width: 20, height: 10)
        #expect(try Self.blur(photo, 0) == photo)
        let one = TestImages.photo(width: 1, height: 1)
        #expect(try Self.blur(one, 5) == one)
        let flat = try Self.blur(TestImages.photo(width: 40, height: 30), 1e12)
        #expect(flat.width == 40 && flat.height == 30)
    }

    @Test("The kernel is Pillow's: sums to one, has variance sigma², and is symmetric")
    func kernel() {
        for sigma in [0.3, 1, 2.5, 8] {
            let k = GaussianBlurRenderer.kernel(sigma: sigma)
            let mid = k.count / 2
            #expect(abs(k.reduce(0, +) - 1) < 1e-12)
            let variance = k.enumerated().reduce(0.0) {
                $0 + $1.element * Double(($1.offset - mid) * ($1.offset - mid))
            }
            #expect(
                abs(variance - sigma * sigma) < 1e-9 * max(1, sigma * sigma), "sigma \(sigma): variance \(variance)")
            #expect(zip(k, k.reversed()).allSatisfy { abs($0 - $1) < 1e-15 })
        }
        // Gray images take one integer reduction.
        #expect(GaussianBlurRenderer.reductionFactor(sigma: 1, width: 1000, height: 1000) == 1)
        #expect(GaussianBlurRenderer.reductionFactor(sigma: 10, width: 1000, height: 1000) == 8)
        #expect(GaussianBlurRenderer.reductionFactor(sigma: 10, width: 40, height: 1000) == 2)
    }
}
