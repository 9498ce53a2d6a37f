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
        let options = ImageDecodingOptions(targetDimensions: CGSize(width: 64, height: 64), targetContentMode: .scaleAspectFit, maximumPixelCount: 1 << 20)
        do {
            _ = try HEIFCodec(format: format).decoder.decode(data, options: options)
        } catch {
            switch error {
            case .corruptData, .truncatedData, .unsupported, .unrecognizedFormat: break
            default: Issue.record("\(error)")
            }
        }
    }
}
