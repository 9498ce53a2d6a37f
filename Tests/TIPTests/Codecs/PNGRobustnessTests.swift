import Foundation
import Testing

@testable import TIP

@Suite("PNG robustness")
struct PNGRobustnessTests {
    let decoder = PNGDecoder()

    static func sample(interlaced: Bool) throws -> Data {
        var writer = PNGFlavour(colorType: 6, bitDepth: 8, withTransparency: false, interlaced: interlaced).writer(
            width: 24, height: 20)
        writer.idatChunkSize = 300
        return writer.encoded()
    }

    @Test("every prefix decodes to a partial image or a clean error", arguments: [false, true])
    func prefixes(_ interlaced: Bool) throws {
        let png = try Self.sample(interlaced: interlaced)
        var partials = 0
        for length in 0..<png.count {
            do {
                let image = try decoder.decode(png.prefix(length), options: ImageDecodingOptions())
                #expect(image.isPartial, "prefix \(length)")
                #expect(image.image.width == 24 && image.image.height == 20)
                partials += 1
            } catch {
                #expect(length < png.count / 2 || interlaced, "prefix \(length) of \(png.count) failed: \(error)")
            }
        }
        #expect(partials > png.count / 2)
        #expect(try decoder.decode(png, options: ImageDecodingOptions()).isPartial == false)
    }

    @Test("partial rows are the decoded rows, the rest transparent")
    func partialRows() throws {
        let writer = PNGFlavour(colorType: 6, bitDepth: 8, withTransparency: false, interlaced: false).writer(
            width: 24, height: 20)
        let png = writer.encoded()
        let image = try decoder.decode(png.prefix(png.count / 2), options: ImageDecodingOptions())
        #expect(image.isPartial)
        let bitmap = image.image
        #expect(bitmap.pixel(x: 3, y: 0) == writer.expectedPixel(x: 3, y: 0))
        #expect(bitmap.pixel(x: 3, y: 19) == SIMD4(0, 0, 0, 0))
        let opaque = PNGFlavour(colorType: 2, bitDepth: 8, withTransparency: false, interlaced: false).writer(
            width: 24, height: 20
        ).encoded()
        let flat = try decoder.decode(opaque.prefix(opaque.count / 2), options: ImageDecodingOptions())
        #expect(flat.image.format == .rgbx8)
        #expect(flat.image.pixel(x: 3, y: 19) == SIMD4(0, 0, 0, 255))
    }

    @Test("random bit flips never crash")
    func bitFlips() throws {
        let clean = try Self.sample(interlaced: false)
        let interlaced = try Self.sample(interlaced: true)
        var rng = SplitMix64(seed: 99)
        for round in 0..<400 {
            var bytes = [UInt8](round % 2 == 0 ? clean : interlaced)
            for _ in 0..<(1 + Int(rng.next() % 4)) {
                let index = 8 + Int(rng.next() % UInt64(bytes.count - 8))
                bytes[index] ^= UInt8(1 << (rng.next() % 8))
            }
            if let image = try? decoder.decode(Data(bytes), options: ImageDecodingOptions()) {
                #expect(image.image.width > 0)
            }
        }
    }

    @Test("a CRC error in the image data is an error or a partial image")
    func crcError() throws {
        var bytes = [UInt8](try Self.sample(interlaced: false))
        // The first IDAT's CRC sits right before the second IDAT's header.
        guard let range = Data(bytes).range(of: Data("IDAT".utf8)) else { Issue.record("no IDAT"); return }
        let crcIndex = range.lowerBound + 4 + 300
        bytes[crcIndex] ^= 0xFF
        do {
            let image = try decoder.decode(Data(bytes), options: ImageDecodingOptions())
            #expect(image.isPartial)
        } catch {
            #expect(error != .emptyData)
        }
    }

    @Test("hostile headers are refused before allocating")
    func hostileHeaders() throws {
        let png = try Self.sample(interlaced: false)
        let huge = PNGTestWriter.replacingDimensions(of: png, width: 60000, height: 60000)
        #expect(
            throws: ImageDecodingError.dimensionsTooLarge(
                width: 60000, height: 60000, maximumPixelCount: ImageDecodingOptions.defaultMaximumPixelCount)
        ) {
            try decoder.decode(huge, options: ImageDecodingOptions())
        }
        let context = decoder.makeContext(expectedLength: nil, options: ImageDecodingOptions())
        #expect(throws: ImageDecodingError.self) { try context.append(huge.prefix(40)) }
        // A tiny file claiming 30000x30000 against a small budget.
        let bomb = PNGTestWriter.replacingDimensions(of: png, width: 30000, height: 30000)
        #expect(
            throws: ImageDecodingError.dimensionsTooLarge(width: 30000, height: 30000, maximumPixelCount: 4_000_000)
        ) {
            try decoder.decode(bomb, options: ImageDecodingOptions(maximumPixelCount: 4_000_000))
        }
        let zero = PNGTestWriter.replacingDimensions(of: png, width: 0, height: 10)
        #expect(throws: ImageDecodingError.self) { try decoder.decode(zero, options: ImageDecodingOptions()) }
        let beyondSpec = PNGTestWriter.replacingDimensions(of: png, width: 0x8000_0000, height: 1)
        #expect(throws: ImageDecodingError.self) { try decoder.decode(beyondSpec, options: ImageDecodingOptions()) }
        // A sliver within the limit by width x height, but not as stored: every bitmap row takes at least 64 bytes,
        // so 1x99,000,000 would take 6.3 GB. It was decoded (19 s, 6.3 GB peak) and failed only at its end.
        let sliver = PNGTestWriter.replacingDimensions(of: png, width: 1, height: 99_000_000)
        #expect(
            throws: ImageDecodingError.dimensionsTooLarge(
                width: 1, height: 99_000_000, maximumPixelCount: ImageDecodingOptions.defaultMaximumPixelCount)
        ) {
            try decoder.decode(
                sliver,
                options: ImageDecodingOptions(
                    targetDimensions: CGSize(width: 100, height: 100), targetContentMode: .scaleAspectFit))
        }
        #expect(
            String(
                describing: ImageDecodingError.dimensionsTooLarge(
                    width: 1, height: 99_000_000, maximumPixelCount: 100_000_000)
            )
            .contains("as a bitmap holds it"))
        // Padded rows may hold up to twice the limit: 1 pixel wide (16 as stored), 12,500,000 rows at most.
        #expect(throws: Never.self) { try ImageDecodingOptions().checkDimensions(width: 1, height: 12_500_000) }
        #expect(throws: ImageDecodingError.self) {
            try ImageDecodingOptions().checkDimensions(width: 1, height: 12_500_001)
        }
        #expect(throws: Never.self) { try ImageDecodingOptions().checkDimensions(width: 10, height: 10_000_000) }
    }

    @Test("a highly compressible image within the budget but with lying dimensions is handled")
    func lyingDimensions() throws {
        // The header says 2000x2000, the data holds 24x20 worth of rows: a partial image, no hang.
        let png = PNGTestWriter.replacingDimensions(of: try Self.sample(interlaced: false), width: 2000, height: 2000)
        do {
            let image = try decoder.decode(png, options: ImageDecodingOptions())
            #expect(image.isPartial)
        } catch {
            #expect(error != .emptyData)
        }
    }

    @Test("empty, foreign and garbage data are clean errors")
    func garbage() {
        #expect(throws: ImageDecodingError.emptyData) { try decoder.decode(Data(), options: ImageDecodingOptions()) }
        #expect(throws: ImageDecodingError.self) {
            try decoder.decode(Data([0xFF, 0xD8, 0xFF, 0xE0, 1, 2, 3]), options: ImageDecodingOptions())
        }
        #expect(throws: ImageDecodingError.self) {
            try decoder.decode(Data(PNGChunkScanner.signature), options: ImageDecodingOptions())
        }
        var rng = SplitMix64(seed: 5)
        for _ in 0..<50 {
            let junk = Data(
                PNGChunkScanner.signature
                    + (0..<Int(rng.next() % 200)).map { _ in UInt8(truncatingIfNeeded: rng.next()) })
            _ = try? decoder.decode(junk, options: ImageDecodingOptions())
        }
    }
}
