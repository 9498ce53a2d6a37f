import Foundation
import Testing

@testable import TIP

@Suite("Resampler")
struct ResamplerTests {
    static let filtered: [InterpolationQuality] = [.low, .medium, .high, .default]

    @Test("Same size returns the same pixels", arguments: InterpolationQuality.allCases)
    func identity(quality: InterpolationQuality) {
        for format in PixelFormat.allCases {
            let photo = TestImages.photo(width: 37, height: 23).converted(to: format)
            #expect(Resampler.resample(photo, width: 37, height: 23, quality: quality) == photo)
        }
    }

    @Test("A solid colour stays exactly that colour", arguments: InterpolationQuality.allCases)
    func solidColour(quality: InterpolationQuality) {
        let sizes: [(Int, Int, Int, Int)] = [
            (40, 30, 13, 7), (40, 30, 97, 61), (40, 30, 1, 1), (40, 30, 40, 11), (40, 30, 3, 30),
            (1, 25, 9, 4), (25, 1, 4, 9), (1, 1, 5, 3), (7, 5, 6, 6), (64, 64, 32, 32),
        ]
        let colours: [PixelFormat: SIMD4<UInt8>] = [
            .rgba8Premultiplied: SIMD4(90, 40, 133, 200), .rgbx8: SIMD4(12, 250, 77, 255),
            .gray8: SIMD4(201, 201, 201, 255),
        ]
        for format in PixelFormat.allCases {
            let colour = colours[format]!
            for (w, h, ow, oh) in sizes {
                let source = TestImages.solid(width: w, height: h, colour, format: format)
                let expected = source.pixel(x: 0, y: 0)
                let out = Resampler.resample(source, width: ow, height: oh, quality: quality)
                #expect(out.width == ow && out.height == oh && out.format == format)
                #expect(Self.allPixels(out) { $0 == expected }, "\(format) \(w)x\(h) -> \(ow)x\(oh)")
            }
        }
    }

    @Test(
        "Every coordinate's weights sum exactly to one and stay inside the source", arguments: ResamplingFilter.allCases
    )
    func weightsSumToOne(filter: ResamplingFilter) {
        let pairs = [
            (10, 3), (3, 10), (100, 99), (99, 100), (1, 7), (7, 1), (470, 400), (1880, 400), (5, 5), (1000, 3), (2, 1),
        ]
        for (source, count) in pairs {
            let weights = ResamplerWeights(filter: filter, sourceCount: source, count: count)
            #expect(weights.count == count && weights.sourceCount == source)
            #expect(weights.stride % 4 == 0 && weights.stride >= weights.maxTaps)
            #expect(weights.weights.count == count * weights.stride)
            for x in 0..<count {
                let start = Int(weights.starts[x]), taps = Int(weights.tapCounts[x])
                #expect(start >= 0 && taps >= 1 && start + taps <= source, "\(filter) \(source)->\(count) x=\(x)")
                #expect(taps <= weights.maxTaps)
                let row = weights.weights[(x * weights.stride)..<((x + 1) * weights.stride)]
                #expect(
                    row.reduce(0) { $0 + Int($1) } == Int(ResamplerWeights.one), "\(filter) \(source)->\(count) x=\(x)")
                #expect(row.dropFirst(taps).allSatisfy { $0 == 0 })
                // The block layout reads whole 4-pixel blocks inside its padded width, same weights per pixel.
                let blockStart = Int(weights.blockStarts[x]), blocks = Int(weights.blockCounts[x])
                #expect(
                    blockStart >= 0 && blocks * 4 <= weights.stride
                        && blockStart + blocks * 4 <= weights.blockSourceCount)
                #expect(weights.blockSourceCount == max(source, weights.stride))
                var differing = 0
                for i in min(start, blockStart)..<max(start + taps, blockStart + blocks * 4) {
                    let plain =
                        (start..<(start + taps)).contains(i) ? weights.weights[x * weights.stride + i - start] : 0
                    let inBlocks =
                        (blockStart..<(blockStart + blocks * 4)).contains(i)
                        ? weights.blockWeights[x * weights.stride + i - blockStart] : 0
                    if plain != inBlocks { differing += 1 }
                }
                #expect(differing == 0, "\(filter) \(source)->\(count) x=\(x)")
            }
        }
    }

    @Test("Shrinking widens the kernel; enlarging keeps it")
    func support() {
        let shrink = ResamplerWeights(filter: .lanczos3, sourceCount: 400, count: 100)
        #expect(shrink.maxTaps >= 22)
        let enlarge = ResamplerWeights(filter: .lanczos3, sourceCount: 100, count: 400)
        #expect(enlarge.maxTaps <= 7)
        let triangle = ResamplerWeights(filter: .triangle, sourceCount: 100, count: 400)
        #expect(triangle.maxTaps <= 2)
    }

    @Test("A 1-pixel checkerboard shrunk by 2 becomes mid-gray", arguments: filtered)
    func checkerboard(quality: InterpolationQuality) {
        for format in PixelFormat.allCases {
            var board = Bitmap(width: 64, height: 48, format: format)!
            for y in 0..<48 {
                for x in 0..<64 where (x + y) % 2 == 0 { board.setPixel(x: x, y: y, SIMD4(255, 255, 255, 255)) }
                for x in 0..<64 where (x + y) % 2 == 1 { board.setPixel(x: x, y: y, SIMD4(0, 0, 0, 255)) }
            }
            let out = Resampler.resample(board, width: 32, height: 24, quality: quality)
            // Edge pixels see a cut, renormalised kernel and lean towards one phase; the interior is exact.
            for y in 3..<21 {
                for x in 3..<29 {
                    let p = out.pixel(x: x, y: y)
                    #expect(abs(Int(p[0]) - 128) <= 2 && p[0] == p[1] && p[1] == p[2], "\(format) (\(x), \(y)) = \(p)")
                }
            }
        }
    }

    @Test("A horizontal gradient stays monotonic", arguments: InterpolationQuality.allCases)
    func gradient(quality: InterpolationQuality) {
        for format in PixelFormat.allCases {
            var ramp = Bitmap(width: 256, height: 6, format: format)!
            for y in 0..<6 {
                for x in 0..<256 { ramp.setPixel(x: x, y: y, SIMD4(UInt8(x), UInt8(x), UInt8(255 - x), 255)) }
            }
            for width in [100, 255, 257, 700, 31] {
                let out = Resampler.resample(ramp, width: width, height: 4, quality: quality)
                for y in 0..<4 {
                    for x in 1..<width {
                        let a = out.pixel(x: x - 1, y: y), b = out.pixel(x: x, y: y)
                        #expect(b[0] >= a[0], "\(format) \(quality) width \(width) x=\(x): \(a) then \(b)")
                        if format != .gray8 { #expect(b[2] <= a[2]) }
                    }
                }
            }
        }
    }

    @Test("Premultiplied colour never exceeds alpha after ringing", arguments: InterpolationQuality.allCases)
    func premultipliedInvariant(quality: InterpolationQuality) {
        // Blocks whose colour and alpha step in opposite directions: ringing pushes colour above alpha.
        let palette: [SIMD4<UInt8>] = [
            SIMD4(128, 128, 128, 128), SIMD4(0, 0, 0, 255), SIMD4(255, 255, 255, 255), SIMD4(0, 0, 0, 0),
            SIMD4(30, 0, 30, 30), SIMD4(0, 200, 0, 255), SIMD4(90, 90, 0, 90),
        ]
        var rng = SplitMix64(seed: 7)
        var image = Bitmap(width: 60, height: 40, format: .rgba8Premultiplied)!
        for by in 0..<8 {
            for bx in 0..<12 {
                let colour = palette[Int(rng.next() % UInt64(palette.count))]
                for y in (by * 5)..<(by * 5 + 5) {
                    for x in (bx * 5)..<(bx * 5 + 5) { image.setPixel(x: x, y: y, colour) }
                }
            }
        }
        for (w, h) in [(23, 17), (150, 90), (60, 13), (7, 40), (119, 80)] {
            let out = Resampler.resample(image, width: w, height: h, quality: quality)
            #expect(Self.allPixels(out) { $0[0] <= $0[3] && $0[1] <= $0[3] && $0[2] <= $0[3] }, "\(w)x\(h)")
        }
        let translucent = TestImages.translucent(width: 50, height: 50)
        let out = Resampler.resample(translucent, width: 21, height: 33, quality: quality)
        #expect(Self.allPixels(out) { $0[0] <= $0[3] && $0[1] <= $0[3] && $0[2] <= $0[3] })
    }

    @Test("rgbx8 keeps its fourth byte at 255 and row padding stays zero", arguments: InterpolationQuality.allCases)
    func opaqueByteAndPadding(quality: InterpolationQuality) {
        var image = TestImages.photo(width: 50, height: 30)
        for y in 10..<20 {
            for x in 0..<50 { image.setPixel(x: x, y: y, x % 2 == 0 ? SIMD4(255, 255, 255, 255) : SIMD4(0, 0, 0, 255)) }
        }
        for format in PixelFormat.allCases {
            let source = image.converted(to: format)
            for (w, h) in [(17, 9), (130, 70), (50, 11), (13, 30), (3, 100)] {
                let out = Resampler.resample(source, width: w, height: h, quality: quality)
                out.withUnsafeBytes { bytes in
                    for y in 0..<h {
                        let row = bytes.baseAddress! + y * out.bytesPerRow
                        let used = w * format.bytesPerPixel
                        for i in used..<out.bytesPerRow { #expect(row.load(fromByteOffset: i, as: UInt8.self) == 0) }
                        if format == .rgbx8 {
                            for x in 0..<w { #expect(row.load(fromByteOffset: x * 4 + 3, as: UInt8.self) == 255) }
                        }
                    }
                }
            }
        }
    }

    @Test("Extreme ratios", arguments: InterpolationQuality.allCases)
    func extremeRatios(quality: InterpolationQuality) {
        var line = Bitmap(width: 10000, height: 1, format: .rgbx8)!
        for x in 0..<10000 { line.setPixel(x: x, y: 0, SIMD4(UInt8(x * 256 / 10000), 77, 200, 255)) }
        let dot = Resampler.resample(line, width: 1, height: 1, quality: quality)
        #expect(dot.width == 1 && dot.height == 1)
        if quality != .none { #expect(abs(Int(dot.pixel(x: 0, y: 0)[0]) - 128) <= 3, "\(dot.pixel(x: 0, y: 0))") }
        #expect(dot.pixel(x: 0, y: 0)[1] == 77 && dot.pixel(x: 0, y: 0)[2] == 200)

        let one = TestImages.solid(width: 1, height: 1, SIMD4(10, 20, 30, 40))
        let big = Resampler.resample(one, width: 300, height: 200, quality: quality)
        #expect(Self.allPixels(big) { $0 == SIMD4(10, 20, 30, 40) })

        let strip = TestImages.photo(width: 4000, height: 3, format: .gray8)
        let small = Resampler.resample(strip, width: 7, height: 9, quality: quality)
        #expect(small.width == 7 && small.height == 9)
        let tall = Resampler.resample(TestImages.photo(width: 3, height: 2000), width: 9, height: 7, quality: quality)
        #expect(tall.width == 9 && tall.height == 7)
    }

    @Test("Shrinking by an integer factor is close to a box-filter average", arguments: filtered)
    func closeToBoxFilter(quality: InterpolationQuality) {
        for photo in Self.photos {
            let format = photo.format
            for factor in [2, 4] {
                let out = Resampler.resample(
                    photo, width: photo.width / factor, height: photo.height / factor, quality: quality)
                let reference = Self.boxDownscale(photo, factor: factor)
                let psnr = ImageComparison.psnr(out, reference)
                #expect(psnr > 35, "\(format) factor \(factor): \(psnr) dB")
            }
        }
    }

    @Test("Large factors pre-shrunk with a box average stay close to the filter alone", arguments: filtered)
    func boxReduction(quality: InterpolationQuality) {
        for photo in Self.smallPhotos {
            for (w, h) in [(9, 7), (90, 5), (5, 70), (14, 11)] {
                let fast = Resampler.resample(photo, width: w, height: h, quality: quality)
                let exact = Resampler.resample(
                    photo, width: w, height: h, quality: quality, parallelThreshold: .max, boxReduction: false)
                #expect(ImageComparison.psnr(fast, exact) > 35, "\(photo.format) \(w)x\(h)")
            }
        }
    }

    @Test("Box reduction averages exactly, including partial edge boxes")
    func boxAverages() {
        #expect(ResamplerBoxReduction.factor(source: 100, count: 40) == 1)
        #expect(ResamplerBoxReduction.factor(source: 1200, count: 100) == 4)
        #expect(ResamplerBoxReduction.factor(source: 1_000_000, count: 1) == ResamplerBoxReduction.maximumFactor)
        var image = Bitmap(width: 5, height: 3, format: .rgba8Premultiplied)!
        for y in 0..<3 { for x in 0..<5 { image.setPixel(x: x, y: y, SIMD4(UInt8(10 * x), UInt8(50 * y), 7, 255)) } }
        let reduced = ResamplerBoxReduction.reduce(image, factorX: 2, factorY: 2)
        #expect(reduced.width == 3 && reduced.height == 2)
        #expect(reduced.pixel(x: 0, y: 0) == SIMD4(5, 25, 7, 255))
        #expect(reduced.pixel(x: 2, y: 0) == SIMD4(40, 25, 7, 255))
        #expect(reduced.pixel(x: 1, y: 1) == SIMD4(25, 100, 7, 255))
        #expect(reduced.pixel(x: 2, y: 1) == SIMD4(40, 100, 7, 255))
        let gray = ResamplerBoxReduction.reduce(
            TestImages.solid(width: 7, height: 9, SIMD4(99, 99, 99, 255), format: .gray8), factorX: 3, factorY: 4)
        #expect(Self.allPixels(gray) { $0 == SIMD4(99, 99, 99, 255) } && gray.width == 3 && gray.height == 3)
    }

    @Test("Enlarging then shrinking back is close to the original", arguments: filtered)
    func roundTrip(quality: InterpolationQuality) {
        let photo = TestImages.photo(width: 120, height: 80)
        let big = Resampler.resample(photo, width: 360, height: 240, quality: quality)
        let back = Resampler.resample(big, width: 120, height: 80, quality: quality)
        #expect(ImageComparison.psnr(photo, back) > 25)
    }

    @Test("Nearest neighbour picks the pixel under each centre")
    func nearestPicksCentres() {
        var image = Bitmap(width: 9, height: 6, format: .rgba8Premultiplied)!
        for y in 0..<6 { for x in 0..<9 { image.setPixel(x: x, y: y, SIMD4(UInt8(x), UInt8(y), 0, 255)) } }
        let down = Resampler.resample(image, width: 3, height: 2, quality: .none)
        for y in 0..<2 {
            for x in 0..<3 { #expect(down.pixel(x: x, y: y) == SIMD4(UInt8(3 * x + 1), UInt8(3 * y + 1), 0, 255)) }
        }
        let up = Resampler.resample(image, width: 18, height: 12, quality: .none)
        for y in 0..<12 {
            for x in 0..<18 { #expect(up.pixel(x: x, y: y) == SIMD4(UInt8(x / 2), UInt8(y / 2), 0, 255)) }
        }
        let gray = Resampler.resample(image.converted(to: .gray8), width: 3, height: 2, quality: .none)
        #expect(gray.pixel(x: 1, y: 1) == image.converted(to: .gray8).pixel(x: 4, y: 4))
    }

    @Test("The pass order follows the cheaper axis")
    func passOrder() {
        let wide = (
            ResamplerWeights(filter: .lanczos3, sourceCount: 4000, count: 100),
            ResamplerWeights(filter: .lanczos3, sourceCount: 300, count: 290)
        )
        #expect(Resampler.horizontalFirstIsCheaper(columns: wide.0, lines: wide.1))
        let tall = (
            ResamplerWeights(filter: .lanczos3, sourceCount: 300, count: 290),
            ResamplerWeights(filter: .lanczos3, sourceCount: 4000, count: 100)
        )
        #expect(!Resampler.horizontalFirstIsCheaper(columns: tall.0, lines: tall.1))
    }

    @Test("Threaded passes give the same pixels as one thread", arguments: InterpolationQuality.allCases)
    func threaded(quality: InterpolationQuality) {
        for photo in Self.smallPhotos {
            let format = photo.format
            for (w, h) in [(41, 33), (160, 120), (90, 31), (17, 70), (9, 6)] {
                let single = Resampler.resample(
                    photo, width: w, height: h, quality: quality, parallelThreshold: .max, boxReduction: true)
                let threaded = Resampler.resample(
                    photo, width: w, height: h, quality: quality, parallelThreshold: 0, boxReduction: true)
                #expect(single == threaded, "\(format) \(w)x\(h)")
            }
        }
    }

    @Test("The SIMD passes match a plain scalar implementation of the same arithmetic", arguments: filtered)
    func matchesScalarReference(quality: InterpolationQuality) {
        let sources = [
            TestImages.photo(width: 61, height: 43), TestImages.translucent(width: 47, height: 52),
            TestImages.photo(width: 58, height: 40, format: .gray8), TestImages.photo(width: 5, height: 6),
        ]
        for source in sources {
            for (w, h) in [(20, 14), (133, 95), (source.width, 17), (29, source.height), (3, 2), (7, 9)]
            where (w, h) != (source.width, source.height) {
                let out = Resampler.resample(
                    source, width: w, height: h, quality: quality, parallelThreshold: .max, boxReduction: false)
                let reference = Self.scalarReference(
                    source, width: w, height: h,
                    filter: ResamplingFilter(
                        quality, sourceWidth: source.width, sourceHeight: source.height, width: w, height: h))
                #expect(out == reference, "\(source.format) \(source.width)x\(source.height) -> \(w)x\(h)")
            }
        }
    }

    // MARK: - Helpers

    /// A 90x70 photo in every format, made once.
    static let smallPhotos: [Bitmap] = {
        let photo = TestImages.photo(width: 90, height: 70)
        return [photo, photo.converted(to: .gray8), photo.converted(to: .rgba8Premultiplied)]
    }()

    /// A 320x240 photo in every format, made once.
    static let photos: [Bitmap] = {
        let photo = TestImages.photo(width: 320, height: 240)
        return [photo, photo.converted(to: .gray8), photo.converted(to: .rgba8Premultiplied)]
    }()

    /// The resampler's arithmetic written plainly: same weights, same pass order, same rounding.
    static func scalarReference(_ bitmap: Bitmap, width: Int, height: Int, filter: ResamplingFilter) -> Bitmap {
        let channels = bitmap.format.bytesPerPixel
        let columns = ResamplerWeights(filter: filter, sourceCount: bitmap.width, count: width)
        let lines = ResamplerWeights(filter: filter, sourceCount: bitmap.height, count: height)
        var pixels = [[[Int]]](repeating: [], count: bitmap.height)
        bitmap.withUnsafeBytes { bytes in
            for y in 0..<bitmap.height {
                pixels[y] = (0..<bitmap.width).map { x in
                    (0..<channels).map { Int(bytes[y * bitmap.bytesPerRow + x * channels + $0]) }
                }
            }
        }
        func apply(_ weights: ResamplerWeights, _ i: Int, _ sample: (Int) -> Int) -> Int {
            var sum = 1 << (ResamplerWeights.precision - 1)
            for t in 0..<Int(weights.tapCounts[i]) {
                sum += Int(weights.weights[i * weights.stride + t]) * sample(Int(weights.starts[i]) + t)
            }
            return min(255, max(0, sum >> ResamplerWeights.precision))
        }
        func horizontal(_ rows: [[[Int]]]) -> [[[Int]]] {
            width == bitmap.width
                ? rows
                : rows.map { row in
                    (0..<width).map { x in (0..<channels).map { c in apply(columns, x) { row[$0][c] } } }
                }
        }
        func vertical(_ rows: [[[Int]]]) -> [[[Int]]] {
            height == bitmap.height
                ? rows
                : (0..<height).map { y in
                    (0..<rows[0].count).map { x in (0..<channels).map { c in apply(lines, y) { rows[$0][x][c] } } }
                }
        }
        let horizontalFirst =
            width == bitmap.width || height == bitmap.height
            || Resampler.horizontalFirstIsCheaper(columns: columns, lines: lines)
        let result = horizontalFirst ? vertical(horizontal(pixels)) : horizontal(vertical(pixels))
        var out = Bitmap(width: width, height: height, format: bitmap.format)!
        let stride = out.bytesPerRow, format = bitmap.format
        out.withUnsafeMutableBytes { bytes in
            for y in 0..<height {
                for x in 0..<width {
                    var p = result[y][x]
                    if format == .rgba8Premultiplied { for c in 0..<3 { p[c] = min(p[c], p[3]) } }
                    if format == .rgbx8 { p[3] = 255 }
                    for c in 0..<channels { bytes[y * stride + x * channels + c] = UInt8(p[c]) }
                }
            }
        }
        return out
    }

    static func allPixels(_ bitmap: Bitmap, _ predicate: (SIMD4<UInt8>) -> Bool) -> Bool {
        for y in 0..<bitmap.height {
            for x in 0..<bitmap.width where !predicate(bitmap.pixel(x: x, y: y)) { return false }
        }
        return true
    }

    /// The exact average of every `factor` x `factor` block.
    static func boxDownscale(_ bitmap: Bitmap, factor: Int) -> Bitmap {
        let w = bitmap.width / factor, h = bitmap.height / factor
        var out = Bitmap(width: w, height: h, format: bitmap.format)!
        for y in 0..<h {
            for x in 0..<w {
                var sum = SIMD4<Int>(repeating: 0)
                for dy in 0..<factor {
                    for dx in 0..<factor {
                        sum &+= SIMD4<Int>(truncatingIfNeeded: bitmap.pixel(x: x * factor + dx, y: y * factor + dy))
                    }
                }
                let n = factor * factor
                let avg = (sum &+ n / 2) / n
                if bitmap.format == .gray8 {
                    let offset = y * out.bytesPerRow + x
                    out.withUnsafeMutableBytes { $0[offset] = UInt8(avg[0]) }
                } else {
                    out.setPixel(x: x, y: y, SIMD4<UInt8>(truncatingIfNeeded: avg))
                }
            }
        }
        return out
    }
}
