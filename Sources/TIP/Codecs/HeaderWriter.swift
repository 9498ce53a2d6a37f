/// Writes header fields (bytes, 16- and 32-bit integers in one byte order) into a buffer the caller
/// sized for them.
///
/// ```swift
/// var writer = HeaderWriter(buffer, littleEndian: true)
/// writer.bytes([0x42, 0x4D])
/// writer.u32(fileSize)
/// ```
struct HeaderWriter {
    private let buffer: UnsafeMutableRawBufferPointer
    private let littleEndian: Bool
    /// Bytes written so far.
    private(set) var offset = 0

    /// A writer filling `buffer` from its start; `littleEndian` false writes network byte order.
    init(_ buffer: UnsafeMutableRawBufferPointer, littleEndian: Bool = true) {
        self.buffer = buffer
        self.littleEndian = littleEndian
    }

    /// Writes `values` as they are.
    mutating func bytes(_ values: [UInt8]) {
        for value in values {
            buffer[offset] = value
            offset += 1
        }
    }

    /// Writes the low 16 bits of `value`.
    mutating func u16(_ value: Int) {
        let low = UInt8(truncatingIfNeeded: value), high = UInt8(truncatingIfNeeded: value >> 8)
        bytes(littleEndian ? [low, high] : [high, low])
    }

    /// Writes the low 32 bits of `value`.
    mutating func u32(_ value: Int) {
        let little = (0..<4).map { UInt8(truncatingIfNeeded: value >> ($0 * 8)) }
        bytes(littleEndian ? little : little.reversed())
    }
}
