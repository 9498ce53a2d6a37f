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
            let options = ImageDecodingOptions(
                targetDimensions: size, targetContentMode: mode, maximumPixelCount: 1 << 20)
            do {
                let image = try decoder.decode(data, options: options)
                #expect(image.isPartial && OpenJPEGVersion.allowsPartialDecoding)
            } catch {
                #expect(
                    error == .truncatedData
                        || {
                            if case .corruptData = error { return true }; return false
                        }(), "\(error)")
            }
        }
    }

    /// A codestream whose SIZ claims 96x458752 pixels in 96x64 tiles (7,168 tiles): OpenJPEG allocated
    /// about 450 MB of tile structures while reading the header, before our dimension check ran (a
    /// timeout for the fuzzer). The SIZ marker is now checked first.
    @Test func sizCheckedBeforeOpenJPEGReadsTheHeader() throws {
        let data = try JPEG2000TestFiles.data("fuzz/tiny-tiles.j2k")
        let options = ImageDecodingOptions(maximumPixelCount: 1 << 20)
        #expect(throws: ImageDecodingError.dimensionsTooLarge(width: 96, height: 458_752, maximumPixelCount: 1 << 20)) {
            try JPEG2000Codec().decoder.decode(data, options: options)
        }
        let context = JPEG2000Codec().decoder.makeContext(expectedLength: nil, options: options)
        #expect(throws: ImageDecodingError.dimensionsTooLarge(width: 96, height: 458_752, maximumPixelCount: 1 << 20)) {
            _ = try context.append(data)
        }
        // Within the pixel limit, too many tiles for the area is refused as well.
        var size = try #require(data.withUnsafeBytes { JPEG2000Size($0, codestreamStart: 0, limit: $0.count) })
        #expect(size.tileCount == 7_168 && size.componentCount == 3)
        var tiny = data
        tiny.replaceSubrange(8..<16, with: [0, 0, 0x01, 0, 0, 0, 0x01, 0])  // 256x256 image
        tiny.replaceSubrange(24..<32, with: [0, 0, 0, 0x04, 0, 0, 0, 0x04])  // 4x4 tiles: 4,096 of them
        size = try #require(tiny.withUnsafeBytes { JPEG2000Size($0, codestreamStart: 0, limit: $0.count) })
        #expect(size.tileCount == 4_096 && size.maximumTileCount == 64)
        #expect(throws: ImageDecodingError.unsupported("JPEG 2000 with 4096 tiles for 256x256 pixels")) {
            try JPEG2000Codec().decoder.decode(tiny, options: ImageDecodingOptions())
        }
        // 2^32-1 pixels a side in 1x1 tiles: the tile count saturates instead of overflowing.
        var huge = data
        huge.replaceSubrange(8..<16, with: [0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF])
        huge.replaceSubrange(24..<32, with: [0, 0, 0, 1, 0, 0, 0, 1])
        size = try #require(huge.withUnsafeBytes { JPEG2000Size($0, codestreamStart: 0, limit: $0.count) })
        #expect(size.tileCount == Int.max)
        #expect(throws: ImageDecodingError.self) {
            try JPEG2000Codec().decoder.decode(huge, options: ImageDecodingOptions(maximumPixelCount: .max))
        }
    }
}
