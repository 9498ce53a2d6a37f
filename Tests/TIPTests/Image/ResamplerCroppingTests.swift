import Foundation
import Testing

@testable import TIP

@Suite("Resampler: cropping while resampling")
struct ResamplerCroppingTests {
    /// (source width, source height, output width, output height): shrinking (with and without the box
    /// pre-reduction), enlarging, one axis kept, slivers.
    static let sizes: [(Int, Int, Int, Int)] = [
        (47, 31, 20, 13), (47, 31, 90, 70), (47, 31, 47, 12), (47, 31, 15, 31), (200, 120, 19, 11),
        (130, 9, 30, 40), (1, 1, 7, 5), (9, 1, 4, 3), (64, 64, 63, 65),
    ]

    @Test(
        "Every region of the result is byte-identical to resampling then cropping",
        arguments: InterpolationQuality.allCases)
    func matchesResampleThenCrop(quality: InterpolationQuality) {
        var rng = SplitMix64(seed: 7)
        for format in PixelFormat.allCases {
            for (w, h, ow, oh) in Self.sizes {
                let source =
                    (format == .rgba8Premultiplied
                    ? TestImages.translucent(width: w, height: h) : TestImages.photo(width: w, height: h)).converted(
                        to: format)
                let whole = Resampler.resample(source, width: ow, height: oh, quality: quality)
                var regions = [(0, 0, ow, oh), (0, 0, 1, 1), (ow - 1, oh - 1, 1, 1), (ow / 3, 0, max(1, ow / 3), oh)]
                for _ in 0..<6 {
                    let x = Int(rng.next() % UInt64(ow)), y = Int(rng.next() % UInt64(oh))
                    let rw = 1 + Int(rng.next() % UInt64(ow - x)), rh = 1 + Int(rng.next() % UInt64(oh - y))
                    regions.append((x, y, rw, rh))
                }
                for (x, y, rw, rh) in regions {
                    let cropped = Resampler.resample(
                        source, width: ow, height: oh, cropping: (x, y, rw, rh), quality: quality)
                    #expect(
                        cropped == whole.cropped(x: x, y: y, width: rw, height: rh),
                        "\(format) \(w)x\(h) -> \(ow)x\(oh), region (\(x), \(y), \(rw), \(rh))")
                }
            }
        }
    }

    @Test("Filling a square with a sliver reads and allocates only the kept part")
    func sliverFill() {
        let sliver = TestImages.photo(width: 3, height: 1000)
        // Aspect-fill to 200x200 is 200x66667: only the middle 200 rows are ever made.
        let square = Resampler.resample(sliver, width: 200, height: 66_667, cropping: (0, 33_233, 200, 200))
        #expect(square.width == 200 && square.height == 200)
        let windowed = ResamplerWeights(filter: .lanczos3, sourceCount: 1000, count: 66_667, window: 33_233..<33_433)
        #expect(
            windowed.count == 200 && windowed.sourceCount <= 8 && windowed.sourceOffset > 490
                && windowed.sourceOffset < 500)
    }

    @Test("Cropping without resizing copies the rectangle")
    func plainCrop() {
        let photo = TestImages.photo(width: 20, height: 10)
        let part = Resampler.resample(photo, width: 20, height: 10, cropping: (3, 4, 5, 6))
        #expect(part == photo.cropped(x: 3, y: 4, width: 5, height: 6))
        for y in 0..<6 { for x in 0..<5 { #expect(part.pixel(x: x, y: y) == photo.pixel(x: x + 3, y: y + 4)) } }
        #expect(photo.cropped(x: 0, y: 0, width: 20, height: 10) == photo)
    }

    @Test(
        "Windowed taps are the whole mapping's taps, shifted by the source offset", arguments: ResamplingFilter.allCases
    )
    func windowedWeights(filter: ResamplingFilter) {
        for (source, count) in [(100, 37), (37, 100), (1880, 300), (5, 5), (1, 9)] {
            let whole = ResamplerWeights(filter: filter, sourceCount: source, count: count)
            for window in [
                0..<count, (count / 2)..<count, 0..<1, (count - 1)..<count, (count / 3)..<(2 * count / 3 + 1),
            ] {
                let part = ResamplerWeights(filter: filter, sourceCount: source, count: count, window: window)
                #expect(part.count == window.count)
                for (i, x) in window.enumerated() {
                    #expect(Int(part.starts[i]) + part.sourceOffset == Int(whole.starts[x]))
                    #expect(part.tapCounts[i] == whole.tapCounts[x])
                    #expect(Int(part.starts[i] + part.tapCounts[i]) <= part.sourceCount)
                    for t in 0..<Int(whole.tapCounts[x]) {
                        #expect(part.weights[i * part.stride + t] == whole.weights[x * whole.stride + t])
                    }
                }
            }
        }
    }
}
