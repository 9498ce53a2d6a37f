import CTurboJPEG
import Foundation
import Testing

@testable import TIP

/// Findings of the differential fuzzer (FuzzJPEGDifferential, TIP's JPEG decode against TurboJPEG alone): both
/// tiny files decoded at 1/8 to 3x5, where TIP's pixels differed from TurboJPEG's.
@Suite("Fuzz regressions: TIP's JPEG pixels against TurboJPEG's")
struct FuzzRegressionJPEGDifferentialTests {
    /// A progressive file whose progression leaves some coefficients incomplete, with 61 stray bytes in its last
    /// luma scan. At 1/8 TIP used to leave out the luma AC scans and decode with libjpeg's smoothing off, while
    /// TurboJPEG, reading the whole file, smooths the incomplete chroma. TIP's own AC decoder now declines
    /// incomplete progressions, and libjpeg then decodes the whole file as TurboJPEG does.
    static let incompleteProgression = FuzzReplay.bytes(
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

    /// A sequential file with more scans than libjpeg expects, whose later segments redefine tables. TurboJPEG
    /// warns; TIP decoded it again on the same handle, which now held the later tables, and got other pixels
    /// than a decode on a new decoder. The retry now takes a new handle.
    static let laterTables = FuzzReplay.bytes(
        """
        /9j/4AAQSkZJRgABAQAAAQABAAD/2wBDAAcFBQYFBAcGBgYIBwcICxILCwoKCxYPEA0SGhYbGhkWGRgcICgiHB4mHhgZIzAkJior
        LS4tGyIyNTEsNSgsLSz/2wBDAQcICAsJCxULCxUsHRkdLCwsLCwsLCwsLCwsLCwsLCwsLCwsLCwsLCwsLCwsLCwsLCwsLCwsLCws
        LCwsLCwsLCz/wAARCAAoABgDASIAAhEBAxEB/8QAGgAAAgMBAQAAAAAAAAAAAAAAAAQCBQYDB//EABoBAAICAwAAAAAAAAAAAAAA
        AAQGAQIDBQf/2gAMAwEAAhADEAAAAfO9HK3zzAsgdpSfXfrz5g7gLdknw2SvYACuP//EABsQAQACAwEBAAAAAAAAAAAAAAIAAwQT
        FRIB/9oACAEBAAEFAq61a8fG+eQNsxsY+ANsA2wDbANsA2x3VCO6oR3VCAc2Ac2Ac2f/xAAjEQABBAECBwEAAAAAAAAAAAABAAID
        EQQSIQUTMUKBkcHw/9oACAEDAQE/AcaYarChnptXSwS/ah++rH5pZbQfS4e4yaNXfd+Oiw42zxCSTclf/8QAIBEAAQIGAwEAAAAA
        AAAAAAAAAgABAxESIzFBQnGBof/aAAgBAgEBPwFrfaKNLaNy0yuPhvicnOmrlFXn4gAYw1nlfws7AB8QAAIBAwUBAAAAAAAAAAAA
        AAARUQECExIhMVOBQf/aAAgBAQAGPwLTbyKnP2skIVOftZIRCIRCIRblu0RsymW7RGzLct2iNmdmTxHZk8R2ZPEf/8QAHRAAAQQD
        AQEAAAAAAAAAAAAAAAERkfAhMUFRof/aAAgBAQABPyFIJur4csQCuU4kgFcpXKVyv//Z
        """)

    @Test("An incomplete progression: TurboJPEG's pixels")
    func incompleteProgression() throws {
        let warning = try Self.expectTurboJPEGPixels(Self.incompleteProgression)
        #expect(warning?.contains("extraneous bytes") == true)
        #expect(JPEGProgressiveACTests.check(Self.incompleteProgression) == 1)  // libjpeg warns: not compared
    }

    @Test("A retry after a warning: TurboJPEG's pixels")
    func laterTables() throws {
        let warning = try Self.expectTurboJPEGPixels(Self.laterTables)
        #expect(warning?.contains("more than one scan") == true)
    }

    /// Decodes `data` through TIP to 3x5 (1/8 of its 24x40) and expects TurboJPEG's pixels at 1/8; returns
    /// TurboJPEG's warning.
    static func expectTurboJPEGPixels(_ data: Data) throws -> String? {
        let options = ImageDecodingOptions(
            targetDimensions: CGSize(width: 3, height: 5), targetContentMode: .scaleToFill)
        let image = try JPEGCodec().decoder.decode(data, options: options).image
        let reference = try #require(
            try JPEGProgressiveACTests.turboJPEGDecode(data, denominator: 8, acceptingWarnings: true))
        #expect(reference.bitmap.width == 3 && reference.bitmap.height == 5)
        #expect(image == reference.bitmap)
        return reference.warning
    }
}
