import Foundation
import Testing

@testable import TIP
@testable import TIPWebP

@Suite("WebP bad input")
struct WebPBadInputTests {
    let decoder = WebPCodec().decoder

    func decodeError(_ data: Data, options: ImageDecodingOptions = ImageDecodingOptions()) -> ImageDecodingError? {
        do {
            _ = try decoder.decode(data, options: options)
            return nil
        } catch {
            return error
        }
    }

    @Test func emptyData() {
        #expect(decodeError(Data()) == .emptyData)
        let context = decoder.makeContext(expectedLength: nil, options: ImageDecodingOptions())
        #expect(throws: ImageDecodingError.emptyData) { try context.finalize() }
    }

    @Test func wrongType() {
        let png = Data([0x89, 0x50, 0x4E, 0x47, 0x0D, 0x0A, 0x1A, 0x0A] + Array(repeating: UInt8(0), count: 40))
        #expect(decoder.detect(png, isComplete: true) == .noMatch)
        #expect(decoder.detect(Data("RIFF".utf8), isComplete: false) == .needMoreData)
        #expect(decoder.detect(Data("RIFF".utf8), isComplete: true) == .noMatch)
        #expect(decodeError(png) == .unrecognizedFormat)
        let wave = Data("RIFF\u{0}\u{0}\u{0}\u{0}WAVEfmt ".utf8)
        #expect(decodeError(wave) == .unrecognizedFormat)
        let context = decoder.makeContext(expectedLength: nil, options: ImageDecodingOptions())
        #expect(throws: ImageDecodingError.unrecognizedFormat) { try context.append(png) }
    }

    @Test func truncatedHeader() throws {
        let data = try WebPTestFiles.encode(WebPTestImages.photo(width: 40, height: 40), quality: 0.8)
        for length in [1, 11, 12, 20, 25] {
            let error = decodeError(data.prefix(length))
            #expect(
                error == .truncatedData || error == .unrecognizedFormat,
                "length \(length): \(String(describing: error))")
        }
        let context = decoder.makeContext(expectedLength: nil, options: ImageDecodingOptions())
        _ = try context.append(data.prefix(20))
        #expect(throws: ImageDecodingError.truncatedData) { try context.finalize() }
        #expect(try context.render(mode: .anyProgress, targetDimensions: .zero, targetContentMode: .center) == nil)
    }

    @Test(arguments: [Float(0.8), 1])
    func truncatedBodyIsPartialOrTyped(quality: Float) throws {
        let data = try WebPTestFiles.encode(WebPTestImages.photo(width: 96, height: 160), quality: quality)
        var partials: [Double] = []
        for fraction in [0.1, 0.3, 0.5, 0.7, 0.9, 0.99] {
            let prefix = data.prefix(Int(Double(data.count) * fraction))
            do {
                let image = try decoder.decode(prefix, options: ImageDecodingOptions())
                partials.append(fraction)
                #expect(image.isPartial)
                #expect(image.image.width == 96 && image.image.height == 160)
            } catch {
                #expect(
                    error == .truncatedData
                        || {
                            if case .corruptData = error { return true }; return false
                        }())
            }
        }
        // Most of the image is there: the rows before the cut come back.
        #expect(partials.contains(0.9) && partials.contains(0.99), "partial at \(partials)")
    }

    @Test func everyPrefixOfAnAnimationIsPartialOrTyped() throws {
        let data = try WebPAnimationTests.sampleAnimation()
        var lastFrameCount = 0
        for length in 1..<data.count {
            do {
                let image = try decoder.decode(data.prefix(length), options: ImageDecodingOptions())
                #expect(image.isPartial)
                #expect(image.frameCount >= lastFrameCount)
                lastFrameCount = image.frameCount
            } catch {
                #expect(error == .truncatedData || error == .unrecognizedFormat, "length \(length): \(error)")
            }
        }
        #expect(lastFrameCount == 2)
    }

    @Test func corruptBytesNeverCrash() throws {
        let sources = [
            try WebPTestFiles.encode(WebPTestImages.photo(width: 64, height: 48), quality: 0.7),
            try WebPTestFiles.encode(WebPTestImages.translucent(width: 64, height: 48), quality: 1),
            try WebPAnimationTests.sampleAnimation(),
        ]
        var rng = SeededGenerator(seed: 42)
        for source in sources {
            for _ in 0..<60 {
                var damaged = source
                for _ in 0..<Int.random(in: 1...8, using: &rng) {
                    let index = Int.random(in: 12..<damaged.count, using: &rng)
                    damaged[index] = UInt8.random(in: 0...255, using: &rng)
                }
                _ = try? decoder.decode(damaged, options: ImageDecodingOptions())
                let context = decoder.makeContext(expectedLength: nil, options: ImageDecodingOptions())
                if (try? context.append(damaged)) != nil {
                    _ = try? context.finalize()
                    _ = try? context.render(mode: .anyProgress, targetDimensions: .zero, targetContentMode: .center)
                }
            }
        }
        // Garbage after a valid signature.
        var garbage = Data("RIFF".utf8) + Data([0x40, 0, 0, 0]) + Data("WEBPVP8 ".utf8)
        garbage.append(Data((0..<60).map { UInt8(truncatingIfNeeded: $0 &* 37) }))
        #expect(decodeError(garbage) != nil)
    }

    @Test func hostileDimensionsAreRefusedBeforeAllocation() throws {
        let files = [
            ("VP8", try WebPTestFiles.encode(WebPTestImages.photo(width: 32, height: 32), quality: 0.8)),
            ("VP8L", try WebPTestFiles.encode(WebPTestImages.photo(width: 32, height: 32), quality: 1)),
            ("VP8X", try WebPAnimationTests.sampleAnimation()),
        ]
        for (name, file) in files {
            let hostile = WebPTestFiles.withHostileDimensions(file)
            let expected = ImageDecodingError.dimensionsTooLarge(
                width: 16383, height: 16383, maximumPixelCount: ImageDecodingOptions.defaultMaximumPixelCount)
            #expect(decodeError(hostile) == expected, "\(name)")
            let context = decoder.makeContext(expectedLength: nil, options: ImageDecodingOptions())
            #expect(throws: expected, "\(name)") { try context.append(hostile) }
        }
        // A lower limit refuses a normal image too.
        let small = try WebPTestFiles.encode(WebPTestImages.photo(width: 32, height: 32), quality: 0.8)
        #expect(
            decodeError(small, options: ImageDecodingOptions(maximumPixelCount: 1000))
                == .dimensionsTooLarge(width: 32, height: 32, maximumPixelCount: 1000))
    }
}
