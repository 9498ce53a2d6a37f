import Foundation

@testable import TIP

/// A PNG as its list of chunks, for tests that edit an APNG's chunks and write it back with correct
/// CRCs (or, with `keepsCRC`, the original ones).
struct PNGChunkList {
    struct Chunk {
        var type: String
        var data: [UInt8]
        /// The CRC the file carried; written back as it is when `keepsCRC`.
        var storedCRC: [UInt8]
        var keepsCRC = false
    }

    var chunks: [Chunk]

    init(_ png: Data) {
        let bytes = [UInt8](png)
        var chunks: [Chunk] = []
        var cursor = 8
        while cursor + 12 <= bytes.count {
            let length =
                Int(bytes[cursor]) << 24 | Int(bytes[cursor + 1]) << 16 | Int(bytes[cursor + 2]) << 8
                | Int(bytes[cursor + 3])
            guard cursor + 12 + length <= bytes.count else { break }
            chunks.append(
                Chunk(
                    type: String(decoding: bytes[(cursor + 4)..<(cursor + 8)], as: UTF8.self),
                    data: Array(bytes[(cursor + 8)..<(cursor + 8 + length)]),
                    storedCRC: Array(bytes[(cursor + 8 + length)..<(cursor + 12 + length)])))
            cursor += 12 + length
        }
        self.chunks = chunks
    }

    /// Indices of the chunks of `type`.
    func indices(of type: String) -> [Int] {
        chunks.indices.filter { chunks[$0].type == type }
    }

    /// The PNG, CRCs recomputed unless a chunk keeps its stored one.
    var data: Data {
        var out = PNGChunkScanner.signature
        for chunk in chunks {
            if chunk.keepsCRC {
                out += PNGChunk.bigEndian(chunk.data.count) + Array(chunk.type.utf8) + chunk.data + chunk.storedCRC
            } else {
                PNGChunk.append(chunk.type, chunk.data, to: &out)
            }
        }
        return Data(out)
    }

    /// Crops `bitmap` to the `height`-row band starting at row `top` (a frame of a reference film strip).
    static func band(_ bitmap: Bitmap, top: Int, height: Int) -> Bitmap {
        var out = Bitmap(width: bitmap.width, height: height, format: bitmap.format)!
        for y in 0..<height {
            for x in 0..<bitmap.width { out.setPixel(x: x, y: y, bitmap.pixel(x: x, y: top + y)) }
        }
        return out
    }
}
