import Foundation

/// The top-level chunks of a (possibly truncated) animated WebP: how many `ANMF` frame chunks are
/// wholly present and where the last of them ends. A plain walk over chunk headers, no decoding.
struct WebPAnimationLayout {
    /// Where the file ends according to its RIFF header (8 + the RIFF size).
    var riffEnd: Int
    /// `ANMF` chunks wholly present.
    var completeFrameCount: Int
    /// The byte offset just past the first complete `ANMF` chunk (0 when there is none).
    var endOfFirstCompleteFrame: Int
    /// The byte offset just past the last complete `ANMF` chunk (0 when there is none).
    var endOfLastCompleteFrame: Int
    /// Whether every byte the RIFF header announces is present.
    var isComplete: Bool

    /// The layout of `bytes`, or nil before the 12-byte RIFF header.
    static func scan(_ bytes: UnsafeRawBufferPointer) -> WebPAnimationLayout? {
        guard bytes.count >= 12 else { return nil }
        let riffEnd = 8 + Int(readLE32(bytes, at: 4))
        let limit = min(bytes.count, riffEnd)
        var offset = 12
        var frames = 0, firstEnd = 0, lastEnd = 0
        while offset + 8 <= limit {
            let size = Int(readLE32(bytes, at: offset + 4))
            let payloadEnd = offset + 8 + size
            guard payloadEnd <= limit else { break }
            let end = min(payloadEnd + (size & 1), limit)
            if bytes[offset] == 0x41, bytes[offset + 1] == 0x4E, bytes[offset + 2] == 0x4D, bytes[offset + 3] == 0x46 {
                frames += 1
                if frames == 1 { firstEnd = end }
                lastEnd = end
            }
            offset = end
        }
        return WebPAnimationLayout(
            riffEnd: riffEnd, completeFrameCount: frames, endOfFirstCompleteFrame: firstEnd,
            endOfLastCompleteFrame: lastEnd,
            isComplete: bytes.count >= riffEnd)
    }

    /// The first `length` bytes of `bytes` as a file of its own: the RIFF size rewritten to match.
    static func truncatedFile(_ bytes: UnsafeRawBufferPointer, length: Int) -> Data {
        var file = Data(bytes[0..<length])
        let size = UInt32(truncatingIfNeeded: length - 8)
        for i in 0..<4 { file[4 + i] = UInt8(truncatingIfNeeded: size >> (8 * UInt32(i))) }
        return file
    }

    private static func readLE32(_ bytes: UnsafeRawBufferPointer, at offset: Int) -> UInt32 {
        UInt32(bytes[offset]) | UInt32(bytes[offset + 1]) << 8 | UInt32(bytes[offset + 2]) << 16 | UInt32(
            bytes[offset + 3]) << 24
    }
}
