import Foundation

/// The metadata of one cache file kept in a sidecar file `<name>#meta`, for file systems without
/// user extended attributes. (`#` is always percent-encoded in safe names, so a sidecar name can never
/// be an entry's file name.)
///
/// Binary layout (little-endian): magic `TIPM1`, inode (8 bytes) and size (8 bytes) of the data file
/// it describes, key count (2), then per key: length (1), key bytes, value length (4), value bytes;
/// finally an FNV-1a 64 checksum of everything before it. A data file is valid only when its sidecar
/// names its current inode and size, so a crash between writing the sidecar and renaming the data
/// file (or a leftover sidecar next to a different file) is detected and the entry dropped.
struct DiskCacheSidecar: Equatable {
    /// The metadata recorded.
    var metadata: DiskCacheMetadata
    /// Inode of the data file described.
    var inode: UInt64
    /// Byte size of the data file described.
    var size: Int64

    /// Sidecar suffix appended to the data file name.
    static let suffix = "#meta"

    /// The sidecar's file name for data file `fileName`: `<fileName>#meta`, or `#meta-<SHA-1 of the
    /// name>` when that would exceed `NAME_MAX` (255 bytes; safe names reach 251 plus `.tmp`).
    static func name(for fileName: String) -> String {
        let plain = fileName + suffix
        return plain.utf8.count <= 255 ? plain : suffix + "-" + SHA1.hexDigest(of: Array(fileName.utf8))
    }
    private static let magic = Array("TIPM1".utf8)

    /// The encoded bytes.
    var encoded: [UInt8] {
        var out = Self.magic
        func append<T: FixedWidthInteger>(_ value: T) { withUnsafeBytes(of: value.littleEndian) { out += $0 } }
        append(inode)
        append(size)
        let values = metadata.encodedValues
        append(UInt16(values.count))
        for (key, bytes) in values {
            append(UInt8(key.utf8.count))
            out += key.utf8
            append(UInt32(bytes.count))
            out += bytes
        }
        append(Self.checksum(out))
        return out
    }

    /// Decodes a sidecar; nil when malformed.
    init?(decoding bytes: [UInt8]) {
        guard bytes.count >= Self.magic.count + 26, bytes.starts(with: Self.magic) else { return nil }
        let body = bytes.prefix(bytes.count - 8)
        var position = Self.magic.count
        func read<T: FixedWidthInteger>(_: T.Type) -> T? {
            let width = MemoryLayout<T>.size
            guard position + width <= body.count else { return nil }
            var value: T = 0
            for index in 0..<width { value |= T(body[position + index]) << (8 * index) }
            position += width
            return value
        }
        func take(_ count: Int) -> [UInt8]? {
            guard count >= 0, position + count <= body.count else { return nil }
            defer { position += count }
            return Array(body[position..<position + count])
        }
        let trailer = bytes.count - 8
        var stored: UInt64 = 0
        for index in 0..<8 { stored |= UInt64(bytes[trailer + index]) << (8 * index) }
        guard stored == Self.checksum(body), let inode = read(UInt64.self), let size = read(Int64.self),
              let count = read(UInt16.self) else { return nil }
        var values: [String: [UInt8]] = [:]
        for _ in 0..<count {
            guard let keyLength = read(UInt8.self), let key = take(Int(keyLength)),
                  let valueLength = read(UInt32.self), let value = take(Int(valueLength)) else { return nil }
            values[String(decoding: key, as: UTF8.self)] = value
        }
        guard position == body.count, let metadata = DiskCacheMetadata(decoding: { values[$0] }) else { return nil }
        self.init(metadata: metadata, inode: inode, size: size)
    }

    /// A sidecar for the data file with `inode` and `size`.
    init(metadata: DiskCacheMetadata, inode: UInt64, size: Int64) {
        self.metadata = metadata
        self.inode = inode
        self.size = size
    }

    private static func checksum<C: Collection>(_ bytes: C) -> UInt64 where C.Element == UInt8 {
        var hash: UInt64 = 0xcbf2_9ce4_8422_2325
        for byte in bytes { hash = (hash ^ UInt64(byte)) &* 0x0100_0000_01b3 }
        return hash
    }
}
