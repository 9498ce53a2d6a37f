import Foundation
import Testing

@testable import TIP
@testable import TIPHEIF

/// Inputs the fuzzer found (`scripts/fuzz heif`), replayed with the fuzzer's options.
@Suite("HEIF fuzz regressions")
struct HEIFFuzzRegressionTests {
    /// A damaged AVIF after which dav1d (behind libheif 1.15) leaks 160 bytes: a library leak,
    /// suppressed for the fuzzers (Fuzz/lsan-suppressions.txt); the decode itself is a typed error.
    @Test(arguments: HEIFCodec.Format.allCases)
    func dav1dLeak(format: HEIFCodec.Format) throws {
        let data = try HEIFTestFiles.data("fuzz/dav1d-leak.avif")
        let options = ImageDecodingOptions(
            targetDimensions: CGSize(width: 64, height: 64), targetContentMode: .scaleAspectFit,
            maximumPixelCount: 1 << 20)
        do {
            _ = try HEIFCodec(format: format).decoder.decode(data, options: options)
        } catch {
            switch error {
            case .corruptData, .truncatedData, .unsupported, .unrecognizedFormat: break
            default: Issue.record("\(error)")
            }
        }
    }

    /// An `iloc` box claiming to end past its `meta` box (and past the file): our box walk read past
    /// the bytes (ASan in the fuzzer; a trap in debug builds). A child box must now end within its parent.
    @Test func ilocPastMeta() throws {
        let data = try HEIFTestFiles.data("fuzz/iloc-past-meta.heic")
        let container = data.withUnsafeBytes { HEIFContainer.scan($0) }
        #expect(container.hasMeta && container.requiredLength == nil)
        for format in HEIFCodec.Format.allCases {
            let decoder = HEIFCodec(format: format).decoder
            #expect(throws: ImageDecodingError.self) { try decoder.decode(data, options: ImageDecodingOptions()) }
            expectIncrementalFailure(decoder, data, options: ImageDecodingOptions())
        }
    }

    /// A 1,318-byte HEIC whose primary image (a grid) has as its alpha a grid whose tile is the primary:
    /// libheif 1.15 followed the references without end and allocated at every step (the fuzzer passed its
    /// 2 GB limit). The cycle is now found in the `iref` box and refused before libheif decodes anything.
    @Test func gridAlphaCycle() throws {
        let data = try HEIFTestFiles.data("fuzz/grid-alpha-cycle.heic")
        #expect(data.withUnsafeBytes { HEIFDerivedImages($0).hasReferenceCycle })
        let options = ImageDecodingOptions(
            targetDimensions: CGSize(width: 64, height: 64), targetContentMode: .scaleAspectFit,
            maximumPixelCount: 1 << 20)
        for format in HEIFCodec.Format.allCases {
            let decoder = HEIFCodec(format: format).decoder
            // The HEIC decoder reads the file and refuses the cycle; the AVIF one does not take a `heic` brand.
            #expect {
                try decoder.decode(data, options: options)
            } throws: { error in
                switch (format, error as? ImageDecodingError) {
                case (.heic, .corruptData?), (.avif, .unrecognizedFormat?): return true
                default: return false
                }
            }
            expectIncrementalFailure(decoder, data, options: options)
        }
    }

    /// The same file with its two grids declaring a 6144x10240 canvas (their `ispe` stays small): the canvas
    /// libheif would allocate is read from the grid's own data and refused as too large.
    @Test func gridCanvasPastTheLimit() throws {
        var data = try HEIFTestFiles.data("fuzz/grid-alpha-cycle.heic")
        // The idat payload at byte 95 holds the two grid descriptors (version, flags, rows - 1, columns - 1,
        // 16-bit width and height).
        let idat = 95
        #expect(Array(data[idat..<(idat + 16)]) == [0, 0, 0, 0, 0, 0x18, 0, 0x28, 0, 0, 0, 0, 0, 0x18, 0, 0x28])
        for grid in [idat, idat + 8] {
            data[grid + 4] = 0x18
            data[grid + 5] = 0x00
            data[grid + 6] = 0x28
            data[grid + 7] = 0x00
        }
        let sizes = data.withUnsafeBytes { HEIFDerivedImages($0).sizes }
        #expect(sizes.count == 2 && sizes.allSatisfy { $0.width == 6144 && $0.height == 10240 })
        let options = ImageDecodingOptions(maximumPixelCount: 1 << 20)
        #expect(throws: ImageDecodingError.dimensionsTooLarge(width: 6144, height: 10240, maximumPixelCount: 1 << 20)) {
            try HEIFCodec(format: .heic).decoder.decode(data, options: options)
        }
        // With the grids' own sizes, nothing is refused for size (the cycle is, as above).
        let original = try HEIFTestFiles.data("fuzz/grid-alpha-cycle.heic")
        #expect(original.withUnsafeBytes { HEIFDerivedImages($0).sizes }.allSatisfy { $0 == (24, 40) })
    }

    /// `data` fed whole to an incremental context of `decoder` ends in an ``ImageDecodingError`` (at the finish or
    /// the render).
    private func expectIncrementalFailure(
        _ decoder: any ImageDecoder, _ data: Data, options: ImageDecodingOptions,
        sourceLocation: SourceLocation = #_sourceLocation
    ) {
        let context = decoder.makeContext(expectedLength: nil, options: options)
        _ = try? context.append(data)
        #expect(throws: ImageDecodingError.self, sourceLocation: sourceLocation) {
            _ = try context.finalize()
            _ = try context.render(mode: .completeImage, targetDimensions: .zero, targetContentMode: .center)
        }
    }
}
