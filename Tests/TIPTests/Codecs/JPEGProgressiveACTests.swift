import CJPEGIncremental
import CJPEGRescan
import CTurboJPEG
import Foundation
import Testing

@testable import TIP

/// TIP's decoder of progressive AC scans (jpeg_progressive_ac.c) against libjpeg: the same coefficients, to the
/// bit, over scan scripts, restart intervals, subsamplings and contents that exercise every path (first and
/// refinement scans, end-of-band runs across blocks and restart intervals, zero runs, single-coefficient bands,
/// deep successive approximation); whatever it cannot decode exactly, it declines, and corrupt files never make
/// it disagree with libjpeg.
@Suite("JPEG: progressive AC scans decoded by TIP")
struct JPEGProgressiveACTests {
    /// Baseline sources whose coefficients the scripts re-arrange.
    static func sources() throws -> [(name: String, data: Data)] {
        var sources: [(String, Data)] = []
        sources.append(("420 photo 203x151", try JPEGTestSupport.jpeg(width: 203, height: 151).data))
        sources.append(("444 photo q97", try JPEGTestSupport.jpeg(width: 171, height: 97, quality: 0.97).data))
        sources.append(("gray 150x101", try JPEGTestSupport.jpeg(width: 150, height: 101, gray: true).data))
        sources.append(("420 9x7", try JPEGTestSupport.jpeg(width: 9, height: 7).data))
        let photo = TestImages.photo(width: 133, height: 77)
        for (name, sampling) in [("422", TJSAMP_422), ("440", TJSAMP_440), ("411", TJSAMP_411)] {
            sources.append((name, try #require(Self.turboJPEG(photo, sampling: sampling, quality: 85))))
        }
        sources.append(("cmyk", try #require(Self.turboJPEG(photo, sampling: TJSAMP_444, quality: 90, cmyk: true))))
        // Noise at high quality: large coefficients everywhere (long codes, few end-of-band runs); sparse lines
        // on a flat field: long end-of-band runs and zero runs (ZRL) in first and refinement scans.
        sources.append(
            ("noise q95", try #require(Self.turboJPEG(Self.noise(96, 80), sampling: TJSAMP_420, quality: 95))))
        sources.append(
            ("sparse", try #require(Self.turboJPEG(Self.sparse(240, 64), sampling: TJSAMP_444, quality: 92))))
        return sources
    }

    /// Scan scripts for `n` components (nil: libjpeg's default), with what each exercises.
    static func scripts(components n: Int) -> [(name: String, scans: [tip_test_scan]?)] {
        let all = Array(0..<n)
        func scan(_ c: [Int], _ ss: Int, _ se: Int, _ ah: Int, _ al: Int) -> tip_test_scan {
            var s = tip_test_scan()
            s.count = Int32(c.count)
            withUnsafeMutableBytes(of: &s.components) { raw in
                for (i, v) in c.enumerated() { raw.storeBytes(of: Int32(v), toByteOffset: i * 4, as: Int32.self) }
            }
            s.Ss = Int32(ss)
            s.Se = Int32(se)
            s.Ah = Int32(ah)
            s.Al = Int32(al)
            return s
        }
        let spectral =
            [scan(all, 0, 0, 0, 0)]
            + all.flatMap { [scan([$0], 1, 5, 0, 0), scan([$0], 6, 20, 0, 0), scan([$0], 21, 63, 0, 0)] }
        let deep =
            [scan(all, 0, 0, 0, 2), scan(all, 0, 0, 2, 1), scan(all, 0, 0, 1, 0)]
            + all.map { scan([$0], 1, 63, 0, 3) } + all.map { scan([$0], 1, 63, 3, 2) }
            + all.map { scan([$0], 1, 63, 2, 1) } + all.map { scan([$0], 1, 63, 1, 0) }
        let mixed =
            all.map { scan([$0], 0, 0, 0, 1) }
            + all.flatMap { [scan([$0], 1, 2, 0, 1), scan([$0], 3, 63, 0, 2), scan([$0], 3, 63, 2, 1)] }
            + all.map { scan([$0], 0, 0, 1, 0) } + all.map { scan([$0], 1, 63, 1, 0) }
        let single =
            [scan(all, 0, 0, 0, 0)]
            + all.flatMap { c in (1...3).map { scan([c], $0, $0, 0, 1) } + [scan([c], 4, 63, 0, 1)] }
            + all.map { scan([$0], 1, 63, 1, 0) }
        let mozjpeg =
            all.map { scan([$0], 0, 0, 0, 0) } + [scan([0], 1, 2, 0, 0), scan([0], 3, 63, 0, 0)]
            + all.dropFirst().map { scan([$0], 1, 63, 0, 0) }
        return [
            ("libjpeg's default", nil), ("spectral selection only", spectral), ("deep successive approximation", deep),
            ("per-component DC, mixed bands", mixed), ("single-coefficient bands", single), ("mozjpeg-like", mozjpeg),
        ]
    }

    /// The instructions the scan decoder may use: plain, PDEP, and PDEP with AVX-512's corrections.
    enum Instructions: CaseIterable, Sendable { case plain, pdep, avx512 }

    @Test(
        "Every script, restart interval and source: libjpeg's coefficients and TurboJPEG's pixels",
        .serialized, arguments: Instructions.allCases)
    func matchesLibjpeg(instructions: Instructions) throws {
        // Each where the processor has it (other tests' decodes meanwhile are right either way). Restored to the
        // default after.
        defer {
            tip_jpeg_ac_use_pdep(1)
            tip_jpeg_ac_use_avx512(1)
        }
        let pdep = tip_jpeg_ac_use_pdep(instructions == .plain ? 0 : 1)
        let avx512 = tip_jpeg_ac_use_avx512(instructions == .avx512 ? 1 : 0)
        if instructions == .plain { #expect(pdep == 0) }
        if instructions != .avx512 { #expect(avx512 == 0) }
        var checked = 0
        for (source, data) in try Self.sources() {
            let components = try Self.componentCount(data)
            for (script, scans) in Self.scripts(components: components) {
                for restart in [0, 1, 5] {
                    let label = "\(source), \(script), restart \(restart)"
                    let file = try #require(Self.rescan(data, scans, restart: restart), "\(label): libjpeg refused")
                    #expect(Self.check(file) == 0, "\(label)")
                    try Self.expectDecodes(file, ownAC: true, label)
                    checked += 1
                }
            }
        }
        #expect(checked == 10 * 6 * 3)
    }

    @Test("The shared fixtures' progressive files: libjpeg's coefficients")
    func fixtures() throws {
        for name in ["carnival.pjpg", "twitterfied.pjpg", "pink_outfit.jpg"] {
            guard let data = Fixtures.data(name) else { continue }
            #expect(Self.check(data) == 0, "\(name)")
            try Self.expectDecodes(data, ownAC: true, name)
        }
    }

    @Test("Incomplete progressions and arithmetic coding are declined, and still decode as TurboJPEG does")
    func declines() throws {
        let data = try JPEGTestSupport.jpeg(width: 203, height: 151).data
        let incomplete = try #require(Self.incompleteProgression(data))
        #expect(Self.check(incomplete) == 2)
        try Self.expectDecodes(incomplete, ownAC: false, "incomplete")
        let arithmetic = try #require(Self.rescan(data, nil, restart: 0, arithmetic: true))
        #expect(Self.check(arithmetic) == 2)
        try Self.expectDecodes(arithmetic, ownAC: false, "arithmetic")
    }

    @Test("Segments between scans: application data is passed over, a late quantization table is declined")
    func segmentsBetweenScans() throws {
        let source = try JPEGTestSupport.jpeg(width: 203, height: 151).data
        // Per-component DC scans: the chroma components' first scans come after the luma's.
        let mixed = try #require(Self.scripts(components: 3).first { $0.name == "per-component DC, mixed bands" })
        let file = [UInt8](try #require(Self.rescan(source, mixed.scans, restart: 0)))
        let scans = Self.scanOffsets(file)
        #expect(scans.count == 3 + 3 * 3 + 3 + 3)
        let second = try #require(scans.dropFirst().first)
        // Application data and a comment after the first scan: libjpeg skips them, so does our decoder.
        let app: [UInt8] = [0xFF, 0xE5, 0x00, 0x06, 0x54, 0x49, 0x50, 0x00, 0xFF, 0xFE, 0x00, 0x03, 0x21]
        let withApp = Data(file[..<second] + app + file[second...])
        #expect(Self.check(withApp) == 0)
        try Self.expectDecodes(withApp, ownAC: true, "application data between scans")
        // A new table 1 before the chroma components' first scans: libjpeg quantizes them with it, not with the
        // header's. Our decoder, which latches the header's tables, declines, and the pixels are libjpeg's.
        let table: [UInt8] = [0xFF, 0xDB, 0x00, 0x43, 0x01] + (0..<64).map { UInt8(2 + $0 % 7) }
        let withTable = Data(file[..<second] + table + file[second...])
        #expect(Self.check(withTable) == 2)
        try Self.expectDecodes(withTable, ownAC: false, "quantization table between scans")
        let header = try #require(try Self.turboJPEGDecode(Data(file), denominator: 1))
        #expect(try Self.turboJPEGDecode(withTable, denominator: 1) != header, "the late table changes the image")
    }

    @Test("Over-subscribed Huffman tables that no scan uses are refused without harm, DC and AC alike")
    func oversubscribedTables() throws {
        let file = [UInt8](
            try #require(Self.rescan(try JPEGTestSupport.jpeg(width: 203, height: 151).data, nil, restart: 0)))
        let second = try #require(Self.scanOffsets(file).dropFirst().first)
        // Table 3 of each class (the file's scans use 0 and 1) with 255 codes of length 1: libjpeg builds a table
        // only for a scan that uses it, so it decodes the file; our walk builds every table it reads, and must
        // refuse these before their codes index its lookup tables (far past them: 254 << 9).
        for (index, label) in [(0x03, "DC"), (0x13, "AC")] {
            let table: [UInt8] =
                [0xFF, 0xC4, 0x01, 0x12, UInt8(index), 255] + [UInt8](repeating: 0, count: 15)
                + [UInt8](repeating: 0x01, count: 255)
            for at in [2, second] {
                let bytes = Data(file[..<at] + table + file[at...])
                #expect(Self.check(bytes) == 0, "\(label) table at \(at)")
                try Self.expectDecodes(bytes, ownAC: true, "\(label) table at \(at)")
            }
        }
    }

    @Test("Corrupt and truncated files never make it disagree with libjpeg")
    func corruption() throws {
        let source = try JPEGTestSupport.jpeg(width: 96, height: 64).data
        let file = [UInt8](try #require(Self.rescan(source, nil, restart: 3)))
        let firstScan = try #require(Self.firstScanOffset(file))
        var rng = SplitMix64(seed: 18)
        var outcomes = [Int32: Int]()
        for _ in 0..<400 {
            var bytes = file
            for _ in 0..<(1 + Int(rng.next() % 3)) {
                let at = firstScan + Int(rng.next() % UInt64(bytes.count - 2 - firstScan))
                bytes[at] = UInt8(truncatingIfNeeded: rng.next())
            }
            let result = Self.check(Data(bytes))
            outcomes[result, default: 0] += 1
            #expect(result != -1, "mutation: our coefficients differ from libjpeg's")
            try Self.expectNoSilentDifference(Data(bytes), denominator: 1)
        }
        for length in stride(from: firstScan, to: file.count - 2, by: 37) {
            let cut = Data(file[..<length] + [0xFF, 0xD9])
            #expect(Self.check(cut) != -1, "cut at \(length)")
            try Self.expectNoSilentDifference(cut, denominator: 2)
        }
        // Both outcomes occur: mutations our decoder takes (a changed but valid code) and ones it refuses.
        #expect(outcomes[0, default: 0] > 0 && outcomes[1, default: 0] + outcomes[2, default: 0] > 0)
    }

    // MARK: - Helpers

    /// `tip_jpeg_progressive_ac_check` through the decoder's own allocator.
    /// `data` (three components) rescanned without refinement: every AC coefficient stays at half precision, an
    /// incomplete progression, which libjpeg smooths and our decoder declines only once it has walked every scan.
    static func incompleteProgression(_ data: Data) -> Data? {
        var dc = tip_test_scan(), ac = tip_test_scan()
        dc.count = 3
        dc.components = (0, 1, 2, 0)
        ac.count = 1
        ac.Ss = 1
        ac.Se = 63
        ac.Al = 1
        var scans = [dc]
        for c in 0..<3 {
            ac.components.0 = Int32(c)
            scans.append(ac)
        }
        return rescan(data, scans, restart: 0)
    }

    static func check(_ data: Data) -> Int32 { data.withUnsafeBytes { JPEGDecoder.checkProgressiveAC($0) } }

    /// `data` rewritten with `scans` (nil: libjpeg's default script).
    static func rescan(_ data: Data, _ scans: [tip_test_scan]?, restart: Int, arithmetic: Bool = false) -> Data? {
        var output: UnsafeMutablePointer<UInt8>? = nil
        var length = 0
        let status = data.withUnsafeBytes { raw in
            (scans ?? []).withUnsafeBufferPointer { list in
                tip_test_rescan(
                    raw.bindMemory(to: UInt8.self).baseAddress, raw.count, list.baseAddress, Int32(list.count),
                    Int32(restart), arithmetic ? 1 : 0, &output, &length)
            }
        }
        guard status == 0, let output else { return nil }
        defer { free(output) }
        return Data(bytes: output, count: length)
    }

    /// Decodes `data` at 1/`denominator` through the progressive path: nil when it declined, else the
    /// image and how it was decoded.
    static func decode(_ data: Data, denominator: Int) throws -> (Bitmap, JPEGDecoder.ProgressivePath)? {
        try decode(data, denominator: denominator) { src, width, height, output, destination, pitch in
            JPEGDecoder.decodeProgressive(
                src, numerator: 1, denominator: denominator, width: width, height: height, outputSpace: output,
                destination: destination, pitch: pitch)
        }
    }

    /// Decodes `data` at 1/`denominator` with `decoder` (given the file's bytes, the scaled width and height, the
    /// TIP_JPEG_OUT_* space of the file and the rows to write): nil when it declined (returned nil), else the
    /// image and what it returned.
    static func decode<Result>(
        _ data: Data, denominator: Int,
        with decoder: (UnsafeRawBufferPointer, Int, Int, Int32, UnsafeMutableRawPointer, Int) -> Result?
    ) throws -> (Bitmap, Result)? {
        guard let (w, h, space) = header(data) else { return nil }
        let width = JPEGScaleSelection.scaled(w, 1, denominator), height = JPEGScaleSelection.scaled(h, 1, denominator)
        var bitmap = try #require(Bitmap(width: width, height: height, format: space == .gray ? .gray8 : .rgbx8))
        let pitch = bitmap.bytesPerRow
        let output = Int32(space == .gray ? TIP_JPEG_OUT_GRAY : space == .cmyk ? TIP_JPEG_OUT_CMYK : TIP_JPEG_OUT_RGBX)
        let result = bitmap.withUnsafeMutableBytes { dst in
            data.withUnsafeBytes { src in decoder(src, width, height, output, dst.baseAddress!, pitch) }
        }
        return result.map { (bitmap, $0) }
    }

    /// Whatever the progressive path decodes of a damaged file is TurboJPEG's image of it, and TurboJPEG reads it
    /// to the end (at most with a benign warning: extraneous bytes between segments, which change no
    /// coefficient): the rest it declines, so the caller's TurboJPEG decode reports the damage.
    static func expectNoSilentDifference(_ data: Data, denominator: Int) throws {
        guard let (bitmap, _) = try decode(data, denominator: denominator) else { return }
        let reference = try turboJPEGDecode(data, denominator: denominator, acceptingWarnings: true)
        #expect(bitmap == reference?.bitmap)
        if let warning = reference?.warning {
            #expect(warning.contains("extraneous bytes"), "\(warning)")
        }
    }

    /// The progressive path decodes `data` at 1/1 and 1/2 to TurboJPEG's pixels, with or without our AC decoder.
    static func expectDecodes(_ data: Data, ownAC: Bool, _ label: String) throws {
        // At 1/2, 1/4 and 1/8 the components' inverse DCTs read some coefficients only (4x4 and 2x2 for the
        // luma and subsampled chroma), whose refinement bits alone are applied.
        for denominator in [1, 2, 4, 8] {
            let (bitmap, path) = try #require(try decode(data, denominator: denominator), "\(label) 1/\(denominator)")
            #expect(path.contains(.ownAC) == ownAC, "\(label) 1/\(denominator)")
            let reference = try #require(try turboJPEGDecode(data, denominator: denominator), "\(label)")
            #expect(bitmap == reference, "\(label) 1/\(denominator)")
        }
    }

    enum Space { case gray, rgb, cmyk }

    /// Width, height and the output space of `data`; nil when TurboJPEG cannot read its header.
    static func header(_ data: Data) -> (Int, Int, Space)? {
        guard let handle = tjInitDecompress() else { return nil }
        defer { tjDestroy(handle) }
        var w: Int32 = 0, h: Int32 = 0, sub: Int32 = 0, cs: Int32 = 0
        let status = data.withUnsafeBytes { raw in
            tjDecompressHeader3(handle, raw.bindMemory(to: UInt8.self).baseAddress, UInt(raw.count), &w, &h, &sub, &cs)
        }
        guard status == 0, w > 0, h > 0 else { return nil }
        let space: Space =
            cs == Int32(TJCS_GRAY.rawValue)
            ? .gray : (cs == Int32(TJCS_CMYK.rawValue) || cs == Int32(TJCS_YCCK.rawValue)) ? .cmyk : .rgb
        return (Int(w), Int(h), space)
    }

    /// TurboJPEG's decode of `data` at 1/`denominator` (gray, CMYK or RGBX as the file is).
    static func turboJPEGDecode(_ data: Data, denominator: Int) throws -> Bitmap? {
        try turboJPEGDecode(data, denominator: denominator, acceptingWarnings: false)?.bitmap
    }

    /// TurboJPEG's decode of `data` at 1/`denominator` and its warning, if any (nil on an error, or on a warning
    /// unless `acceptingWarnings`).
    static func turboJPEGDecode(_ data: Data, denominator: Int, acceptingWarnings: Bool) throws
        -> (bitmap: Bitmap, warning: String?)?
    {
        guard let (w, h, space) = header(data), let handle = tjInitDecompress() else { return nil }
        defer { tjDestroy(handle) }
        let width = JPEGScaleSelection.scaled(w, 1, denominator), height = JPEGScaleSelection.scaled(h, 1, denominator)
        var bitmap = try #require(Bitmap(width: width, height: height, format: space == .gray ? .gray8 : .rgbx8))
        let pitch = bitmap.bytesPerRow
        let format = space == .gray ? TJPF_GRAY : space == .cmyk ? TJPF_CMYK : TJPF_RGBX
        let status = bitmap.withUnsafeMutableBytes { dst in
            data.withUnsafeBytes { raw in
                tjDecompress2(
                    handle, raw.bindMemory(to: UInt8.self).baseAddress, UInt(raw.count),
                    dst.baseAddress!.assumingMemoryBound(to: UInt8.self), Int32(width), Int32(pitch), Int32(height),
                    Int32(format.rawValue), 0)
            }
        }
        if status == 0 { return (bitmap, nil) }
        guard acceptingWarnings, tjGetErrorCode(handle) == Int32(TJERR_WARNING.rawValue) else { return nil }
        return (bitmap, String(cString: tjGetErrorStr2(handle)))
    }

    static func componentCount(_ data: Data) throws -> Int {
        let bytes = [UInt8](data)
        var i = 2
        while i + 9 < bytes.count {
            let marker = bytes[i + 1]
            if (0xC0...0xC2).contains(marker) { return Int(bytes[i + 9]) }
            i += 2 + (Int(bytes[i + 2]) << 8 | Int(bytes[i + 3]))
        }
        throw ImageDecodingError.truncatedData
    }

    /// The offset of every SOS marker of `bytes`, in order.
    static func scanOffsets(_ bytes: [UInt8]) -> [Int] {
        scanSpans(bytes).map(\.start)
    }

    /// Every scan of `bytes`, in order: the offset of its SOS marker and the end of its entropy-coded data (the
    /// offset of the marker that follows it).
    static func scanSpans(_ bytes: [UInt8]) -> [(start: Int, dataEnd: Int)] {
        var spans = [(start: Int, dataEnd: Int)]()
        var i = 2
        while i + 3 < bytes.count, bytes[i] == 0xFF, bytes[i + 1] != 0xD9 {
            let end = i + 2 + (Int(bytes[i + 2]) << 8 | Int(bytes[i + 3]))
            guard bytes[i + 1] == 0xDA else {
                i = end
                continue
            }
            let start = i
            // The entropy-coded data runs to the next marker that is neither a stuffed zero nor a restart.
            i = end
            while i + 1 < bytes.count, !(bytes[i] == 0xFF && bytes[i + 1] != 0 && !(0xD0...0xD7).contains(bytes[i + 1]))
            {
                i += 1
            }
            spans.append((start, i))
        }
        return spans
    }

    /// The offset of the first SOS marker.
    static func firstScanOffset(_ bytes: [UInt8]) -> Int? {
        var i = 2
        while i + 3 < bytes.count {
            if bytes[i + 1] == 0xDA { return i }
            i += 2 + (Int(bytes[i + 2]) << 8 | Int(bytes[i + 3]))
        }
        return nil
    }

    /// `bitmap` as a JPEG from TurboJPEG with `sampling`, as CMYK (YCCK) when `cmyk` is set.
    static func turboJPEG(_ bitmap: Bitmap, sampling: TJSAMP, quality: Int32, cmyk: Bool = false) -> Data? {
        guard let handle = tjInitCompress() else { return nil }
        defer { tjDestroy(handle) }
        return bitmap.withUnsafeBytes { src -> Data? in
            var buffer: UnsafeMutablePointer<UInt8>? = nil
            var size: UInt = 0
            let format = cmyk ? TJPF_CMYK : TJPF_RGBX
            guard
                tjCompress2(
                    handle, src.baseAddress!.assumingMemoryBound(to: UInt8.self), Int32(bitmap.width),
                    Int32(bitmap.bytesPerRow), Int32(bitmap.height), Int32(format.rawValue), &buffer, &size,
                    Int32(sampling.rawValue), quality, 0) == 0, let buffer
            else { return nil }
            defer { tjFree(buffer) }
            return Data(bytes: buffer, count: Int(size))
        }
    }

    static func noise(_ width: Int, _ height: Int) -> Bitmap {
        var bitmap = Bitmap(width: width, height: height, format: .rgbx8)!
        var rng = SplitMix64(seed: 7)
        for y in 0..<height {
            for x in 0..<width {
                let v = rng.next()
                bitmap.setPixel(
                    x: x, y: y,
                    SIMD4(
                        UInt8(truncatingIfNeeded: v), UInt8(truncatingIfNeeded: v >> 8),
                        UInt8(truncatingIfNeeded: v >> 16), 255))
            }
        }
        return bitmap
    }

    static func sparse(_ width: Int, _ height: Int) -> Bitmap {
        var bitmap = TestImages.solid(width: width, height: height, SIMD4(90, 140, 200, 255), format: .rgbx8)
        for x in stride(from: 3, to: width, by: 41) {
            for y in 0..<height { bitmap.setPixel(x: x, y: y, SIMD4(250, 250, 240, 255)) }
        }
        for x in 0..<width where x % 3 == 0 { bitmap.setPixel(x: x, y: height / 2, SIMD4(10, 10, 10, 255)) }
        return bitmap
    }
}
