import Foundation

/// The length and checksum a disk-cache file's metadata records of its contents (beyond TIP), and
/// checking bytes read back against them. Entries written before these keys existed have neither and
/// are served unchecked.
extension DiskCacheMetadata {
    /// Why bytes read back do not match what was written.
    enum ContentMismatch: Error, Equatable, CustomStringConvertible {
        /// The file holds `actual` bytes instead of `expected`.
        case length(expected: Int64, actual: Int64)
        /// The bytes' CRC-32 is `actual` instead of `expected`.
        case checksum(expected: UInt32, actual: UInt32)

        var description: String {
            switch self {
            case let .length(expected, actual):
                "the file holds \(actual) bytes, \(expected) were written"
            case let .checksum(expected, actual):
                "the contents' CRC-32 is \(Self.hex(actual)), \(Self.hex(expected)) was written"
            }
        }

        private static func hex(_ value: UInt32) -> String {
            let digits = String(value, radix: 16)
            return "0x" + String(repeating: "0", count: max(0, 8 - digits.count)) + digits
        }
    }

    /// A file's length and CRC-32, as a writer that checksummed its bytes while writing them knows them.
    struct Contents: Equatable {
        var length: Int64
        var checksum: UInt32
    }

    /// This record with the length and checksum of `bytes`.
    func recordingContents(of bytes: Data) -> DiskCacheMetadata {
        recording(Contents(length: Int64(bytes.count), checksum: ContentChecksum.of(bytes)))
    }

    /// This record with `contents`' length and checksum.
    func recording(_ contents: Contents) -> DiskCacheMetadata {
        var metadata = self
        metadata.contentLength = contents.length
        metadata.contentChecksum = contents.checksum
        return metadata
    }

    /// Nil when `bytes` match the recorded length and checksum (or none was recorded), else the mismatch.
    func contentMismatch(in bytes: Data) -> ContentMismatch? {
        if let contentLength, contentLength != Int64(bytes.count) {
            return .length(expected: contentLength, actual: Int64(bytes.count))
        }
        if let contentChecksum {
            let actual = ContentChecksum.of(bytes)
            if actual != contentChecksum { return .checksum(expected: contentChecksum, actual: actual) }
        }
        return nil
    }

    /// Whether a file of `size` bytes can hold these contents (always, when no length was recorded).
    func contentLengthMatches(_ size: Int64) -> Bool {
        contentLength.map { $0 == size } ?? true
    }
}
