import CPNG
import Foundation

/// The checksum the disk cache keeps for each file's contents: CRC-32 (libdeflate's, which folds with
/// carry-less multiplication where the CPU has it: several GB/s, a few microseconds for a typical image).
enum ContentChecksum {
    /// The CRC-32 of `bytes`.
    static func of(_ bytes: Data) -> UInt32 { continuing(0, with: bytes) }

    /// The CRC-32 of the bytes `crc` was computed over followed by `bytes` (a file checksummed as it is written).
    static func continuing(_ crc: UInt32, with bytes: Data) -> UInt32 {
        bytes.withUnsafeBytes { buffer in
            guard let base = buffer.baseAddress, buffer.count > 0 else { return crc }
            return tip_png_crc32(crc, base.assumingMemoryBound(to: UInt8.self), buffer.count)
        }
    }
}
