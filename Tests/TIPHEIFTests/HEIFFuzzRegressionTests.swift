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
            let context = decoder.makeContext(expectedLength: nil, options: ImageDecodingOptions())
            _ = try? context.append(data)
            #expect(throws: ImageDecodingError.self) {
                _ = try context.finalize()
                _ = try context.render(mode: .completeImage, targetDimensions: .zero, targetContentMode: .center)
            }
        }
    }
}
