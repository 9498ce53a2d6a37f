import Foundation

/// Writes exactly the PNG flavour a test asks for (any colour type, bit depth, palette, tRNS, Adam7),
/// with stored (uncompressed) deflate blocks, so decoder tests need no external files or encoder.
struct PNGTestWriter {
    var width: Int
    var height: Int
    /// 0 gray, 2 RGB, 3 palette, 4 gray+alpha, 6 RGBA.
    var colorType: UInt8
    var bitDepth: Int
    /// Raw sample values, row-major, `channels` per pixel (palette: the index).
    var samples: [UInt16]
    /// PLTE entries (palette images).
    var palette: [SIMD3<UInt8>] = []
    /// The tRNS payload, when present.
    var transparency: [UInt8]? = nil
    var interlaced = false
    /// Extra chunks (type, payload) written before IDAT.
    var extraChunks: [(String, [UInt8])] = []
    /// Extra chunks (type, payload) written after the image data, before IEND.
    var trailingChunks: [(String, [UInt8])] = []
    /// Splits the zlib stream into IDAT chunks of at most this many bytes.
    var idatChunkSize = 1 << 20

    var channels: Int {
        switch colorType {
        case 0, 3: return 1
        case 4: return 2
        case 2: return 3
        default: return 4
        }
    }

    static let adam7: [(xStart: Int, yStart: Int, xStep: Int, yStep: Int)] = [
        (0, 0, 8, 8), (4, 0, 8, 8), (0, 4, 4, 8), (2, 0, 4, 4), (0, 2, 2, 4), (1, 0, 2, 2), (0, 1, 1, 2),
    ]

    func encoded() -> Data {
        var png = Data([0x89, 0x50, 0x4E, 0x47, 0x0D, 0x0A, 0x1A, 0x0A])
        var ihdr = [UInt8]()
        ihdr += PNGTestWriter.be32(UInt32(width)) + PNGTestWriter.be32(UInt32(height))
        ihdr += [UInt8(bitDepth), colorType, 0, 0, interlaced ? 1 : 0]
        PNGTestWriter.appendChunk("IHDR", ihdr, to: &png)
        for (type, payload) in extraChunks { PNGTestWriter.appendChunk(type, payload, to: &png) }
        if colorType == 3 {
            PNGTestWriter.appendChunk("PLTE", palette.flatMap { [$0.x, $0.y, $0.z] }, to: &png)
        }
        if let transparency { PNGTestWriter.appendChunk("tRNS", transparency, to: &png) }
        let stream = PNGTestWriter.zlibStored(scanlines())
        var offset = 0
        repeat {
            let end = min(stream.count, offset + idatChunkSize)
            PNGTestWriter.appendChunk("IDAT", Array(stream[offset..<end]), to: &png)
            offset = end
        } while offset < stream.count
        for (type, payload) in trailingChunks { PNGTestWriter.appendChunk(type, payload, to: &png) }
        PNGTestWriter.appendChunk("IEND", [], to: &png)
        return png
    }

    /// Filter type of each scanline, cycled (row `i` of a pass uses `filters[i % count]`): 0 None,
    /// 1 Sub, 2 Up, 3 Average, 4 Paeth; any other value is written as is over unfiltered bytes.
    var filters: [UInt8] = [0]

    /// Filtered scanlines of the whole image, or of each Adam7 pass in order.
    func scanlines() -> [UInt8] {
        var out = [UInt8]()
        let passes = interlaced ? PNGTestWriter.adam7 : [(0, 0, 1, 1)]
        let bpp = max(1, channels * bitDepth / 8)
        for (xs, ys, dx, dy) in passes {
            let columns = Array(stride(from: xs, to: width, by: dx))
            guard !columns.isEmpty else { continue }
            var previous: [UInt8]? = nil
            for (index, y) in stride(from: ys, to: height, by: dy).enumerated() {
                let filter = filters.isEmpty ? 0 : filters[index % filters.count]
                let raw = packRow(y: y, columns: columns)
                out.append(filter)
                out += PNGTestWriter.filter(
                    raw, previous: previous ?? [UInt8](repeating: 0, count: raw.count), type: filter, bpp: bpp)
                previous = raw
            }
        }
        return out
    }

    /// `raw` filtered with `type` against the previous raw scanline.
    static func filter(_ raw: [UInt8], previous: [UInt8], type: UInt8, bpp: Int) -> [UInt8] {
        var out = raw
        for i in 0..<raw.count {
            let a = i >= bpp ? Int(raw[i - bpp]) : 0, b = Int(previous[i]), c = i >= bpp ? Int(previous[i - bpp]) : 0
            let predictor: Int
            switch type {
            case 1: predictor = a
            case 2: predictor = b
            case 3: predictor = (a + b) / 2
            case 4:
                let pa = abs(b - c), pb = abs(a - c), pc = abs(a + b - 2 * c)
                predictor = pa <= pb && pa <= pc ? a : (pb <= pc ? b : c)
            default: predictor = 0
            }
            out[i] = UInt8(truncatingIfNeeded: Int(raw[i]) - predictor)
        }
        return out
    }

    /// `png` with every chunk's CRC recomputed (damage made past the CRC check).
    static func fixingCRCs(of png: Data) -> Data {
        var bytes = [UInt8](png)
        var pos = 8
        while pos + 12 <= bytes.count {
            let length = Int(
                UInt32(bytes[pos]) << 24 | UInt32(bytes[pos + 1]) << 16 | UInt32(bytes[pos + 2]) << 8
                    | UInt32(bytes[pos + 3]))
            let end = pos + 8 + length
            guard length >= 0, end + 4 <= bytes.count else { break }
            bytes.replaceSubrange(end..<end + 4, with: be32(crc32(Array(bytes[pos + 4..<end]))))
            pos = end + 4
        }
        return Data(bytes)
    }

    private func packRow(y: Int, columns: [Int]) -> [UInt8] {
        var bytes = [UInt8]()
        if bitDepth < 8 {
            var acc = 0, bits = 0
            for x in columns {
                acc = acc << bitDepth | Int(samples[y * width + x])
                bits += bitDepth
                if bits == 8 { bytes.append(UInt8(acc)); acc = 0; bits = 0 }
            }
            if bits > 0 { bytes.append(UInt8(acc << (8 - bits))) }
            return bytes
        }
        for x in columns {
            for c in 0..<channels {
                let v = samples[(y * width + x) * channels + c]
                if bitDepth == 16 { bytes += [UInt8(v >> 8), UInt8(v & 0xFF)] } else { bytes.append(UInt8(v)) }
            }
        }
        return bytes
    }

    static func be32(_ v: UInt32) -> [UInt8] {
        [UInt8(v >> 24), UInt8(v >> 16 & 0xFF), UInt8(v >> 8 & 0xFF), UInt8(v & 0xFF)]
    }

    static func appendChunk(_ type: String, _ payload: [UInt8], to png: inout Data) {
        let typeBytes = Array(type.utf8)
        png.append(contentsOf: be32(UInt32(payload.count)))
        png.append(contentsOf: typeBytes)
        png.append(contentsOf: payload)
        png.append(contentsOf: be32(crc32(typeBytes + payload)))
    }

    /// A zlib stream of stored deflate blocks.
    static func zlibStored(_ raw: [UInt8]) -> [UInt8] {
        var out: [UInt8] = [0x78, 0x01]
        var offset = 0
        repeat {
            let count = min(65535, raw.count - offset)
            let final: UInt8 = offset + count == raw.count ? 1 : 0
            out += [final, UInt8(count & 0xFF), UInt8(count >> 8), UInt8(~count & 0xFF), UInt8((~count >> 8) & 0xFF)]
            out += raw[offset..<offset + count]
            offset += count
        } while offset < raw.count
        out += be32(adler32(raw))
        return out
    }

    static func adler32(_ bytes: [UInt8]) -> UInt32 {
        var a: UInt32 = 1, b: UInt32 = 0
        for byte in bytes {
            a = (a + UInt32(byte)) % 65521
            b = (b + a) % 65521
        }
        return b << 16 | a
    }

    static let crcTable: [UInt32] = (0..<256).map { n in
        var c = UInt32(n)
        for _ in 0..<8 { c = c & 1 != 0 ? 0xEDB8_8320 ^ (c >> 1) : c >> 1 }
        return c
    }

    static func crc32(_ bytes: [UInt8]) -> UInt32 {
        var c: UInt32 = 0xFFFF_FFFF
        for byte in bytes { c = crcTable[Int((c ^ UInt32(byte)) & 0xFF)] ^ (c >> 8) }
        return c ^ 0xFFFF_FFFF
    }

    /// `png` with its IHDR dimensions replaced (CRC recomputed): a hostile header.
    static func replacingDimensions(of png: Data, width: UInt32, height: UInt32) -> Data {
        var bytes = [UInt8](png)
        bytes.replaceSubrange(16..<24, with: be32(width) + be32(height))
        bytes.replaceSubrange(29..<33, with: be32(crc32(Array(bytes[12..<29]))))
        return Data(bytes)
    }

    /// The premultiplied RGBA value a decoder must produce for pixel (`x`, `y`).
    func expectedPixel(x: Int, y: Int) -> SIMD4<UInt8> {
        let base = (y * width + x) * channels
        func to8(_ v: UInt16) -> Int {
            switch bitDepth {
            case 16: return Int(v >> 8)
            case 8: return Int(v)
            default: return Int(v) * 255 / ((1 << bitDepth) - 1)
            }
        }
        func trnsValue(_ i: Int) -> UInt16 {
            guard let t = transparency, t.count >= 2 * i + 2 else { return 0 }
            return UInt16(t[2 * i]) << 8 | UInt16(t[2 * i + 1])
        }
        var r = 0, g = 0, b = 0, a = 255
        switch colorType {
        case 0:
            let v = samples[base]
            r = to8(v); g = r; b = r
            if transparency != nil && v == trnsValue(0) { a = 0 }
        case 2:
            r = to8(samples[base]); g = to8(samples[base + 1]); b = to8(samples[base + 2])
            if transparency != nil && samples[base] == trnsValue(0) && samples[base + 1] == trnsValue(1)
                && samples[base + 2] == trnsValue(2)
            {
                a = 0
            }
        case 3:
            let index = Int(samples[base])
            let entry = palette[index]
            r = Int(entry.x); g = Int(entry.y); b = Int(entry.z)
            if let t = transparency, index < t.count { a = Int(t[index]) }
        case 4:
            r = to8(samples[base]); g = r; b = r; a = to8(samples[base + 1])
        default:
            r = to8(samples[base]); g = to8(samples[base + 1]); b = to8(samples[base + 2]); a = to8(samples[base + 3])
        }
        func pm(_ c: Int) -> UInt8 { UInt8((c * a + 127) / 255) }
        return SIMD4(pm(r), pm(g), pm(b), UInt8(a))
    }
}
