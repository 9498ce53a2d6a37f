import CTurboJPEG
import Foundation
import Testing

@testable import TIP

@Suite("JPEG restart splitting")
struct JPEGRestartSplitterTests {
    /// Decodes with TurboJPEG at 1/`denom` into RGBX rows.
    private func decode(_ data: Data, denom: Int32) -> (width: Int, height: Int, pixels: [UInt8])? {
        let handle = tjInitDecompress()
        defer { tjDestroy(handle) }
        var w: Int32 = 0, h: Int32 = 0, sub: Int32 = 0, cs: Int32 = 0
        let header = data.withUnsafeBytes {
            tjDecompressHeader3(handle, $0.bindMemory(to: UInt8.self).baseAddress, UInt(data.count), &w, &h, &sub, &cs)
        }
        guard header == 0, w > 0, h > 0 else { return nil }
        let sw = (Int(w) + Int(denom) - 1) / Int(denom), sh = (Int(h) + Int(denom) - 1) / Int(denom)
        var pixels = [UInt8](repeating: 0, count: sw * sh * 4)
        let status = data.withUnsafeBytes { src in
            pixels.withUnsafeMutableBufferPointer { dst in
                tjDecompress2(
                    handle, src.bindMemory(to: UInt8.self).baseAddress, UInt(data.count), dst.baseAddress, Int32(sw), 0,
                    Int32(sh), Int32(TJPF_RGBX.rawValue), 0)
            }
        }
        guard status == 0 else { return nil }
        return (sw, sh, pixels)
    }

    @Test("Parts decode to exactly the rows of one sequential decode", arguments: [1, 2, 4, 8] as [Int32])
    func partsMatchWholeDecode(denom: Int32) throws {
        guard let data = Fixtures.data("carnival.jpg") else {
            print(Fixtures.skipMessage)
            return
        }
        let whole = try #require(decode(data, denom: denom))
        for partCount in [2, 3] {
            let parts = try #require(JPEGRestartSplitter.split(data, parts: partCount))
            #expect(parts.count == partCount)
            var stacked: [UInt8] = []
            var rows = 0
            for part in parts {
                #expect(part.firstRow == rows)
                let decoded = try #require(decode(part.data, denom: denom))
                #expect(decoded.width == whole.width)
                stacked += decoded.pixels
                rows += part.rowCount
            }
            #expect(rows == 1253)
            #expect(stacked == whole.pixels)
        }
    }

    @Test("Streams without restart markers, or progressive ones, are not split")
    func notSplit() throws {
        if let progressive = Fixtures.data("carnival.pjpg") {
            #expect(JPEGRestartSplitter.split(progressive, parts: 2) == nil)
        }
        if let noRestart = Fixtures.data("twitterfied.jpg") {
            #expect(JPEGRestartSplitter.split(noRestart, parts: 2) == nil)
        }
        #expect(JPEGRestartSplitter.split(Data([0xFF, 0xD8, 0xFF]), parts: 2) == nil)
        #expect(JPEGRestartSplitter.split(Data(), parts: 2) == nil)
    }

    @Test("Truncated and corrupted inputs never crash the splitter")
    func hostile() throws {
        guard let data = Fixtures.data("carnival.jpg") else { return }
        var rng = SplitMix64(seed: 7)
        for length in stride(from: 0, to: 4000, by: 7) {
            _ = JPEGRestartSplitter.split(data.prefix(length), parts: 2)
        }
        for _ in 0..<200 {
            var copy = Data(data.prefix(60_000))
            let index = Int(rng.next() % UInt64(copy.count))
            copy[index] ^= UInt8(truncatingIfNeeded: rng.next() | 1)
            _ = JPEGRestartSplitter.split(copy, parts: 2)
        }
    }

    @Test(
        "The codec's parallel decode equals one sequential TurboJPEG decode; damaged data falls back",
        arguments: [1, 2, 4, 8] as [Int32])
    func codecUsesParallelBands(denom: Int32) throws {
        guard let data = Fixtures.data("carnival.jpg") else {
            print(Fixtures.skipMessage)
            return
        }
        let whole = try #require(decode(data, denom: denom))
        // A target that makes the codec pick exactly 1/denom, with no resampling afterwards.
        let options = ImageDecodingOptions(
            targetDimensions: CGSize(width: whole.width, height: whole.height), targetContentMode: .scaleToFill)
        let image = try JPEGCodec().decoder.decode(data, options: options).image
        #expect(image.width == whole.width && image.height == whole.height)
        var pixels: [UInt8] = []
        image.withUnsafeBytes { raw in
            for y in 0..<image.height {
                pixels += UnsafeRawBufferPointer(
                    rebasing: raw[(y * image.bytesPerRow)..<(y * image.bytesPerRow + image.width * 4)])
            }
        }
        #expect(pixels == whole.pixels)
        // Truncated: the bands report a warning, the sequential path returns a partial image.
        let truncated = try JPEGCodec().decoder.decode(data.prefix(data.count * 2 / 3), options: options)
        #expect(truncated.isPartial && truncated.image.width == whole.width)
    }
}
