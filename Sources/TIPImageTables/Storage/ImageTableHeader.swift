import TIP

/// The first bytes of a table file: what it is and the format it was made for. Written once, when the file
/// is made (the file is made aside and renamed into place), and never changed afterwards: the number of
/// chunks comes from the file's length, so growing the file never rewrites the header.
///
/// Little-endian: magic `TIPITBL\0`, version, header length, width, height, pixel format, bytes per row,
/// entry length, entries per chunk, records length, chunk length, maximum count, record length, name and
/// family (length-prefixed, 128 bytes each), and a checksum of all of it in the last 8 of the first 4 KiB.
enum ImageTableHeader {
    /// Bytes that are written and checked.
    static let length = 4_096
    static let magic: [UInt8] = Array("TIPITBL".utf8) + [0]
    static let version: UInt32 = 1

    /// What reading a header found.
    enum Verdict: Equatable {
        case valid
        /// The file is a table of another format or version: it is rebuilt.
        case formatChanged
        /// Not a table header (bad magic or checksum): the file is damaged.
        case corrupt
    }

    /// The header of a table of `format`.
    static func encode(format: ImageTableFormat, layout: ImageTableLayout) -> [UInt8] {
        var bytes = [UInt8](repeating: 0, count: length)
        var offset = 0
        func put(_ value: some FixedWidthInteger) {
            withUnsafeBytes(of: value.littleEndian) { raw in
                for byte in raw { bytes[offset] = byte; offset += 1 }
            }
        }
        func put(string: String) {
            let utf8 = Array(string.utf8.prefix(128))
            put(UInt32(utf8.count))
            for (index, byte) in utf8.enumerated() { bytes[offset + index] = byte }
            offset += 128
        }
        for byte in magic { bytes[offset] = byte; offset += 1 }
        put(version)
        put(UInt32(ImageTableLayout.headerLength))
        put(UInt32(layout.width))
        put(UInt32(layout.height))
        put(UInt32(layout.pixelFormat.rawValue))
        put(UInt32(layout.bytesPerRow))
        put(UInt64(layout.entryLength))
        put(UInt64(layout.entriesPerChunk))
        put(UInt64(layout.recordsLength))
        put(UInt64(layout.chunkLength))
        put(UInt64(layout.maximumCount))
        put(UInt64(ImageTableLayout.recordLength))
        put(string: format.name)
        put(string: format.family)
        offset = length - 8
        put(checksum(bytes))
        return bytes
    }

    /// Compares `bytes` (at least ``length`` of them, read from a file) with the header `expected`.
    static func verdict(_ bytes: [UInt8], expected: [UInt8]) -> Verdict {
        guard bytes.count >= length, Array(bytes[0..<magic.count]) == magic else { return .corrupt }
        let stored = bytes[(length - 8)..<length].enumerated().reduce(UInt64(0)) {
            $0 | UInt64($1.element) << (8 * $1.offset)
        }
        guard stored == checksum(bytes) else { return .corrupt }
        return bytes[0..<length] == expected[0..<length] ? .valid : .formatChanged
    }

    private static func checksum(_ bytes: [UInt8]) -> UInt64 {
        bytes.withUnsafeBytes { raw in
            // The checksum word itself is left out: it is the last 8 of the checked bytes.
            var sum = ImageTableChecksum.Words(seed: 0x5449_5049_5442_4C31)
            for index in 0..<(length / 8 - 1) {
                sum.add(UInt64(littleEndian: raw.loadUnaligned(fromByteOffset: index * 8, as: UInt64.self)))
            }
            return sum.value
        }
    }
}
