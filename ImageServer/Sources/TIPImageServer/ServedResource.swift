import Foundation
import NIOCore

/// A body the server can send, with the validators it is sent with.
struct ServedResource: Sendable {
    /// The whole body (readable bytes); responses share its storage.
    var body: ByteBuffer
    /// The `Content-Type` value.
    var contentType: String
    /// The base `Last-Modified` date (before validator changes).
    var lastModified: Date
    /// A hash of the body, the base of the strong `ETag`.
    var bodyHash: UInt64

    /// `Last-Modified` and `ETag` values after `generation` validator changes.
    func validators(generation: Int) -> (lastModified: String, etag: String) {
        let date = lastModified.addingTimeInterval(TimeInterval(generation))
        let hash = String(bodyHash, radix: 16)
        let etag = generation == 0 ? "\"\(hash)\"" : "\"\(hash)-\(generation)\""
        return (HTTPDate.string(from: date), etag)
    }

    /// A 64-bit FNV-1a style hash of the readable bytes of `buffer`, eight bytes at a time.
    static func hash(_ buffer: ByteBuffer) -> UInt64 {
        let prime: UInt64 = 0x0000_0100_0000_01B3
        var hash: UInt64 = 0xCBF2_9CE4_8422_2325 ^ UInt64(buffer.readableBytes)
        buffer.withUnsafeReadableBytes { raw in
            let count = raw.count
            var offset = 0
            while offset + 8 <= count {
                hash = (hash ^ raw.loadUnaligned(fromByteOffset: offset, as: UInt64.self)) &* prime
                hash ^= hash >> 29
                offset += 8
            }
            while offset < count {
                hash = (hash ^ UInt64(raw[offset])) &* prime
                offset += 1
            }
        }
        return hash
    }
}
