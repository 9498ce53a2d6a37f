import CTurboJPEG
import Foundation
import Testing

@testable import TIP

/// A finding of the differential fuzzer (FuzzJPEGDifferential): a progressive file whose progression leaves
/// some coefficients incomplete, with 61 stray bytes in its last luma scan. At 1/8 TIP used to leave out the
/// luma AC scans and decode with libjpeg's smoothing off, while TurboJPEG, reading the whole file, smooths the
/// incomplete chroma: other pixels. TIP's own AC decoder now declines incomplete progressions, and libjpeg then
/// decodes the whole file as TurboJPEG does.
@Suite("Fuzz regression: an incomplete progression at 1/8")
struct FuzzRegressionProgressiveSmoothingTests {
    static let file = FuzzReplay.bytes(
        """
        /9j/4AAQSkZJRgABAQAAAQABAAD/2wBDAAcFBQYFBAcGBgYIBwcICxILCwoKCxYPEA0SGhYbGhkWGRgcICgiHB4mHhgZIzAkJior
        LS4tGyIyNTEsNSgsLSz/2wBDAQcICAsJCxULCxUsHRkdLCwsLCwsLCwsLCwsLCwsLCwsLCwsLCwsLCwsLCwsLCwsLCwsLCwsLCws
        LCwsLCwsLCz/wgARCAAoABgDASIAAhEBAxEB/8QAGgAAAgMBAQAAAAAAAAAAAAAAAAQCBQYDB//EABoBAAICAwAAAAAAAAAAAAAA
        AAQGAQIDBQf/2gAMAwEAAhADEAAAAfO9HK3zzAsgdpSfXfrz5g7gLdknw2SvYACuP//EABsQAQACAwEBAAAAAAAAAAAAAAIAAwQT
        FRIB/9oACAEBAAEFAq61a8fG+eQNsxsY+ANsA2wDbANsA2x3VCO6oR3VCAc2Ac2Ac2f/xAAjEQABBAECBwEAAAAAAAAAAAABAAID
        EQQSIQUTMUKBkcHw/9oACAEDAQE/AcaYarChnptXSwS/ah++rH5pZbQfS4e4yaNXfd+Oiw42zxCSTclf/8QAIBEAAQIGAwEAAAAA
        AAAAAAAAAgABAxESIzFBQnGBof/aAAgBAgEBPwFrfaKNLaNy0yuPhvicnOmrlOfiABjDWeV//8QAHxAAAgEDBQEAAAAAAAAAAAAA
        ABFRAQITEiExU4FB/9oACAEBAAY/AtNvIqc/ayQhU5+1khEIhEIhFuW7RGzKfAIQ35JRXqnGlIr1TjSkV6pxpSK9U40pFeqcaV1y
        x4mxQs112x4mxQs11yx4mxQs0ivs7p42pVfZ3TxtSK+zunjav//Z
        """)

    @Test("TIP's pixels at 1/8 are TurboJPEG's")
    func matchesTurboJPEG() throws {
        let data = Self.file
        let options = ImageDecodingOptions(
            targetDimensions: CGSize(width: 3, height: 5), targetContentMode: .scaleToFill)
        let image = try JPEGCodec().decoder.decode(data, options: options).image
        let reference = try #require(
            try JPEGProgressiveACTests.turboJPEGDecode(data, denominator: 8, acceptingWarnings: true))
        #expect(reference.bitmap.width == 3 && reference.bitmap.height == 5)
        #expect(image == reference.bitmap)
        #expect(JPEGProgressiveACTests.check(data) == 1)  // libjpeg warns: our coefficients are not compared
    }
}
