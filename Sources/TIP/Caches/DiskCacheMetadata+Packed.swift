/// TIP's metadata keys and encodings packed into one value, so a file's metadata is one extended
/// attribute (`user.TIP`): reading 100,000 entries at start-up then costs one `fgetxattr` per file
/// instead of one per key (measured: 28 µs per file with 13 attributes on ext4, where they spill
/// out of the inode into a separate block).
///
/// Layout: magic `TIPK1`, a UInt16 count, then per value a UInt8 key length, the key, a UInt32 value
/// length and the value (little endian). The values are exactly TIP's encodings
/// (``DiskCacheMetadata/encodedValues``).
extension DiskCacheMetadata {
    /// The attribute name (in the `user.` namespace) holding the packed metadata.
    static let packedAttributeName = "TIP"

    private static let packedMagic = Array("TIPK1".utf8)

    /// The packed bytes, leaving `ID` out when longer than ``maximumAttributeIdentifierLength``.
    var packed: [UInt8] { packed(maximumIdentifierLength: Self.maximumAttributeIdentifierLength) }

    /// The packed bytes, leaving `ID` out when longer than `maximumIdentifierLength` UTF-8 bytes.
    func packed(maximumIdentifierLength: Int) -> [UInt8] {
        var out = Self.packedMagic
        let values = encodedValues(maximumIdentifierLength: maximumIdentifierLength)
        func append<T: FixedWidthInteger>(_ value: T) { withUnsafeBytes(of: value.littleEndian) { out += $0 } }
        append(UInt16(values.count))
        for (key, bytes) in values {
            append(UInt8(key.utf8.count))
            out += key.utf8
            append(UInt32(bytes.count))
            out += bytes
        }
        return out
    }

    /// Where a packed record's keys and values lie in `bytes`, in order; nil when malformed.
    static func packedFields(_ bytes: UnsafeRawBufferPointer) -> [(key: Range<Int>, value: Range<Int>)]? {
        var offset = 0
        func take(_ count: Int) -> Range<Int>? {
            guard count >= 0, offset + count <= bytes.count else { return nil }
            defer { offset += count }
            return offset..<(offset + count)
        }
        func read<T: FixedWidthInteger>(_: T.Type) -> T? {
            take(MemoryLayout<T>.size).map {
                T(littleEndian: bytes.loadUnaligned(fromByteOffset: $0.lowerBound, as: T.self))
            }
        }
        guard let magic = take(packedMagic.count), bytes[magic].elementsEqual(packedMagic),
            let count = read(UInt16.self)
        else { return nil }
        var fields: [(key: Range<Int>, value: Range<Int>)] = []
        fields.reserveCapacity(Int(count))
        for _ in 0..<count {
            guard let keyLength = read(UInt8.self), let key = take(Int(keyLength)),
                let valueLength = read(UInt32.self), let value = take(Int(valueLength))
            else { return nil }
            fields.append((key, value))
        }
        return offset == bytes.count ? fields : nil
    }

    /// The raw values of a packed record by key (the last of a repeated key); nil when malformed.
    static func unpackValues(_ bytes: UnsafeRawBufferPointer) -> [String: [UInt8]]? {
        guard let fields = packedFields(bytes) else { return nil }
        var values: [String: [UInt8]] = [:]
        for field in fields { values[String(decoding: bytes[field.key], as: UTF8.self)] = Array(bytes[field.value]) }
        return values
    }

    /// Decodes a packed record; nil when malformed or missing required keys. Looks the keys up in place (a
    /// start-up scan decodes one record per file): the last of a repeated key counts, as in ``unpackValues(_:)``.
    init?(packed bytes: UnsafeRawBufferPointer) {
        guard let fields = Self.packedFields(bytes) else { return nil }
        self.init(decoding: { key in
            let wanted = key.utf8
            for field in fields.reversed() where field.key.count == wanted.count {
                if bytes[field.key].elementsEqual(wanted) { return Array(bytes[field.value]) }
            }
            return nil
        })
    }
}
