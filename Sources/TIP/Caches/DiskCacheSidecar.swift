import Foundation

/// The metadata of one cache file kept in a sidecar file `<name>#meta`, for file systems without
/// user extended attributes. (`#` is always percent-encoded in safe names, so a sidecar name can never
/// be an entry's file name.)
///
/// Binary layout (little-endian): magic `TIPM2`, inode (8 bytes) and size (8 bytes) of the data file
/// it describes, the packed metadata (``DiskCacheMetadata/packed(maximumIdentifierLength:)``, with the
/// identifier whatever its length), finally an FNV-1a 64 checksum of everything before it. A data file is valid only
/// when its sidecar names its current inode and size, so a crash between writing the sidecar and renaming the data
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
    private static let magic = Array("TIPM2".utf8)

    /// The encoded bytes.
    var encoded: [UInt8] {
        var out = Self.magic
        withUnsafeBytes(of: inode.littleEndian) { out += $0 }
        withUnsafeBytes(of: size.littleEndian) { out += $0 }
        out += metadata.packed(maximumIdentifierLength: Int.max)
        withUnsafeBytes(of: Self.checksum(out).littleEndian) { out += $0 }
        return out
    }

    /// Decodes a sidecar; nil when malformed.
    init?(decoding bytes: [UInt8]) {
        let header = Self.magic.count + 16
        guard bytes.count >= header + 8, bytes.starts(with: Self.magic) else { return nil }
        let trailer = bytes.count - 8
        let decoded = bytes.withUnsafeBytes { raw -> (UInt64, Int64, UInt64, DiskCacheMetadata?) in
            let inode = UInt64(littleEndian: raw.loadUnaligned(fromByteOffset: Self.magic.count, as: UInt64.self))
            let size = Int64(littleEndian: raw.loadUnaligned(fromByteOffset: Self.magic.count + 8, as: Int64.self))
            let stored = UInt64(littleEndian: raw.loadUnaligned(fromByteOffset: trailer, as: UInt64.self))
            return (
                inode, size, stored, DiskCacheMetadata(packed: UnsafeRawBufferPointer(rebasing: raw[header..<trailer]))
            )
        }
        guard decoded.2 == Self.checksum(bytes.prefix(trailer)), let metadata = decoded.3 else { return nil }
        self.init(metadata: metadata, inode: decoded.0, size: decoded.1)
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
