import Foundation
import Testing
@testable import TIP
@testable import TIPJPEG2000

/// Inputs the fuzzer found (`scripts/fuzz jpeg2000`), replayed with the fuzzer's options.
@Suite("JPEG 2000 fuzz regressions")
struct JPEG2000FuzzRegressionTests {
    /// A damaged JP2 without EOC: OpenJPEG 2.5.0's lenient mode read past a heap buffer on it
    /// (OpenJPEG issue 1535). Decoded strictly on such versions, it is a typed error.
    @Test func nonStrictOverread() throws {
        let data = try JPEG2000TestFiles.data("fuzz/nonstrict-overread.jp2")
        let decoder = JPEG2000Codec().decoder
        for (size, mode) in [(CGSize.zero, ContentMode.center), (CGSize(width: 64, height: 64), .scaleAspectFit)] {
            let options = ImageDecodingOptions(targetDimensions: size, targetContentMode: mode, maximumPixelCount: 1 << 20)
            do {
                let image = try decoder.decode(data, options: options)
                #expect(image.isPartial && OpenJPEGVersion.allowsPartialDecoding)
            } catch {
                #expect(error == .truncatedData || { if case .corruptData = error { return true }; return false }(), "\(error)")
            }
        }
    }
}
