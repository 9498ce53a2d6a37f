import CTurboJPEG
import Foundation
import Testing

@testable import TIP

@Suite("JPEGCodec")
struct JPEGCodecTests {
    let decoder = JPEGCodec().decoder

    @Test func codecProperties() {
        let codec = JPEGCodec()
        #expect(codec.decoder.supportsProgressiveDecoding)
        #expect(!codec.isAnimated)
        #expect(codec.properties == [.decoding, .encoding, .progressive])
    }

    @Test func detection() {
        #expect(decoder.detect(Data([0xFF, 0xD8, 0xFF, 0xE0]), isComplete: false) == .match)
        #expect(decoder.detect(Data([0xFF, 0xD8]), isComplete: false) == .needMoreData)
        #expect(decoder.detect(Data([0x89, 0x50]), isComplete: false) == .noMatch)
    }

    @Test func qualityMapping() {
        #expect(JPEGQualityMapping.libjpegQuality(forTIPQuality: 1) == 100)
        #expect(JPEGQualityMapping.libjpegQuality(forTIPQuality: 0.999) == 100)
        #expect(JPEGQualityMapping.libjpegQuality(forTIPQuality: 0.83) == 95)
        #expect(JPEGQualityMapping.libjpegQuality(forTIPQuality: 0.575) == 85)
        #expect(JPEGQualityMapping.libjpegQuality(forTIPQuality: 0.465) == 75)
        #expect(JPEGQualityMapping.libjpegQuality(forTIPQuality: 0.4) == 65)
        #expect(JPEGQualityMapping.libjpegQuality(forTIPQuality: 0.2) == 33)
        #expect(JPEGQualityMapping.libjpegQuality(forTIPQuality: 0) == 1)
        #expect(JPEGQualityMapping.libjpegQuality(forTIPQuality: -3) == 1)
        #expect(JPEGQualityMapping.libjpegQuality(forTIPQuality: 0.7) == 90)
        // Monotonic.
        var last = 0
        for i in 0...1000 {
            let q = JPEGQualityMapping.libjpegQuality(forTIPQuality: Float(i) / 1000)
            #expect(q >= last)
            last = q
        }
    }

    @Test func encoderQualityAffectsSize() throws {
        let source = TestImages.photo(width: 96, height: 64)
        let encoder = JPEGCodec().encoder!
        let low = try encoder.encode(ImageContainer(image: source), options: [], quality: 0.2)
        let high = try encoder.encode(ImageContainer(image: source), options: [], quality: 0.95)
        #expect(low.count < high.count)
        let lowPSNR = ImageComparison.psnr(try decoder.decode(low, options: .init()).image, source)
        let highPSNR = ImageComparison.psnr(try decoder.decode(high, options: .init()).image, source)
        #expect(lowPSNR < highPSNR)
        #expect(highPSNR > 34)
    }

    @Test(arguments: [(1, 1), (17, 9), (64, 48), (641, 479)])
    func roundTrip(width: Int, height: Int) throws {
        for (progressive, gray) in [(false, false), (true, false), (false, true), (true, true)] {
            let (source, data) = try JPEGTestSupport.jpeg(
                width: width, height: height, progressive: progressive, gray: gray)
            #expect(JPEGTestSupport.scanCount(data) > (progressive ? 1 : 0))
            let image = try decoder.decode(data, options: .init())
            #expect(!image.isPartial)
            #expect(image.image.width == width && image.image.height == height)
            #expect(image.image.format == (gray ? .gray8 : .rgbx8))
            if width > 1 {
                #expect(ImageComparison.psnr(image.image, source) > 30, "progressive \(progressive) gray \(gray)")
            }
        }
    }

    @Test func handleReuseAcrossModesAndThreads() throws {
        // libjpeg-turbo 2.1 keeps the progressive script on a compress handle: a baseline encode
        // after a progressive one on the same handle must still be a valid baseline JPEG.
        for (progressive, gray) in [(true, false), (false, false), (true, true), (false, true), (false, false)] {
            let (source, data) = try JPEGTestSupport.jpeg(width: 64, height: 48, progressive: progressive, gray: gray)
            #expect((JPEGTestSupport.scanCount(data) > 1) == progressive)
            #expect(ImageComparison.psnr(try decoder.decode(data, options: .init()).image, source) > 30)
        }
        // A failed header parse must not poison the pooled decompressor.
        let (_, good) = try JPEGTestSupport.jpeg(width: 32, height: 24)
        for length in [3, 10, 40, 100] { _ = try? decoder.decode(good.prefix(length), options: .init()) }
        #expect(try decoder.decode(good, options: .init()).image.width == 32)
        let failures = Locked(0)
        DispatchQueue.concurrentPerform(iterations: 32) { i in
            do {
                let (_, data) = try JPEGTestSupport.jpeg(
                    width: 40 + i, height: 30, progressive: i % 2 == 0, gray: i % 3 == 0)
                let image = try decoder.decode(i % 4 == 0 ? data.prefix(data.count / 2) : data, options: .init())
                if image.image.width != 40 + i { failures.withLock { $0 += 1 } }
            } catch {
                failures.withLock { $0 += 1 }
            }
        }
        #expect(failures.withLock { $0 } == 0)
    }

    @Test func cmykJPEGDecodesToRGB() throws {
        // Adobe-style inverted CMYK samples (255 = no ink): C=255, M=0, Y=255, K=255 is magenta.
        let width = 24, height = 16
        var cmyk = [UInt8](repeating: 0, count: width * height * 4)
        for i in 0..<(width * height) {
            cmyk[i * 4] = 255; cmyk[i * 4 + 1] = 0; cmyk[i * 4 + 2] = 255; cmyk[i * 4 + 3] = 255
        }
        let handle = try #require(tjInitCompress())
        defer { tjDestroy(handle) }
        var buffer: UnsafeMutablePointer<UInt8>? = nil
        var size: UInt = 0
        let status = tjCompress2(
            handle, cmyk, Int32(width), 0, Int32(height), Int32(TJPF_CMYK.rawValue), &buffer, &size,
            Int32(TJSAMP_444.rawValue), 95, 0)
        #expect(status == 0)
        let data = Data(bytes: try #require(buffer), count: Int(size))
        tjFree(buffer)
        let image = try decoder.decode(data, options: .init()).image
        #expect(image.format == .rgbx8)
        let p = image.pixel(x: 5, y: 5)
        #expect(p[0] > 235 && p[1] < 20 && p[2] > 235, "\(p)")
        let context = try JPEGTestSupport.feed(data, chunkSizes: [100])
        let incremental = try #require(
            try context.render(mode: .completeImage, targetDimensions: .zero, targetContentMode: .center))
        #expect(incremental.image == image)
    }

    @Test func grayscaleOptionAndAlphaFlattening() throws {
        let encoder = JPEGCodec().encoder!
        let color = TestImages.photo(width: 40, height: 30)
        let gray = try decoder.decode(
            try encoder.encode(ImageContainer(image: color), options: [.grayscale], quality: 0.9), options: .init())
        #expect(gray.image.format == .gray8)
        // Premultiplied translucent pixels flatten onto black.
        let translucent = TestImages.solid(width: 16, height: 16, SIMD4(100, 50, 20, 128))
        let flat = try decoder.decode(
            try encoder.encode(ImageContainer(image: translucent), options: [], quality: 0.95), options: .init())
        let p = flat.image.pixel(x: 8, y: 8)
        #expect(abs(Int(p[0]) - 100) <= 3 && abs(Int(p[1]) - 50) <= 3 && abs(Int(p[2]) - 20) <= 3 && p[3] == 255)
    }

    @Test func decodeToTargetsInAllModes() throws {
        let (_, data) = try JPEGTestSupport.jpeg(width: 641, height: 479)
        let full = try decoder.decode(data, options: .init()).image
        let targets = [
            CGSize(width: 100, height: 100), CGSize(width: 320, height: 100), CGSize(width: 50, height: 400),
            CGSize(width: 700, height: 700),
        ]
        for target in targets {
            for mode in ContentMode.allCases {
                let options = ImageDecodingOptions(targetDimensions: target, targetContentMode: mode)
                let image = try decoder.decode(data, options: options).image
                let expected = TargetSizing.pixelDimensions(
                    width: 641, height: 479, targetDimensions: target, contentMode: mode)
                #expect(image.width == expected.width && image.height == expected.height, "\(target) \(mode)")
                let reference = Resampler.resample(full, width: expected.width, height: expected.height)
                #expect(ImageComparison.psnr(image, reference) > 22, "\(target) \(mode)")
            }
        }
    }

    @Test func dctScaleChoice() {
        let s = JPEGScaleSelection(
            width: 1880, height: 1253, orientation: .up,
            targetDimensions: CGSize(width: 400, height: 400), contentMode: .scaleAspectFit)
        #expect(s.numerator * 4 == s.denominator)
        #expect(s.scaledWidth == 470 && s.scaledHeight == 314)
        #expect(s.finalWidth == 400 && s.finalHeight == 267)
        let none = JPEGScaleSelection(
            width: 1880, height: 1253, orientation: .up, targetDimensions: .zero, contentMode: .scaleAspectFit)
        #expect(none.numerator == none.denominator)
        // Rotated: the stored height becomes the display width.
        let rotated = JPEGScaleSelection(
            width: 1253, height: 1880, orientation: .right,
            targetDimensions: CGSize(width: 400, height: 400), contentMode: .scaleAspectFit)
        #expect(rotated.scaledWidth == 314 && rotated.scaledHeight == 470)
        #expect(rotated.finalWidth == 400 && rotated.finalHeight == 267)
        // Only 1/8, 1/4, 1/2 and 1/1: 1280 px to 450 decodes at 1/2 (640), not 3/8 (480); to 1000 at 1/1,
        // not 7/8 (1120).
        #expect(JPEGScaleSelection.factors.map { $0.num * 8 / $0.denom } == [8, 4, 2, 1])
        #expect(JPEGScaleSelection.isFast((2, 8)) && !JPEGScaleSelection.isFast((3, 8)))
        #expect(!JPEGScaleSelection.isFast((6, 8)) && !JPEGScaleSelection.isFast((2, 1)))
        for (target, expected) in [(450, 640), (1000, 1280), (320, 320), (319, 320), (160, 160), (161, 320)] {
            let square = JPEGScaleSelection(
                width: 1280, height: 1280, orientation: .up,
                targetDimensions: CGSize(width: target, height: target), contentMode: .scaleAspectFit)
            #expect(square.scaledWidth == expected && square.finalWidth == target, "\(target)")
        }
        // Tiny target: 1/8 is the limit.
        let tiny = JPEGScaleSelection(
            width: 1880, height: 1253, orientation: .up, targetDimensions: CGSize(width: 10, height: 10),
            contentMode: .scaleAspectFill)
        #expect(tiny.numerator * 8 == tiny.denominator)
    }

    @Test func errors() throws {
        #expect(throws: ImageDecodingError.emptyData) { try decoder.decode(Data(), options: .init()) }
        #expect(throws: ImageDecodingError.unrecognizedFormat) {
            try decoder.decode(Data([0x89, 0x50, 0x4E, 0x47]), options: .init())
        }
        #expect(throws: ImageDecodingError.truncatedData) {
            try decoder.decode(Data([0xFF, 0xD8, 0xFF]), options: .init())
        }
        let (_, data) = try JPEGTestSupport.jpeg(width: 32, height: 32)
        let hostile = JPEGTestSupport.patchingSOF(data, width: 60000, height: 60000)
        #expect(
            throws: ImageDecodingError.dimensionsTooLarge(
                width: 60000, height: 60000, maximumPixelCount: ImageDecodingOptions.defaultMaximumPixelCount)
        ) {
            try decoder.decode(hostile, options: .init())
        }
        let context = decoder.makeContext(expectedLength: nil, options: .init())
        #expect(
            throws: ImageDecodingError.dimensionsTooLarge(
                width: 60000, height: 60000, maximumPixelCount: ImageDecodingOptions.defaultMaximumPixelCount)
        ) {
            _ = try context.append(hostile)
        }
        let small = ImageDecodingOptions(maximumPixelCount: 100)
        #expect(throws: ImageDecodingError.dimensionsTooLarge(width: 32, height: 32, maximumPixelCount: 100)) {
            try decoder.decode(data, options: small)
        }
    }

    @Test func everyPrefixDecodes() throws {
        for progressive in [false, true] {
            let (_, data) = try JPEGTestSupport.jpeg(width: 24, height: 16, progressive: progressive)
            for length in 0..<data.count {
                do {
                    let image = try decoder.decode(data.prefix(length), options: .init())
                    #expect(image.isPartial)
                    #expect(image.image.width == 24 && image.image.height == 16)
                } catch {
                    // A clean typed error is fine.
                }
            }
            #expect(!(try decoder.decode(data, options: .init())).isPartial)
        }
    }

    @Test func randomBitFlipsDoNotCrash() throws {
        var rng = SplitMix64(seed: 42)
        for progressive in [false, true] {
            let (_, data) = try JPEGTestSupport.jpeg(width: 48, height: 40, progressive: progressive)
            for _ in 0..<150 {
                var bytes = [UInt8](data)
                for _ in 0..<(1 + Int(rng.next() % 4)) {
                    let index = Int(rng.next() % UInt64(bytes.count))
                    bytes[index] ^= UInt8(1 << (rng.next() % 8))
                }
                let corrupt = Data(bytes)
                if let image = try? decoder.decode(
                    corrupt,
                    options: .init(targetDimensions: CGSize(width: 20, height: 20), targetContentMode: .scaleAspectFit))
                {
                    #expect(image.image.width > 0)
                }
                if let context = try? JPEGTestSupport.feed(corrupt, chunkSizes: [100, 37, 500]) {
                    _ = try? context.render(mode: .anyProgress, targetDimensions: .zero, targetContentMode: .center)
                }
            }
        }
    }

    @Test func exifOrientations() throws {
        // Quadrants: red, green / blue, white.
        var source = Bitmap(width: 48, height: 32, format: .rgbx8)!
        for y in 0..<32 {
            for x in 0..<48 {
                let color: SIMD4<UInt8> =
                    y < 16
                    ? (x < 24 ? [255, 0, 0, 255] : [0, 255, 0, 255])
                    : (x < 24 ? [0, 0, 255, 255] : [255, 255, 255, 255])
                source.setPixel(x: x, y: y, color)
            }
        }
        let base = try JPEGCodec().encoder!.encode(ImageContainer(image: source), options: [], quality: 0.95)
        let red: SIMD4<UInt8> = [255, 0, 0, 255], green: SIMD4<UInt8> = [0, 255, 0, 255]
        let blue: SIMD4<UInt8> = [0, 0, 255, 255], white: SIMD4<UInt8> = [255, 255, 255, 255]
        // (top-left, top-right) as displayed for orientations 1...8.
        let expected: [(SIMD4<UInt8>, SIMD4<UInt8>)] = [
            (red, green), (green, red), (white, blue), (blue, white),
            (red, blue), (blue, red), (white, green), (green, white),
        ]
        func close(_ a: SIMD4<UInt8>, _ b: SIMD4<UInt8>) -> Bool {
            (0..<3).allSatisfy { abs(Int(a[$0]) - Int(b[$0])) <= 40 }
        }
        for orientation in 1...8 {
            for bigEndian in [true, false] {
                let data = JPEGTestSupport.splice(
                    JPEGTestSupport.exifSegment(orientation: orientation, bigEndian: bigEndian), into: base)
                let swaps = orientation >= 5
                for target in [CGSize.zero, CGSize(width: 24, height: 24)] {
                    let options = ImageDecodingOptions(targetDimensions: target, targetContentMode: .scaleAspectFit)
                    let image = try decoder.decode(data, options: options).image
                    let displayW = swaps ? 32 : 48, displayH = swaps ? 48 : 32
                    let dims = TargetSizing.pixelDimensions(
                        width: displayW, height: displayH, targetDimensions: target, contentMode: .scaleAspectFit)
                    #expect(image.width == dims.width && image.height == dims.height, "orientation \(orientation)")
                    #expect(
                        close(image.pixel(x: 1, y: 1), expected[orientation - 1].0), "orientation \(orientation) TL")
                    #expect(
                        close(image.pixel(x: image.width - 2, y: 1), expected[orientation - 1].1),
                        "orientation \(orientation) TR")
                }
                // The incremental context orients too.
                let context = try JPEGTestSupport.feed(data, chunkSizes: [50])
                #expect(context.dimensions == CGSize(width: swaps ? 32 : 48, height: swaps ? 48 : 32))
                let rendered = try #require(
                    try context.render(mode: .completeImage, targetDimensions: .zero, targetContentMode: .center))
                #expect(rendered.image == (try decoder.decode(data, options: .init())).image)
            }
        }
    }

    @Test func exifParserIsBoundsChecked() {
        let segment = JPEGTestSupport.exifSegment(orientation: 6, bigEndian: false)
        let tiff = Array(segment.dropFirst(10))
        #expect(tiff.withUnsafeBytes { EXIFOrientationParser.orientation(fromTIFF: $0) } == .right)
        // Every truncation and random garbage: no crash, never an invalid value.
        for length in 0..<tiff.count {
            let cut = Array(tiff.prefix(length))
            // The orientation value ends at byte 32 (header 8, count 2, two 12-byte entries minus padding).
            #expect(
                cut.withUnsafeBytes { EXIFOrientationParser.orientation(fromTIFF: $0) } == (length >= 32 ? .right : nil)
            )
        }
        var rng = SplitMix64(seed: 9)
        for _ in 0..<2000 {
            var bytes = tiff
            for _ in 0..<3 { bytes[Int(rng.next() % UInt64(bytes.count))] = UInt8(truncatingIfNeeded: rng.next()) }
            _ = bytes.withUnsafeBytes { EXIFOrientationParser.orientation(fromTIFF: $0) }
            let jpeg: [UInt8] = [0xFF, 0xD8] + bytes.prefix(Int(rng.next() % UInt64(bytes.count)))
            _ = jpeg.withUnsafeBytes { JPEGMarkerScanner($0).orientation(in: $0) }
        }
        // Out-of-range orientation values are ignored.
        let bad = Array(JPEGTestSupport.exifSegment(orientation: 9, bigEndian: true).dropFirst(10))
        #expect(bad.withUnsafeBytes { EXIFOrientationParser.orientation(fromTIFF: $0) } == nil)
    }

    @Test func fixtures() throws {
        guard Fixtures.available else {
            print(Fixtures.skipMessage)
            return
        }
        for name in ["carnival.jpg", "carnival.pjpg", "pink_outfit.jpg", "twitterfied.jpg", "twitterfied.pjpg"] {
            guard let data = Fixtures.data(name) else { continue }
            let full = try decoder.decode(data, options: .init())
            #expect(!full.isPartial, "\(name)")
            #expect(full.image.width > 0)
            let target = CGSize(width: 400, height: 400)
            let thumb = try decoder.decode(
                data, options: .init(targetDimensions: target, targetContentMode: .scaleAspectFit))
            let expected = TargetSizing.pixelDimensions(
                width: full.image.width, height: full.image.height, targetDimensions: target,
                contentMode: .scaleAspectFit)
            #expect(thumb.image.width == expected.width && thumb.image.height == expected.height, "\(name)")
            let reference = Resampler.resample(full.image, width: expected.width, height: expected.height)
            // DCT scaling at 1/4 differs from a Lanczos shrink of the full image by design
            #expect(ImageComparison.psnr(thumb.image, reference) > 27, "\(name)")
            if name.hasPrefix("carnival") {
                #expect(full.image.width == 1880 && full.image.height == 1253)
            }
        }
    }
}
