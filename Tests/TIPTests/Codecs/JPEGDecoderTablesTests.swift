import CJPEGRescan
import Foundation
import Testing

@testable import TIP

/// libjpeg keeps the Huffman and quantization tables of earlier images on a decompressor (for abbreviated
/// streams), so a file that uses tables it does not define (a Motion-JPEG frame relying on the standard Huffman
/// tables) decoded on a reused TurboJPEG handle took another image's tables: other pixels or an error, depending
/// on what that handle decoded before. Such files now decode on a handle of their own.
@Suite("JPEG: files without their own tables")
struct JPEGDecoderTablesTests {
    /// A baseline file of our encoder (standard Huffman tables) without its DHT segments: libjpeg-turbo then
    /// uses the standard tables, and decodes it like the original.
    static func withoutHuffmanTables(_ data: Data) -> Data {
        let bytes = [UInt8](data)
        var out: [UInt8] = [0xFF, 0xD8]
        var i = 2
        while i + 3 < bytes.count {
            let marker = bytes[i + 1]
            if marker == 0xDA {
                out += bytes[i...]
                break
            }
            let end = i + 2 + (Int(bytes[i + 2]) << 8 | Int(bytes[i + 3]))
            if marker != 0xC4 { out += bytes[i..<end] }
            i = end
        }
        return Data(out)
    }

    static func optimized(_ data: Data) throws -> Data {
        var output: UnsafeMutablePointer<UInt8>? = nil
        var length = 0
        let status = data.withUnsafeBytes { raw in
            tip_test_optimize(raw.bindMemory(to: UInt8.self).baseAddress, raw.count, &output, &length)
        }
        let bytes = try #require(status == 0 ? output : nil)
        defer { free(bytes) }
        return Data(bytes: bytes, count: length)
    }

    @Test("Which files define every table they use")
    func definesItsTables() throws {
        let baseline = try JPEGTestSupport.jpeg(width: 64, height: 48).data
        let progressive = try JPEGTestSupport.jpeg(width: 64, height: 48, progressive: true).data
        func defines(_ data: Data) -> Bool { data.withUnsafeBytes { JPEGMarkerScanner($0).definesItsTables } }
        #expect(defines(baseline))
        #expect(defines(try Self.optimized(baseline)))
        #expect(!defines(Self.withoutHuffmanTables(baseline)))
        #expect(!defines(progressive))  // later scans bring their own tables: not checked, not trusted
        // No quantization table: the first DQT segment's marker turned into a comment.
        var bytes = [UInt8](baseline)
        let dqt = try #require((0..<bytes.count - 1).first { bytes[$0] == 0xFF && bytes[$0 + 1] == 0xDB })
        bytes[dqt + 1] = 0xFE
        #expect(!defines(Data(bytes)))
        #expect(!defines(Data(baseline.prefix(40))))
    }

    @Test("A file without Huffman tables decodes as on a new decoder, whatever was decoded before")
    func standardTables() throws {
        let source = try JPEGTestSupport.jpeg(width: 320, height: 200).data
        let bare = Self.withoutHuffmanTables(source)
        let optimized = try Self.optimized(try JPEGTestSupport.jpeg(width: 320, height: 200, seed: 9).data)
        let reference = try #require(JPEGTestSupport.turboJPEGDecode(bare))
        #expect(reference == (try #require(JPEGTestSupport.turboJPEGDecode(source))))
        let decoder = JPEGCodec().decoder
        // The pool hands the handle that decoded the optimized file straight back (last in, first out); other
        // tests running alongside may take it first now and then, hence the rounds.
        for round in 0..<20 {
            _ = try decoder.decode(optimized, options: ImageDecodingOptions())
            let image = try decoder.decode(bare, options: ImageDecodingOptions()).image
            #expect(image == reference, "round \(round)")
        }
    }
}
