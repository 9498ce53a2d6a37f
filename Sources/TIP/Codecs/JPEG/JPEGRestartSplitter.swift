import Foundation

/// Splits a baseline JPEG whose scan has restart markers into independent JPEG streams of whole MCU
/// rows, so that the parts can be entropy-decoded in parallel and stacked into one bitmap.
///
/// Huffman decoding is inherently sequential and dominates JPEG decode time, except where the encoder
/// put restart markers: each restart interval resets the DC predictors and starts on a byte boundary,
/// so a stream cut at a restart marker that begins an MCU row decodes on its own. Each part keeps every
/// header segment (tables included) with the frame height changed to its rows, and the restart
/// markers after the cut are renumbered from RST0, as a decoder expects.
///
/// Only streams whose output cannot differ from one sequential decode are split: sequential Huffman
/// frames (SOF0/SOF1), one interleaved scan with every component, and no vertical chroma subsampling
/// (vertical upsampling would need rows across the cut).
struct JPEGRestartSplitter {
    /// One independent JPEG stream and the first image row (unscaled) it covers.
    struct Part {
        let data: Data
        let firstRow: Int
        let rowCount: Int
    }

    /// Up to `parts` independent streams covering `data` top to bottom, or nil when the stream cannot
    /// be split (no restart markers, progressive, vertical subsampling, too small, malformed).
    static func split(_ data: Data, parts: Int) -> [Part]? {
        guard parts >= 2 else { return nil }
        return data.withUnsafeBytes { raw -> [Part]? in
            guard let base = raw.bindMemory(to: UInt8.self).baseAddress else { return nil }
            return split(base, count: raw.count, parts: parts)
        }
    }

    private struct Frame {
        var sofOffset = -1  // offset of the SOF marker's 0xFF
        var width = 0
        var height = 0
        var maxH = 1
        var maxV = 1
        var componentCount = 0
        var uniformVertical = true
        var restartInterval = 0
        var scanComponents = 0
        var entropyStart = -1  // first byte after the SOS header
    }

    /// ``split(_:parts:)`` over raw bytes.
    static func split(_ bytes: UnsafePointer<UInt8>, count: Int, parts: Int) -> [Part]? {
        guard count > 4, bytes[0] == 0xFF, bytes[1] == 0xD8 else { return nil }
        guard let frame = parseHeaders(bytes, count: count) else { return nil }
        guard frame.restartInterval > 0, frame.sofOffset > 0, frame.entropyStart > 0,
            frame.scanComponents == frame.componentCount, frame.uniformVertical,
            frame.width > 0, frame.height > 0
        else { return nil }
        let mcuWidth = 8 * frame.maxH, mcuHeight = 8 * frame.maxV
        let mcusPerRow = (frame.width + mcuWidth - 1) / mcuWidth
        let mcuRows = (frame.height + mcuHeight - 1) / mcuHeight
        guard mcuRows >= 2 * parts else { return nil }

        // Restart markers in the entropy-coded data, in order: offset of each marker's 0xFF.
        var markers: [Int] = []
        markers.reserveCapacity(count / 4096)
        var i = frame.entropyStart
        while i < count - 1 {
            guard let p = memchr(bytes + i, 0xFF, count - 1 - i) else { break }
            let j = bytes.distance(to: p.assumingMemoryBound(to: UInt8.self))
            let next = bytes[j + 1]
            if next == 0x00 || next == 0xFF {
                i = j + 1
            } else if next >= 0xD0 && next <= 0xD7 {
                markers.append(j)
                i = j + 2
            } else {
                break  // EOI or another marker ends the scan
            }
        }

        // Cut at MCU rows that begin a restart interval, as evenly as possible.
        var cuts: [Int] = []  // MCU row at which each later part starts
        for k in 1..<parts {
            let ideal = mcuRows * k / parts
            var best: Int?
            for delta in 0..<mcuRows {
                for row in [ideal - delta, ideal + delta] where row > (cuts.last ?? 0) && row < mcuRows {
                    if (row * mcusPerRow) % frame.restartInterval == 0 { best = row; break }
                }
                if best != nil { break }
            }
            guard let row = best else { return nil }
            cuts.append(row)
        }
        // The marker before interval n (n >= 1) is markers[n - 1].
        var pieces: [(start: Int, stop: Int, firstRow: Int, rows: Int)] = []
        var previousStart = frame.entropyStart
        var previousRow = 0
        for row in cuts {
            let interval = row * mcusPerRow / frame.restartInterval
            guard interval >= 1, interval - 1 < markers.count else { return nil }
            let marker = markers[interval - 1]
            pieces.append((previousStart, marker, previousRow, row * mcuHeight - previousRow))
            previousStart = marker + 2
            previousRow = row * mcuHeight
        }
        pieces.append((previousStart, count, previousRow, frame.height - previousRow))

        let header = UnsafeBufferPointer(start: bytes, count: frame.entropyStart)
        var result: [Part] = []
        for (index, piece) in pieces.enumerated() {
            var out = Data(capacity: header.count + piece.stop - piece.start + 2)
            out.append(header)
            // Frame height: two bytes at SOF + 5.
            let heightOffset = frame.sofOffset + 5
            out[heightOffset] = UInt8(piece.rows >> 8)
            out[heightOffset + 1] = UInt8(piece.rows & 0xFF)
            let bodyStart = out.count
            out.append(bytes + piece.start, count: piece.stop - piece.start)
            if index > 0 {
                // Renumber the restart markers of this part from RST0.
                var sequence = 0
                out.withUnsafeMutableBytes { body in
                    let b = body.bindMemory(to: UInt8.self).baseAddress!
                    for marker in markers where marker > piece.start && marker < piece.stop {
                        b[bodyStart + marker - piece.start + 1] = 0xD0 + UInt8(sequence & 7)
                        sequence += 1
                    }
                }
            }
            if index < pieces.count - 1 {
                out.append(contentsOf: [0xFF, 0xD9])
            }
            result.append(Part(data: out, firstRow: piece.firstRow, rowCount: piece.rows))
        }
        return result
    }

    /// Reads the segments from SOI to the first SOS header.
    private static func parseHeaders(_ bytes: UnsafePointer<UInt8>, count: Int) -> Frame? {
        var frame = Frame()
        var i = 2
        while i + 4 <= count {
            guard bytes[i] == 0xFF else { return nil }
            let marker = bytes[i + 1]
            if marker == 0xFF { i += 1; continue }  // fill byte
            if marker == 0x01 || (marker >= 0xD0 && marker <= 0xD7) { i += 2; continue }
            let length = Int(bytes[i + 2]) << 8 | Int(bytes[i + 3])
            guard length >= 2, i + 2 + length <= count else { return nil }
            let segment = bytes + i + 4
            switch marker {
            case 0xC0, 0xC1:
                guard length >= 8 else { return nil }
                frame.sofOffset = i
                frame.height = Int(segment[1]) << 8 | Int(segment[2])
                frame.width = Int(segment[3]) << 8 | Int(segment[4])
                frame.componentCount = Int(segment[5])
                guard frame.componentCount >= 1, length >= 8 + 3 * frame.componentCount else { return nil }
                var verticals: Set<Int> = []
                for c in 0..<frame.componentCount {
                    let sampling = segment[6 + 3 * c + 1]
                    frame.maxH = max(frame.maxH, Int(sampling >> 4))
                    frame.maxV = max(frame.maxV, Int(sampling & 0x0F))
                    verticals.insert(Int(sampling & 0x0F))
                }
                frame.uniformVertical = verticals.count == 1
            case 0xC2, 0xC3, 0xC5...0xC7, 0xC9...0xCB, 0xCD...0xCF:
                return nil  // progressive, lossless, hierarchical or arithmetic: not split
            case 0xDD:
                guard length >= 4 else { return nil }
                frame.restartInterval = Int(segment[0]) << 8 | Int(segment[1])
            case 0xDA:
                frame.scanComponents = Int(segment[0])
                frame.entropyStart = i + 2 + length
                return frame
            case 0xD9:
                return nil
            default:
                break
            }
            i += 2 + length
        }
        return nil
    }
}
