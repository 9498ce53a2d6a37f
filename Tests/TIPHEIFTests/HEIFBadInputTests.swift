import Foundation
import Testing

@testable import TIP
@testable import TIPHEIF

@Suite("HEIF bad input")
struct HEIFBadInputTests {
    func isTyped(_ error: ImageDecodingError) -> Bool {
        switch error {
        case .truncatedData, .corruptData, .unsupported, .unrecognizedFormat: return true
        default: return false
        }
    }

    @Test func emptyAndWrongType() throws {
        let decoder = HEIFCodec(format: .heic).decoder
        #expect(throws: ImageDecodingError.emptyData) { try decoder.decode(Data(), options: ImageDecodingOptions()) }
        let png = try HEIFTestFiles.data("photo.png")
        #expect(throws: ImageDecodingError.unrecognizedFormat) {
            try decoder.decode(png, options: ImageDecodingOptions())
        }
        let context = decoder.makeContext(expectedLength: nil, options: ImageDecodingOptions())
        #expect(throws: ImageDecodingError.emptyData) { try context.finalize() }
        #expect(throws: ImageDecodingError.unrecognizedFormat) { try context.append(png) }
    }

    @Test("Every prefix is a typed error, never a crash", arguments: ["photo.heic", "alpha.avif"])
    func everyPrefix(file: String) throws {
        let data = try HEIFTestFiles.data(file)
        let decoder = HEIFTestFiles.decoder(for: file)
        for length in stride(from: 1, to: data.count, by: 17) {
            do {
                _ = try decoder.decode(data.prefix(length), options: ImageDecodingOptions())
                Issue.record("length \(length) decoded")
            } catch {
                #expect(isTyped(error), "length \(length): \(error)")
            }
        }
    }

    @Test("Images over the pixel limit are refused from the header")
    func dimensionsTooLarge() throws {
        let data = try HEIFTestFiles.data("thumbnail.heic")
        let options = ImageDecodingOptions(maximumPixelCount: 100_000)
        #expect(throws: ImageDecodingError.dimensionsTooLarge(width: 640, height: 480, maximumPixelCount: 100_000)) {
            try HEIFCodec(format: .heic).decoder.decode(data, options: options)
        }
        let context = HEIFCodec(format: .heic).decoder.makeContext(expectedLength: nil, options: options)
        #expect(throws: ImageDecodingError.self) { _ = try context.append(data) }
    }

    @Test("An ispe box claiming a huge image is refused before any decoding", arguments: ["photo.heic", "photo.avif"])
    func hostileISPE(file: String) throws {
        var data = try HEIFTestFiles.data(file)
        let ispe = try #require(data.range(of: Data("ispe".utf8)))
        // ispe: size, "ispe", version/flags (4), width (4), height (4): from the type, width at +8, height at +12.
        for offset in [8, 12] {
            // Each side becomes 40,000 (0x00009C40).
            for (i, byte) in [UInt8(0x00), 0x00, 0x9C, 0x40].enumerated() { data[ispe.lowerBound + offset + i] = byte }
        }
        do {
            _ = try HEIFTestFiles.decoder(for: file).decode(data, options: ImageDecodingOptions())
            Issue.record("decoded a 40000x40000 claim")
        } catch {
            let refused: Bool
            switch error {
            case .dimensionsTooLarge: refused = true
            case .corruptData(let text):
                refused = text.contains("Security limit") || text.contains("security limit") || text.contains("exceeds")
            default: refused = false
            }
            #expect(refused, "\(String(describing: error))")
        }
    }

    @Test(
        "Damaged bytes give an image or a typed error, never a crash",
        arguments: ["photo.heic", "alpha.avif", "thumbnail.heic"])
    func corruptBytes(file: String) throws {
        let source = try HEIFTestFiles.data(file)
        let decoder = HEIFTestFiles.decoder(for: file)
        var rng = SeededGenerator(seed: 11)
        for _ in 0..<20 {
            var damaged = source
            for _ in 0..<Int.random(in: 1...6, using: &rng) {
                let index = Int.random(in: 16..<damaged.count, using: &rng)
                damaged[index] = UInt8.random(in: 0...255, using: &rng)
            }
            do {
                _ = try decoder.decode(
                    damaged,
                    options: ImageDecodingOptions(
                        targetDimensions: CGSize(width: 30, height: 30), targetContentMode: .scaleAspectFill))
            } catch {
                #expect(
                    isTyped(error)
                        || {
                            if case .dimensionsTooLarge = error { return true }; return false
                        }(), "\(error)")
            }
        }
    }
}

/// A small deterministic generator (SplitMix64) for damaged-input tests.
struct SeededGenerator: RandomNumberGenerator {
    private var state: UInt64
    init(seed: UInt64) { state = seed }
    mutating func next() -> UInt64 {
        state &+= 0x9E37_79B9_7F4A_7C15
        var z = state
        z = (z ^ (z >> 30)) &* 0xBF58_476D_1CE4_E5B9
        z = (z ^ (z >> 27)) &* 0x94D0_49BB_1331_11EB
        return z ^ (z >> 31)
    }
}
