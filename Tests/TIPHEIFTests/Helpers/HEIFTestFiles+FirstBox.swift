import Foundation

extension HEIFTestFiles {
    /// What ``withFirstBox(_:size:majorBrand:)`` cannot rewrite.
    struct RewriteError: Error, CustomStringConvertible {
        let description: String
    }

    /// `file` (a HEIC or AVIF whose first box is `ftyp`) with that box grown to `size` bytes by more
    /// `mif1` compatible brands, its major brand replaced by `majorBrand` when given, and the `iloc`
    /// offsets moved to match, so the file still decodes. `size` 256 makes the file start
    /// `00 00 01 00`, as an icon does.
    static func withFirstBox(_ file: Data, size: Int, majorBrand: String? = nil) throws -> Data {
        var bytes = [UInt8](file)
        guard bytes.count >= 16, String(decoding: bytes[4..<8], as: UTF8.self) == "ftyp" else {
            throw RewriteError(description: "no ftyp box first")
        }
        let oldSize = Int(readBE(bytes, 0, 4))
        let delta = size - oldSize
        guard delta >= 0, delta % 4 == 0, size <= Int(UInt32.max) else {
            throw RewriteError(description: "cannot grow a \(oldSize)-byte ftyp to \(size)")
        }
        if let majorBrand {
            bytes.replaceSubrange(8..<12, with: Array(majorBrand.utf8.prefix(4)))
        }
        bytes.insert(contentsOf: Array(repeating: Array("mif1".utf8), count: delta / 4).joined(), at: oldSize)
        writeBE(&bytes, 0, 4, UInt64(size))
        try moveItemLocations(&bytes, by: delta, from: size)
        return Data(bytes)
    }

    /// Adds `delta` to every file offset of the `iloc` box inside the top-level `meta` box.
    private static func moveItemLocations(_ bytes: inout [UInt8], by delta: Int, from start: Int) throws {
        // Top-level boxes, then `meta`'s children (meta is a full box: 4 bytes of version and flags).
        guard let meta = box("meta", in: bytes, from: start, to: bytes.count),
            let iloc = box("iloc", in: bytes, from: meta.payload + 4, to: meta.end)
        else {
            throw RewriteError(description: "no meta/iloc box")
        }
        var at = iloc.payload
        let version = Int(bytes[at])
        at += 4
        let offsetSize = Int(bytes[at] >> 4), lengthSize = Int(bytes[at] & 15)
        let baseOffsetSize = Int(bytes[at + 1] >> 4), indexSize = version > 0 ? Int(bytes[at + 1] & 15) : 0
        at += 2
        let idSize = version < 2 ? 2 : 4
        let itemCount = Int(readBE(bytes, at, idSize))
        at += idSize
        for _ in 0..<itemCount {
            at += idSize
            var constructionMethod = 0
            if version > 0 {
                constructionMethod = Int(readBE(bytes, at, 2) & 15)
                at += 2
            }
            at += 2  // data_reference_index
            // Method 0 is a file offset; 1 (idat) and 2 (item) are not moved by a longer ftyp.
            let moves = constructionMethod == 0
            if moves && baseOffsetSize > 0 {
                writeBE(&bytes, at, baseOffsetSize, readBE(bytes, at, baseOffsetSize) + UInt64(delta))
            }
            at += baseOffsetSize
            let extentCount = Int(readBE(bytes, at, 2))
            at += 2
            for _ in 0..<extentCount {
                at += indexSize
                if moves && baseOffsetSize == 0 && offsetSize > 0 {
                    writeBE(&bytes, at, offsetSize, readBE(bytes, at, offsetSize) + UInt64(delta))
                }
                at += offsetSize + lengthSize
            }
        }
    }

    /// The first box of `type` between `start` and `end` (32-bit sizes only).
    private static func box(_ type: String, in bytes: [UInt8], from start: Int, to end: Int) -> (
        payload: Int, end: Int
    )? {
        var at = start
        while at + 8 <= end {
            let size = Int(readBE(bytes, at, 4))
            guard size >= 8, at + size <= end else { return nil }
            if String(decoding: bytes[(at + 4)..<(at + 8)], as: UTF8.self) == type { return (at + 8, at + size) }
            at += size
        }
        return nil
    }

    private static func readBE(_ bytes: [UInt8], _ at: Int, _ count: Int) -> UInt64 {
        bytes[at..<(at + count)].reduce(0) { $0 << 8 | UInt64($1) }
    }

    private static func writeBE(_ bytes: inout [UInt8], _ at: Int, _ count: Int, _ value: UInt64) {
        for i in 0..<count {
            bytes[at + i] = UInt8(truncatingIfNeeded: value >> (8 * (count - 1 - i)))
        }
    }
}
