import Foundation
import Testing

@testable import TIP

/// `.default` resizes mild reductions (at most 2x per axis, what JPEG decoding leaves after DCT scaling) with
/// Lanczos-2 instead of Lanczos-3: cheaper, and indistinguishable from Lanczos-3 (≥ 40 dB PSNR).
@Suite("Resampler: mild reductions")
struct ResamplerMildReductionTests {
    @Test("The default quality picks Lanczos-2 only when every axis shrinks by at most 2x (and one shrinks)")
    func filterChoice() {
        let cases: [(source: (Int, Int), target: (Int, Int), filter: ResamplingFilter)] = [
            ((512, 288), (400, 225), .lanczos2),  // the disk-hit row: 1/2 DCT scale, then 1.28x
            ((256, 192), (200, 150), .lanczos2),
            ((400, 400), (200, 200), .lanczos2),  // exactly 2x
            ((401, 400), (200, 200), .lanczos3),  // just over 2x on one axis
            ((512, 288), (512, 200), .lanczos2),  // one axis unchanged
            ((200, 200), (400, 225), .lanczos3),  // enlarging
            ((300, 200), (250, 250), .lanczos3),  // one axis enlarges
            ((1880, 1253), (400, 267), .lanczos3),
        ]
        for (source, target, filter) in cases {
            #expect(
                ResamplingFilter(
                    .default, sourceWidth: source.0, sourceHeight: source.1, width: target.0, height: target.1)
                    == filter,
                "\(source) -> \(target)")
            #expect(
                ResamplingFilter(
                    .high, sourceWidth: source.0, sourceHeight: source.1, width: target.0, height: target.1)
                    == .lanczos3)
        }
        #expect(ResamplingFilter.lanczos2.value(at: 0) == 1 && ResamplingFilter.lanczos2.value(at: 2) == 0)
        #expect(abs(ResamplingFilter.lanczos2.value(at: 1)) < 1e-12 && ResamplingFilter.lanczos2.value(at: 1.5) < 0)
    }

    @Test(
        "Mild reductions of generated photos stay within 40 dB of Lanczos-3",
        arguments: [PixelFormat.rgbx8, .rgba8Premultiplied, .gray8])
    func generated(format: PixelFormat) {
        let photo = TestImages.photo(width: 256, height: 144, format: format, seed: 5)
        for (w, h) in [(200, 113), (180, 101), (250, 140), (128, 72)] {
            let mild = Resampler.resample(photo, width: w, height: h, quality: .default)
            let lanczos3 = Resampler.resample(photo, width: w, height: h, quality: .high)
            let psnr = ImageComparison.psnr(mild, lanczos3)
            #expect(psnr >= 40, "\(format) 256x144 -> \(w)x\(h): \(psnr) dB")
        }
    }

    @Test(
        "JPEG fixtures decoded to a target: within 40 dB of the Lanczos-3 decode",
        arguments: [("twitterfied.jpg", 400), ("carnival.jpg", 700), ("carnival.pjpg", 300), ("pink_outfit.jpg", 200)])
    func fixtures(name: String, side: Int) throws {
        guard let data = Fixtures.data(name) else {
            print(Fixtures.skipMessage)
            return
        }
        let decoder = JPEGCodec().decoder
        var mild = ImageDecodingOptions(
            targetDimensions: CGSize(width: side, height: side), targetContentMode: .scaleAspectFit)
        var lanczos3 = mild
        mild.interpolationQuality = .default
        lanczos3.interpolationQuality = .high
        let a = try decoder.decode(data, options: mild).image, b = try decoder.decode(data, options: lanczos3).image
        let psnr = ImageComparison.psnr(a, b)
        #expect(psnr >= 40, "\(name) to fit \(side): \(psnr) dB")
        print(
            """
            \(name) to fit \(side)x\(side) (\(a.width)x\(a.height)): Lanczos-2 vs Lanczos-3 \
            \(String(format: "%.1f", psnr)) dB
            """
        )
    }
}
