/// Bounds-checked reads of little- or big-endian integers from a file's bytes: every read past the end
/// returns nil instead of trapping, so header parsers of hostile files stay simple.
///
/// ```swift
/// let reader = ByteReader(bytes, littleEndian: true)
/// guard let width = reader.u32(at: 18) else { return nil }   // nil: too few bytes
/// ```
struct ByteReader {
    /// The bytes read (a view; the caller keeps them alive).
    let bytes: UnsafeRawBufferPointer
    /// Byte order of multi-byte values.
    let littleEndian: Bool

    /// A reader over `bytes` in the given byte order.
    init(_ bytes: UnsafeRawBufferPointer, littleEndian: Bool) {
        self.bytes = bytes
        self.littleEndian = littleEndian
    }

    /// Number of bytes.
    var count: Int { bytes.count }

    /// Whether `length` bytes starting at `offset` are all present.
    func contains(_ offset: Int, length: Int) -> Bool {
        offset >= 0 && length >= 0 && offset <= bytes.count && length <= bytes.count - offset
    }

    /// The byte at `offset`.
    func u8(at offset: Int) -> Int? {
        contains(offset, length: 1) ? Int(bytes[offset]) : nil
    }

    /// The 16-bit unsigned value at `offset`.
    func u16(at offset: Int) -> Int? {
        guard contains(offset, length: 2) else { return nil }
        let a = Int(bytes[offset]), b = Int(bytes[offset + 1])
        return littleEndian ? a | b << 8 : a << 8 | b
    }

    /// The 32-bit unsigned value at `offset`.
    func u32(at offset: Int) -> Int? {
        guard contains(offset, length: 4) else { return nil }
        let value = bytes.loadUnaligned(fromByteOffset: offset, as: UInt32.self)
        return Int(littleEndian ? UInt32(littleEndian: value) : UInt32(bigEndian: value))
    }

    /// The 32-bit signed value at `offset`.
    func i32(at offset: Int) -> Int? {
        u32(at: offset).map { Int(Int32(truncatingIfNeeded: $0)) }
    }

    /// The 64-bit unsigned value at `offset`, or nil when it does not fit an `Int`.
    func u64(at offset: Int) -> Int? {
        guard contains(offset, length: 8) else { return nil }
        let raw = bytes.loadUnaligned(fromByteOffset: offset, as: UInt64.self)
        let value = littleEndian ? UInt64(littleEndian: raw) : UInt64(bigEndian: raw)
        return value <= UInt64(Int.max) ? Int(value) : nil
    }
}
