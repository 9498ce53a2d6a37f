import CJPEGIncremental
import CJPEGRescan
import CTurboJPEG
import Foundation
import Testing

@testable import TIP

/// TIP's entropy decoder for sequential (baseline) JPEGs (jpeg_sequential.c), libjpeg doing the rest: TurboJPEG's
/// pixels, byte for byte, over subsamplings, standard and optimized Huffman tables, restart intervals, contents
/// with long codes and long zero runs, and every output scale (1/8 reads past the AC coefficients); what it does
/// not take it declines (the caller then decodes with TurboJPEG), and damaged files never decode differently.
@Suite("JPEG: sequential files decoded by TIP's entropy decoder")
struct JPEGSequentialDecodingTests {
    typealias Support = JPEGProgressiveACTests

    @Test("Every source, as encoded, with optimized tables and in restart intervals, at every scale")
    func matchesTurboJPEG() throws {
        for (name, data) in try Support.sources() {
            try Self.expectDecodes(data, name)
            try Self.expectDecodes(try #require(Self.sequential(data)), "\(name) optimized")
            for restart in [1, 3] {
                try Self.expectDecodes(
                    try #require(Self.sequential(data, restart: restart)), "\(name) restart \(restart)")
            }
        }
    }

    @Test("The shared fixtures' baseline files (when the fixtures are there)")
    func fixtures() throws {
        guard Fixtures.available else {
            print(Fixtures.skipMessage)
            return
        }
        for name in ["carnival.jpg", "twitterfied.jpg"] {
            try Self.expectDecodes(try #require(Fixtures.data(name), "\(name)"), name)
        }
    }

    @Test("Progressive, arithmetic-coded and one-scan-per-component files are declined, and decode as TurboJPEG's")
    func declines() throws {
        let data = try JPEGTestSupport.jpeg(width: 203, height: 151).data
        let cases: [(String, Data?)] = [
            ("progressive", Support.rescan(data, nil, restart: 0)),
            ("arithmetic", Self.sequential(data, arithmetic: true)),
            ("a scan per component", Self.sequential(data, separateScans: 3)),
        ]
        for (label, file) in cases {
            let file = try #require(file, "\(label)")
            #expect(try Self.decode(file, denominator: 1) == nil, "\(label)")
            let image = try JPEGDecoder().decode(file, options: ImageDecodingOptions()).image
            #expect(image == (try Support.turboJPEGDecode(file, denominator: 1)), "\(label)")
        }
    }

    @Test("Corrupt and truncated files: whatever it decodes is TurboJPEG's image, read without a warning")
    func corruption() throws {
        let source = try JPEGTestSupport.jpeg(width: 96, height: 64).data
        let file = [UInt8](try #require(Self.sequential(source, restart: 3)))
        let firstScan = try #require(Support.firstScanOffset(file))
        var rng = SplitMix64(seed: 9)
        var taken = 0, declined = 0
        for round in 0..<400 {
            var bytes = file
            for _ in 0..<(1 + Int(rng.next() % 3)) {
                let at = firstScan + Int(rng.next() % UInt64(bytes.count - 2 - firstScan))
                bytes[at] = UInt8(truncatingIfNeeded: rng.next())
            }
            if try Self.expectNoSilentDifference(Data(bytes), denominator: round % 2 == 0 ? 1 : 8) {
                taken += 1
            } else {
                declined += 1
            }
        }
        for length in stride(from: firstScan, to: file.count - 2, by: 23) {
            let cut = Data(file[..<length] + [0xFF, 0xD9])
            #expect(try !Self.expectNoSilentDifference(cut, denominator: 2), "cut at \(length): read past its data")
        }
        // Both outcomes occur: changed but valid codes it decodes, and damage it gives back.
        #expect(taken > 0 && declined > 0, "taken \(taken), declined \(declined)")
    }

    @Test("Bytes left over in an interval or after the scan, or restart markers out of step, make it decline")
    func leftoverBytes() throws {
        let data = try #require(Self.sequential(try JPEGTestSupport.jpeg(width: 64, height: 48).data, restart: 2))
        let bytes = [UInt8](data)
        // The first restart marker's place, and the scan's end (the EOI).
        let scanData = try #require(Support.scanSpans(bytes).first)
        let restart = try #require(
            (scanData.start..<(scanData.dataEnd - 1)).first {
                bytes[$0] == 0xFF && (0xD0...0xD7).contains(bytes[$0 + 1])
            })
        for (label, at) in [("before a restart marker", restart), ("before the EOI", scanData.dataEnd)] {
            var padded = bytes
            padded.insert(contentsOf: [0x5A, 0x5A], at: at)
            #expect(try Self.decode(Data(padded), denominator: 1) == nil, "\(label)")
        }
        // A restart marker out of sequence (RST0 made RST5): libjpeg resynchronizes with a warning.
        var renumbered = bytes
        renumbered[restart + 1] = 0xD5
        #expect(try Self.decode(Data(renumbered), denominator: 1) == nil, "restart marker out of sequence")
        try Self.expectDecodes(data, "unpadded")
    }

    // MARK: - Helpers

    /// `data` written again as a sequential JPEG with optimized tables (see `tip_test_sequential`).
    static func sequential(_ data: Data, separateScans: Int = 0, restart: Int = 0, arithmetic: Bool = false) -> Data? {
        var output: UnsafeMutablePointer<UInt8>? = nil
        var length = 0
        let status = data.withUnsafeBytes { raw in
            tip_test_sequential(
                raw.bindMemory(to: UInt8.self).baseAddress, raw.count, Int32(separateScans), Int32(restart),
                arithmetic ? 1 : 0, &output, &length)
        }
        guard status == 0, let output else { return nil }
        defer { free(output) }
        return Data(bytes: output, count: length)
    }

    /// `data` decoded at 1/`denominator` by the sequential path; nil when it declined.
    static func decode(_ data: Data, denominator: Int) throws -> Bitmap? {
        let decoded = try Support.decode(data, denominator: denominator) { src, width, height, output, dst, pitch in
            JPEGDecoder.decodeSequential(
                src, numerator: 1, denominator: denominator, width: width, height: height, outputSpace: output,
                destination: dst, pitch: pitch) ? true : nil
        }
        return decoded?.0
    }

    /// The sequential path decodes `data` at every scale to TurboJPEG's pixels.
    static func expectDecodes(_ data: Data, _ label: String) throws {
        for denominator in [1, 2, 4, 8] {
            let bitmap = try #require(try decode(data, denominator: denominator), "\(label) 1/\(denominator) declined")
            let reference = try #require(try Support.turboJPEGDecode(data, denominator: denominator), "\(label)")
            #expect(bitmap == reference, "\(label) 1/\(denominator)")
        }
    }

    /// Whether the sequential path decoded `data`; when it did, TurboJPEG reads the same file without a warning
    /// and to the same pixels.
    static func expectNoSilentDifference(_ data: Data, denominator: Int) throws -> Bool {
        guard let bitmap = try decode(data, denominator: denominator) else { return false }
        let reference = try Support.turboJPEGDecode(data, denominator: denominator, acceptingWarnings: true)
        #expect(reference?.warning == nil, "\(reference?.warning ?? "")")
        #expect(bitmap == reference?.bitmap)
        return true
    }
}
