import CJPEGIncremental
import Foundation
import Testing

@testable import TIP

/// The incremental decoder hands each progressive AC scan whose data has entirely arrived to TIP's scan decoder
/// (jpeg_progressive_ac.c), which writes libjpeg's coefficient arrays; libjpeg keeps the rest. Every render, scan
/// by scan, must be the one libjpeg alone gives, over scan scripts, restart intervals, scales and chunk sizes; a
/// scan ours declines partway makes the decode start over on libjpeg alone, and damage never makes them differ.
@Suite("JPEG: incremental decoding with TIP's scan decoder")
struct JPEGIncrementalOwnScansTests {
    @Test("Every script, restart interval, scale and chunk size: the renders libjpeg alone gives, scan by scan")
    func matchesLibjpegAlone() throws {
        var streams = 0
        for (source, data) in try JPEGProgressiveACTests.sources() {
            let components = try JPEGProgressiveACTests.componentCount(data)
            for (script, scans) in JPEGProgressiveACTests.scripts(components: components) {
                for restart in [0, 5] {
                    let file = try #require(JPEGProgressiveACTests.rescan(data, scans, restart: restart))
                    for chunk in [613, 4096] {
                        for denominator in [1, 4] {
                            let label = "\(source), \(script), restart \(restart), chunk \(chunk), 1/\(denominator)"
                            let ours = Self.stream(file, chunk: chunk, ownScans: true, denominator: denominator)
                            let libjpeg = Self.stream(file, chunk: chunk, ownScans: false, denominator: denominator)
                            #expect(!ours.failed && !libjpeg.failed, "\(label)")
                            #expect(!ours.renders.isEmpty, "\(label)")
                            #expect(ours.renders == libjpeg.renders, "\(label)")
                            #expect(ours.ownScans > 0 && ours.restarts == 0, "\(label)")
                            #expect(libjpeg.ownScans == 0, "\(label)")
                            streams += 1
                        }
                    }
                }
            }
        }
        #expect(streams == 10 * 6 * 2 * 2 * 2)
    }

    @Test("The shared fixtures in 16 KiB chunks: every AC scan is TIP's, through the decoder context too")
    func fixtures() throws {
        for name in ["carnival.pjpg", "twitterfied.pjpg"] {
            guard let data = Fixtures.data(name) else { continue }
            let ours = Self.stream(data, chunk: 16 * 1024, ownScans: true, denominator: 1)
            let libjpeg = Self.stream(data, chunk: 16 * 1024, ownScans: false, denominator: 1)
            #expect(!ours.failed && ours.renders == libjpeg.renders, "\(name)")
            #expect(ours.ownScans == Self.acScanCount(data), "\(name)")
            let context = try #require(
                try JPEGTestSupport.feed(data, chunkSizes: Array(repeating: 16 * 1024, count: data.count / 16_384))
                    as? JPEGDecoderContext)
            #expect(context.scansDecodedByTIP == Self.acScanCount(data), "\(name)")
            let image = try #require(
                try context.render(mode: .completeImage, targetDimensions: .zero, targetContentMode: .center))
            #expect(image.image == JPEGTestSupport.turboJPEGDecode(data), "\(name)")
        }
    }

    @Test("Arithmetic coding stays with libjpeg")
    func arithmetic() throws {
        let source = try JPEGTestSupport.jpeg(width: 96, height: 64).data
        let file = try #require(JPEGProgressiveACTests.rescan(source, nil, restart: 0, arithmetic: true))
        let ours = Self.stream(file, chunk: 700, ownScans: true, denominator: 1)
        #expect(!ours.failed && ours.ownScans == 0)
        #expect(ours.renders == Self.stream(file, chunk: 700, ownScans: false, denominator: 1).renders)
    }

    @Test("Damaged and cut files: the same renders and outcome as libjpeg alone, declined scans started over")
    func damage() throws {
        let source = try JPEGTestSupport.jpeg(width: 96, height: 64).data
        let file = [UInt8](try #require(JPEGProgressiveACTests.rescan(source, nil, restart: 3)))
        let firstScan = try #require(JPEGProgressiveACTests.firstScanOffset(file))
        var rng = SplitMix64(seed: 29)
        var restarted = 0, owned = 0
        func expectSame(_ data: Data, _ label: String) {
            let ours = Self.stream(data, chunk: 500, ownScans: true, denominator: 1)
            let libjpeg = Self.stream(data, chunk: 500, ownScans: false, denominator: 1)
            #expect(ours.failed == libjpeg.failed, "\(label)")
            #expect(ours.renders == libjpeg.renders, "\(label)")
            if ours.restarts > 0 { restarted += 1 }
            if ours.ownScans > 0 { owned += 1 }
        }
        for index in 0..<300 {
            var bytes = file
            for _ in 0..<(1 + Int(rng.next() % 3)) {
                let at = firstScan + Int(rng.next() % UInt64(bytes.count - 2 - firstScan))
                bytes[at] = UInt8(truncatingIfNeeded: rng.next())
            }
            expectSame(Data(bytes), "mutation \(index)")
        }
        for length in stride(from: firstScan, to: file.count - 2, by: 41) {
            expectSame(Data(file[..<length]), "cut at \(length)")
        }
        // Both paths are taken: scans ours decoded despite the damage elsewhere, and scans it declined partway.
        #expect(restarted > 0 && owned > restarted)
    }

    @Test("Nothing to show until every component has data (DC scans of their own), then a render")
    func nothingBeforeEveryComponent() throws {
        let source = try JPEGTestSupport.jpeg(width: 96, height: 64).data
        let script = try #require(JPEGProgressiveACTests.scripts(components: 3).first { $0.name == "mozjpeg-like" })
        let bytes = [UInt8](try #require(JPEGProgressiveACTests.rescan(source, script.scans, restart: 0)))
        // The first three scans are the DC scans of Y, Cb and Cr. Cut two bytes into the next SOS, so that the
        // scan before it is known to be complete.
        let scans = JPEGProgressiveACTests.scanOffsets(bytes)
        for (next, expectRows) in [(2, false), (3, true)] {
            let decoder = try #require(tip_jpeg_inc_create())
            defer { tip_jpeg_inc_destroy(decoder) }
            let prefix = Array(bytes[..<(scans[next] + 2)])
            #expect(prefix.withUnsafeBytes { tip_jpeg_inc_append(decoder, $0.baseAddress, $0.count) } == 0)
            #expect(tip_jpeg_inc_read_header(decoder) == 1)
            #expect(tip_jpeg_inc_start(decoder, 1, 1, Int32(TIP_JPEG_OUT_RGBX)) == 1)
            #expect(tip_jpeg_inc_consume(decoder, 1) == 0)
            var info = tip_jpeg_inc_info()
            tip_jpeg_inc_get_info(decoder, &info)
            #expect(info.completed_scans == Int32(next))
            var image = [UInt8](repeating: 0, count: 96 * 64 * 4)
            let rows = image.withUnsafeMutableBytes {
                tip_jpeg_inc_render_progressive(decoder, 0, $0.baseAddress!.assumingMemoryBound(to: UInt8.self), 96 * 4)
            }
            #expect(expectRows ? rows == 64 : rows == -2, "after \(next) scans")
        }
    }

    @Test(
        """
        A complete file that never scans one of its components: both paths give TurboJPEG's image (that \
        component's coefficients zero), whatever the coefficient arrays held before
        """)
    func componentNeverScanned() throws {
        let source = try JPEGTestSupport.jpeg(width: 203, height: 151).data
        let script = try #require(JPEGProgressiveACTests.scripts(components: 3).first { $0.name == "mozjpeg-like" })
        let complete = [UInt8](try #require(JPEGProgressiveACTests.rescan(source, script.scans, restart: 0)))
        // Scans 0-2 are the DC scans of Y, Cb and Cr, scans 3-4 Y's AC, 5 Cb's and 6 Cr's: leave out both of Cr's.
        // A scan's part runs from the end of the scan before it (its Huffman tables come first) to the end of its
        // own data.
        let scans = JPEGProgressiveACTests.scanSpans(complete)
        try #require(scans.count == 7)
        var bytes = Array(complete[..<scans[1].dataEnd]) + complete[scans[2].dataEnd..<scans[5].dataEnd]
        bytes += complete[scans[6].dataEnd...]
        let file = Data(bytes)
        #expect(JPEGProgressiveACTests.check(file) == 2)  // TIP's scan decoder declines it: no complete progression
        for denominator in [1, 2, 4, 8] {
            let reference = try #require(
                try JPEGProgressiveACTests.turboJPEGDecode(file, denominator: denominator), "1/\(denominator)")
            // One shot, right after the whole file at the same scale: kept arrays then hold Cr's coefficients.
            _ = try JPEGProgressiveACTests.decode(Data(complete), denominator: denominator)
            let (bitmap, path) = try #require(
                try JPEGProgressiveACTests.decode(file, denominator: denominator), "1/\(denominator)")
            #expect(!path.contains(.ownAC), "1/\(denominator)")
            #expect(bitmap == reference, "1/\(denominator)")
        }
        // Streamed: no progressive frame before the end (Cr never has data), then the complete image.
        for chunk in [613, 4096, bytes.count] {
            let stream = Self.stream(file, chunk: chunk, ownScans: true, denominator: 1)
            #expect(!stream.failed && stream.renders.count == 1, "chunk \(chunk)")
            let context = try #require(
                try JPEGTestSupport.feed(file, chunkSizes: Array(repeating: chunk, count: bytes.count / chunk))
                    as? JPEGDecoderContext)
            let image = try #require(
                try context.render(mode: .completeImage, targetDimensions: .zero, targetContentMode: .center),
                "chunk \(chunk)")
            #expect(!image.isPartial)
            #expect(image.image == JPEGTestSupport.turboJPEGDecode(file), "chunk \(chunk)")
        }
    }

    // MARK: - Helpers

    /// What a stream produced: a render after each call that completed a scan and one at the end (the final image).
    struct Stream {
        var renders: [[UInt8]] = []
        var ownScans = 0
        var restarts = 0
        var failed = false
    }

    /// Feeds `data` to a decoder in `chunk`-byte pieces as the decoder context does (holding at the end of each
    /// completed scan until the next has arrived), at 1/`denominator`, rendering as scans complete.
    static func stream(_ data: Data, chunk: Int, ownScans: Bool, denominator: Int) -> Stream {
        let bytes = [UInt8](data)
        var result = Stream()
        guard let decoder = tip_jpeg_inc_create() else {
            result.failed = true
            return result
        }
        defer { tip_jpeg_inc_destroy(decoder) }
        tip_jpeg_inc_set_own_scans(decoder, ownScans ? 1 : 0)
        let space = JPEGProgressiveACTests.header(data)?.2
        let output = Int32(space == .gray ? TIP_JPEG_OUT_GRAY : space == .cmyk ? TIP_JPEG_OUT_CMYK : TIP_JPEG_OUT_RGBX)
        var offset = 0, started = false, completed: Int32 = 0
        var info = tip_jpeg_inc_info()
        while true {
            if offset < bytes.count {
                let end = min(bytes.count, offset + chunk)
                let status = bytes[offset..<end].withUnsafeBytes {
                    tip_jpeg_inc_append(decoder, $0.baseAddress, $0.count)
                }
                offset = end
                if status != 0 { result.failed = true }
                if offset == bytes.count { tip_jpeg_inc_set_eof(decoder) }
            }
            let last = offset == bytes.count
            if !started && !result.failed {
                let header = tip_jpeg_inc_read_header(decoder)
                let start = header == 1 ? tip_jpeg_inc_start(decoder, 1, Int32(denominator), output) : header
                if start < 0 || (start == 0 && last) { result.failed = true }
                started = start == 1
            }
            if started && !result.failed {
                if tip_jpeg_inc_consume(decoder, last ? 0 : 1) < 0 { result.failed = true }
                tip_jpeg_inc_get_info(decoder, &info)
                if !result.failed && (info.completed_scans > completed || last) {
                    completed = info.completed_scans
                    let pitch = Int(info.output_width) * Int(info.output_components)
                    var image = [UInt8](repeating: 0, count: pitch * Int(info.output_height))
                    let rows = image.withUnsafeMutableBytes {
                        tip_jpeg_inc_render_progressive(
                            decoder, 0, $0.baseAddress!.assumingMemoryBound(to: UInt8.self), pitch)
                    }
                    // -2: nothing new to show (a component has had no scan yet).
                    if rows == -1 { result.failed = true } else if rows >= 0 { result.renders.append(image) }
                }
            }
            if last || result.failed { break }
        }
        result.ownScans = Int(info.own_scans)
        result.restarts = Int(info.restarts)
        return result
    }

    /// The AC scans (Ss > 0) of a progressive file.
    static func acScanCount(_ data: Data) -> Int {
        let bytes = [UInt8](data)
        return JPEGProgressiveACTests.scanOffsets(bytes).filter { offset in
            // SOS: FF DA, length, count, (id, tables) x count, Ss.
            let count = Int(bytes[offset + 4])
            return bytes[offset + 5 + 2 * count] > 0
        }.count
    }
}
