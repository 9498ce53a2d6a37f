/// The first image file directory (IFD) of TIFF-structured bytes: a TIFF or BigTIFF file, or the EXIF
/// payload of a JPEG APP1 segment or a PNG eXIf chunk. Every read is bounds-checked and lazy, so a
/// prefix of the data answers for the entries it holds.
///
/// ```swift
/// guard let directory = TIFFDirectory(bytes) else { return nil }       // not TIFF, or too short
/// let width = directory.entry(256).flatMap { directory.values(of: $0)?.first }
/// ```
struct TIFFDirectory {
    /// One directory entry (tag, type, count, and where its values are).
    struct Entry {
        /// The tag number.
        let tag: Int
        /// The field type (1 BYTE, 3 SHORT, 4 LONG, 16 LONG8, ...).
        let type: Int
        /// The number of values.
        let count: Int
        /// Offset of the first value: inside the entry when the values fit there, else where the
        /// entry points.
        let valueOffset: Int
    }

    /// The bytes, in the file's byte order.
    let reader: ByteReader
    /// Whether the file is a BigTIFF (64-bit offsets).
    let isBigTIFF: Bool
    /// Offset of the first directory.
    let offset: Int
    /// Entries the first directory declares.
    let entryCount: Int

    /// Bytes an entry takes, and the directory's size field.
    private var entrySize: Int { isBigTIFF ? 20 : 12 }
    private var countSize: Int { isBigTIFF ? 8 : 2 }

    /// The first directory of `bytes`; nil when they are not TIFF-structured or end before the
    /// directory's entry count.
    init?(_ bytes: UnsafeRawBufferPointer) {
        guard bytes.count >= 8 else { return nil }
        let littleEndian: Bool
        switch (bytes[0], bytes[1]) {
        case (0x49, 0x49): littleEndian = true
        case (0x4D, 0x4D): littleEndian = false
        default: return nil
        }
        let reader = ByteReader(bytes, littleEndian: littleEndian)
        switch reader.u16(at: 2) {
        case 42:
            isBigTIFF = false
            guard let first = reader.u32(at: 4) else { return nil }
            offset = first
            guard let count = reader.u16(at: first) else { return nil }
            entryCount = count
        case 43:
            // BigTIFF: offset size 8, then a 64-bit directory offset and entry count.
            guard reader.u16(at: 4) == 8, reader.u16(at: 6) == 0, let first = reader.u64(at: 8),
                let count = reader.u64(at: first)
            else { return nil }
            isBigTIFF = true
            offset = first
            entryCount = count
        default:
            return nil
        }
        self.reader = reader
    }

    /// Where the directory ends (after the next-directory offset), or nil when that overflows.
    var end: Int? {
        let (table, overflow) = entryCount.multipliedReportingOverflow(by: entrySize)
        guard !overflow, table <= Int(Int32.max) else { return nil }
        return offset + countSize + table + (isBigTIFF ? 8 : 4)
    }

    /// The entry for `tag`, or nil when the entries before it (or its own) are not all present.
    func entry(_ tag: Int) -> Entry? {
        for index in 0..<entryCount {
            let at = offset + countSize + index * entrySize
            guard let found = reader.u16(at: at) else { return nil }
            if found == tag { return entry(at: at) }
        }
        return nil
    }

    /// Every entry, or nil when the table is not all present.
    func entries() -> [Entry]? {
        var all: [Entry] = []
        for index in 0..<entryCount {
            guard let entry = entry(at: offset + countSize + index * entrySize) else { return nil }
            all.append(entry)
        }
        return all
    }

    private func entry(at start: Int) -> Entry? {
        guard let tag = reader.u16(at: start), let type = reader.u16(at: start + 2),
            let count = isBigTIFF ? reader.u64(at: start + 4) : reader.u32(at: start + 4)
        else { return nil }
        let size = TIFFDirectory.size(ofType: type)
        let (length, overflow) = count.multipliedReportingOverflow(by: size)
        let inline = isBigTIFF ? 8 : 4
        let valueField = start + (isBigTIFF ? 12 : 8)
        if !overflow, length <= inline {
            return Entry(tag: tag, type: type, count: count, valueOffset: valueField)
        }
        guard let pointer = isBigTIFF ? reader.u64(at: valueField) : reader.u32(at: valueField) else { return nil }
        return Entry(tag: tag, type: type, count: count, valueOffset: pointer)
    }

    /// Bytes one value of `type` takes (1 for unknown types).
    static func size(ofType type: Int) -> Int {
        switch type {
        case 3, 8: return 2
        case 4, 9, 11, 13: return 4
        case 5, 10, 12, 16, 17, 18: return 8
        default: return 1
        }
    }

    /// Where `entry`'s values end, or nil when that overflows.
    func valuesEnd(of entry: Entry) -> Int? {
        let (length, overflow) = entry.count.multipliedReportingOverflow(by: TIFFDirectory.size(ofType: entry.type))
        let (end, overflow2) = entry.valueOffset.addingReportingOverflow(length)
        return overflow || overflow2 ? nil : end
    }

    /// The integer values of a BYTE, SHORT, LONG or LONG8 entry (at most `limit` of them), or nil when
    /// the type is another or the values are not all present.
    func values(of entry: Entry, limit: Int = Int.max) -> [Int]? {
        let size = TIFFDirectory.size(ofType: entry.type)
        guard [1, 3, 4, 16].contains(entry.type), let end = valuesEnd(of: entry), end <= reader.count else {
            return nil
        }
        let count = min(entry.count, limit)
        var values: [Int] = []
        values.reserveCapacity(count)
        for i in 0..<count {
            let at = entry.valueOffset + i * size
            let value: Int?
            switch entry.type {
            case 1: value = reader.u8(at: at)
            case 3: value = reader.u16(at: at)
            case 4: value = reader.u32(at: at)
            default: value = reader.u64(at: at)
            }
            guard let value else { return nil }
            values.append(value)
        }
        return values
    }
}
