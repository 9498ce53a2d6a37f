import CPNG

/// Writes PNG chunks: length, type, data and the CRC over type and data.
///
/// ```swift
/// var png = PNGChunkScanner.signature
/// PNGChunk.append("IEND", [UInt8](), to: &png)
/// ```
enum PNGChunk {
    /// Appends a `type` chunk holding `data` to `stream`.
    static func append<C: Collection>(_ type: String, _ data: C, to stream: inout [UInt8]) where C.Element == UInt8 {
        let length = data.count
        stream += bigEndian(length)
        let typeStart = stream.count
        stream += Array(type.utf8)
        stream += data
        let crc = stream.withUnsafeBufferPointer { all in
            all.baseAddress.map { tip_png_crc32(0, $0 + typeStart, all.count - typeStart) } ?? 0
        }
        stream += bigEndian(Int(crc))
    }

    /// The low 32 bits of `value`, most significant byte first.
    static func bigEndian(_ value: Int) -> [UInt8] {
        [
            UInt8(truncatingIfNeeded: value >> 24), UInt8(truncatingIfNeeded: value >> 16),
            UInt8(truncatingIfNeeded: value >> 8), UInt8(truncatingIfNeeded: value),
        ]
    }
}
