import CTurboJPEG
import Foundation
import Testing

@testable import TIP

/// Findings of the differential fuzzer (FuzzJPEGDifferential, TIP's JPEG decode against TurboJPEG alone): tiny
/// files where TIP's pixels differed from TurboJPEG's.
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

    /// A progressive file whose last luma AC scan uses an over-subscribed Huffman table (TurboJPEG: "Bogus
    /// Huffman table definition", a fatal error that TurboJPEG reports with the code of the warning before it).
    /// At 1/8 TIP leaves the luma AC scans out, so its own decoder never checked that table, and TIP returned the
    /// image of the other scans as complete. The table is now checked for left-out scans too; the file goes to
    /// libjpeg, which fails on it, and the image, all of it left gray, is partial.
    static let bogusTable = FuzzReplay.bytes(
        """
        /9j/4AAQSkZJRgABAQAAAQABAAD/2wBDAAcFBQYFBAcGBgYIBwcICxILCwoKCxYPEA0SGhYbGhkWGRgcICgiHB4mHhgZIzEkJior
        LS4tGyIyNTEsNSgsLSz/2wBDAQcICAsJCxULCxUsHRkdLCwsLCwsLCwsLCwsLCwsLCwsLCwsLCwsLCwsLCwsLCwsLCwsLCwsLCws
        LCwsLCwsLCz/wgARCAAoABgDASIAAhEBAxEB/8QAGgAAAgMBAQAAAAAAAAAAAAAAAAQCBQYDB//EABoBAAICAwAAAAAAAAAAAAAA
        AAQGAQIDBQf/2gAMAwEAAhADEAAAAfO9HK3zzAsgdpSfXfrz5g7gLdknw2SvYACuP//EABsQAQACAwEBAAAAAAAAAAAAAAIAAwQT
        FRIB/9oACAEBAAEFAq61a8fG+eQNsxsY+ANsA2wDbANsA2x3VCO6oR3VCAc2Ac2Ac2f/xAAjEQABBAECBwEAAAAAAAAAAAABAAID
        EQQSIQUTMUKBkcHw/9oACAEDAQE/AcaYarChmptXSwS/ah++rH5pZbQfS4e4yaNXfd+Oiw42zxCSTclf/8QAIBEAAQIGAwEAAAAA
        AAAAAAAAAgABAxESIzFBQnGBof/aAAgBAgEBPwFrfaKNLaNy0yuPhvicAB8QAAIBAwUBAAAAAAAAAAAAAAARUQECExIhMVOBQf/a
        AAgBAQAGPwLTbyKniGskIVOftZIRCIRCIRblu0RsymW7RGzLct2iNmdmTxHZk8R2ZPEf/8QAHRAAAQQDAQEAAAAAAAAAAAAAAAER
        kfAhMUFRof/aAAgBAQABPyFIJur4csQCuU4kgFcpXKVylcpXKdo32Og7VvsdzAdo32NtbW1tbW1tbW1tbW1tbW1tbW1tbW1tbW1t
        bW1tbW1tbW1tbW1tbW1tbW1tbW1tbW1tbW1tbW1tbW1tbW1tbW1tbaCuxT6V2KfSuxT6f//aAAwDAQACAAMAAAAQBx9//D//xAAh
        EQACAQMEAwEAAAAAAAAAAAABEQAhMUFhcZGhUYGx8f/aAAgBAwEBPxAu2WfH71E/oJ9wqtrahO6+laEGg0IjlTO/J2LLRPLgu8os
        ixQoCBYT/8QAIREAAgEEAQUBAAAAAAAAAAAAAREAITFBYXFRkaHB0eH/2gAIAQIBAT8QQCT+PrjCo1eEplWqE8rr6jqGWiPmZE7j
        DhaW4IDZXNRYrFLT/8QAIBAAAwEFAgEBAAAAAAAAAAAAASERADCRUWFxobHwQf/aAAgBAQABPxC75BJsH6SfwVHjVJBJI+AQhvyS
        ivVONKAAKpKJJHwCEN+SUV6pxpSK9U40pFeqcaUivVONKa+vr6+vr6+vr6+vr6+vr6+vr6+vr6+vr6+vr6+vr6+vr6+vr6+vr6+v
        r6+vr6+vr6+vr6+vr6+vr6+vr6+vr6+vr6+vr6+vr6+vr6+vr6+vr6+vr6+vr6+vr6+vr6+vr6+vr6+vr6+vrxXqnGldcseJsULN
        ddseJsULNdcseJsULNIr7O6ebTbZV92lPEivs7p42r//2Q==
        """)

    /// A 48x32 gray baseline file with fill bytes inside its entropy-coded data (a run of 0xFF before a stuffed
    /// zero, which libjpeg reads as one 0xFF). TurboJPEG's fast path takes the second 0xFF for a marker and decodes
    /// that MCU again on its slow path over the blocks it had already written, keeping some of their coefficients;
    /// TIP's sequential decoder read the file as written and got other pixels, without a warning either side. It
    /// now declines such files, and TurboJPEG decodes them.
    static let fillBytesInData = FuzzReplay.bytes(
        """
        /9j/4AAQSkZJRgABAQAAAQABAAD/2wBDAAQDAwQDAwQEBAQFBQQFBwsHBwYGBw4KCggLEA4RERAOEA8SFBodEhMYEw8QFh8XGBsb
        HR0dERYgIh8cIhocHRz/wAALCAAgADABAREA/8QAHwAAAQUBAQEBAQEAAAAAAAAAAAECAwQFBgcICQoL/8QAtRAAAgEDAwIEAwUF
        BAQAAAF9AQIDAAQRBRIhMUEGE1FhByJxFDKBkaEII0KxwRVS0fAkM2JyggkKFhcYGRolJicoKSo0NTY3ODk6Q0RFRkdISUpTVFVW
        V1hZWmNkZWZnaGlqc3R1dnd4eXqDhIWGh4iJipKTlJWWl5iZmqKjpKWmp6ipqrKztLW2t7i5usLDxMXGx8jJytLT1NXW19jZ2uHi
        4+Tl5ufo6erx8vP09fb3+Pn6/9oACAEBAAA/APmy10L/AISf+H7P9n/4Hu3flj7tbVroX/CT/wAP2f7P////////////////////
        ////AAPdu/LH3f1ratdC/wCEnx8v2f7P/wAD3bvyx939a2rXQf8AhJ8fL9n+z/8AA9278sfd/Wtq10L/AISf+H7P9n/4Hu3fljp+
        tbVroX/CT/w/Z/s//A9278sfd/WuKtdB/wCEn/h+z/Z/+B7t35Y+7+tbVroP/CT/AMP2f7P/AMD3bvyx92tq10H/AISb+H7P9n/4
        Hu3flj7v61tWuhf8JP8AwfZ/s/8AwPdu/LH3a2rXQf8AhJ/4fs/2f/ge7d+WPu/rW1a6F/wk/wDB9n+z/wDA9278sfdrirXQf+En
        /h+z/Z/+B7t35Y+7W1a6F/wk/wDB9n+z/wDA9278sdK2rXQf+Enx8v2f7P8A8D3bvyx92tq1KAAAAMfL9n+zQP8AwPdu/LH3f1ra
        tdB/4SfHy/Z/s/8AwPdu/LH3f1ratdB/4Sf+H7P9n/4Hu3fljpXxpa6D/wAKB/h/tv8Atv8A7dvJ8n/vvdnzfbG3vnjatdB/4UD/
        AA/23/bf/bt5Pk/997s+b7Y2981tWug/8KB/h/tv+2/+3byfJ/773Z832xjvmtq10H/hQP8AD/bf9t/9u3k+T/33uz5vtjb3zW1a
        6D/woH+H+2/7b/7dvJ8n/vvdnzfbG3vmtq10H/hQP8P9t/23/wBu3k+T/wB97s+b7Y2988f/2Q==
        """)

    @Test("Fill bytes inside a baseline scan's data: TIP's decoder declines, and the pixels are TurboJPEG's")
    func fillBytesInData() throws {
        let data = Self.fillBytesInData
        #expect(try JPEGSequentialDecodingTests.decode(data, denominator: 1) == nil)
        let image = try JPEGCodec().decoder.decode(data, options: ImageDecodingOptions()).image
        let reference = try #require(
            try JPEGProgressiveACTests.turboJPEGDecode(data, denominator: 1, acceptingWarnings: true))
        #expect(reference.warning == nil)
        #expect(image == reference.bitmap)
    }

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

    @Test("A bogus Huffman table in a left-out scan: a partial image, nothing of the file shown")
    func bogusTableInLeftOutScan() throws {
        let options = ImageDecodingOptions(
            targetDimensions: CGSize(width: 3, height: 5), targetContentMode: .scaleToFill)
        let decoded = try JPEGCodec().decoder.decode(Self.bogusTable, options: options)
        #expect(decoded.isPartial)
        let pixels = decoded.image.withUnsafeBytes { Array($0) }
        #expect(pixels.count >= 3 * 5 * 4)
        let rows = (0..<5).flatMap { y in (0..<3 * 4).map { pixels[y * decoded.image.bytesPerRow + $0] } }
        #expect(rows.enumerated().allSatisfy { $0.offset % 4 == 3 || $0.element == 0x80 }, "\(rows)")
        let reference = try JPEGProgressiveACTests.turboJPEGDecode(
            Self.bogusTable, denominator: 8, acceptingWarnings: true)
        #expect(reference?.warning == "Bogus Huffman table definition")
        #expect(!JPEGDecoder.isLibjpegWarning("Bogus Huffman table definition"))
        #expect(JPEGDecoder.isLibjpegWarning("Corrupt JPEG data: 61 extraneous bytes before marker 0xda"))
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
