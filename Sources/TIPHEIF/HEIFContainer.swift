import TIP

/// What the boxes of a (possibly partial) HEIF file say without decoding anything: the brands of
/// its `ftyp` box, where its `meta` box ends, and how long the file must be for every item's data
/// (the `iloc` extents) to be present. ISO/IEC 14496-12 box syntax; nothing is allocated beyond a
/// few integers, whatever the sizes claim.
struct HEIFContainer: Equatable {
    /// The major brand and the compatible brands, as four-character codes.
    var brands: [UInt32]
    /// The offset just past the `meta` box, once its header has arrived.
    var metaEnd: Int?
    /// Whether the whole `meta` box has arrived.
    var hasMeta: Bool
    /// The length the file needs for every item stored at a file offset: nil until the `meta` box
    /// is whole, or when an extent runs to the end of the file (the length is then unknown).
    var requiredLength: Int?

    /// Which coding the brands announce.
    enum Coding: Equatable {
        /// HEVC (HEIC) brands.
        case hevc
        /// AV1 (AVIF) brands.
        case av1
        /// Only structural brands (`mif1`, `msf1`, `miaf`): either may follow.
        case undetermined
    }

    static let hevcBrands: Set<String> = ["heic", "heix", "hevc", "hevx", "heim", "heis", "hevm", "hevs"]
    static let av1Brands: Set<String> = ["avif", "avis"]
    static let structuralBrands: Set<String> = ["mif1", "msf1", "miaf", "mif2"]

    /// The coding announced by the major brand, else by the compatible brands (HEVC first), or nil
    /// when no image brand is present.
    var coding: Coding? {
        let names = brands.map(Self.fourCC)
        guard let major = names.first else { return nil }
        if Self.hevcBrands.contains(major) { return .hevc }
        if Self.av1Brands.contains(major) { return .av1 }
        if names.contains(where: Self.av1Brands.contains) { return .av1 }
        if names.contains(where: Self.hevcBrands.contains) { return .hevc }
        if names.contains(where: Self.structuralBrands.contains) { return .undetermined }
        return nil
    }

    /// Whether `bytes` (possibly a prefix) start with an `ftyp` box whose brands say `coding`
    /// (`undetermined` files match both codings).
    static func detect(_ bytes: UnsafeRawBufferPointer, coding wanted: Coding, isComplete: Bool)
        -> ImageDecoderDetection
    {
        let ftyp: [UInt8] = [0x66, 0x74, 0x79, 0x70]
        for index in 4..<max(4, min(8, bytes.count)) where bytes[index] != ftyp[index - 4] { return .noMatch }
        if bytes.count >= 4 {
            let size = Int(readBE32(bytes, 0))
            guard size >= 16, size <= 4096 else { return .noMatch }
            guard bytes.count >= size else { return isComplete ? .noMatch : .needMoreData }
        } else {
            return isComplete ? .noMatch : .needMoreData
        }
        guard let coding = scan(bytes).coding else { return .noMatch }
        return coding == wanted || coding == .undetermined ? .match : .noMatch
    }

    /// Walks the top-level boxes of `bytes`.
    static func scan(_ bytes: UnsafeRawBufferPointer) -> HEIFContainer {
        var container = HEIFContainer(brands: [], metaEnd: nil, hasMeta: false, requiredLength: nil)
        if let box = Box(bytes, at: 0, limit: bytes.count), box.type == "ftyp", let end = box.end,
            end <= bytes.count, end - box.payload >= 8
        {
            container.brands = [readBE32(bytes, box.payload)]
            var brand = box.payload + 8
            while brand + 4 <= end {
                container.brands.append(readBE32(bytes, brand))
                brand += 4
            }
        }
        if let meta = metaBox(bytes) {
            container.metaEnd = meta.end
            if (meta.end ?? Int.max) <= bytes.count {
                container.hasMeta = true
                container.requiredLength = requiredLength(bytes, meta: meta)
            }
        }
        return container
    }

    /// The top-level `meta` box of `bytes`, once its header has arrived.
    static func metaBox(_ bytes: UnsafeRawBufferPointer) -> Box? {
        var offset = 0
        while let box = Box(bytes, at: offset, limit: bytes.count) {
            if box.type == "meta" { return box }
            guard let next = box.end, next > offset else { return nil }
            offset = next
        }
        return nil
    }

    /// The child boxes of a whole `meta` box, each with its end, in order up to the first that claims to end past
    /// its parent (or to run to the end of the file); `complete` is false when such a child stopped the walk.
    static func metaChildren(_ bytes: UnsafeRawBufferPointer, meta: Box) -> (
        children: [(box: Box, end: Int)], complete: Bool
    ) {
        guard let metaEnd = meta.end else { return ([], false) }
        var children: [(box: Box, end: Int)] = []
        var offset = meta.payload + 4  // FullBox version and flags
        while let child = Box(bytes, at: offset, limit: metaEnd) {
            guard let end = child.end, end > offset, end <= metaEnd else { return (children, false) }
            children.append((child, end))
            offset = end
        }
        return (children, true)
    }

    /// The largest end of an `iloc` extent stored at a file offset, or nil when one runs to the end
    /// of the file or the box cannot be read.
    private static func requiredLength(_ bytes: UnsafeRawBufferPointer, meta: Box) -> Int? {
        let (children, complete) = metaChildren(bytes, meta: meta)
        if let iloc = children.first(where: { $0.box.type == "iloc" }) {
            var reader = Reader(bytes: bytes, offset: iloc.box.payload, limit: iloc.end)
            return reader.ilocRequiredLength()
        }
        return complete ? 0 : nil  // 0: no item data in the file
    }

    static func fourCC(_ value: UInt32) -> String {
        String(
            decoding: [
                UInt8(value >> 24), UInt8((value >> 16) & 0xFF), UInt8((value >> 8) & 0xFF), UInt8(value & 0xFF),
            ], as: UTF8.self)
    }

    static func readBE32(_ bytes: UnsafeRawBufferPointer, _ offset: Int) -> UInt32 {
        UInt32(bytes[offset]) << 24 | UInt32(bytes[offset + 1]) << 16 | UInt32(bytes[offset + 2]) << 8
            | UInt32(bytes[offset + 3])
    }

    /// One box header: its type, where its payload starts and where it ends (nil: to the end of the file).
    struct Box {
        let type: String
        let payload: Int
        let end: Int?

        /// The box at `offset`, or nil when its header is not within `limit` or is invalid.
        init?(_ bytes: UnsafeRawBufferPointer, at offset: Int, limit: Int) {
            guard offset >= 0, offset + 8 <= limit else { return nil }
            let size = UInt64(readBE32(bytes, offset))
            type = fourCC(readBE32(bytes, offset + 4))
            switch size {
            case 0:
                payload = offset + 8
                end = nil
            case 1:
                guard offset + 16 <= limit else { return nil }
                let large = UInt64(readBE32(bytes, offset + 8)) << 32 | UInt64(readBE32(bytes, offset + 12))
                guard large >= 16, large <= UInt64(Int.max / 4) else { return nil }
                payload = offset + 16
                end = offset + Int(large)
            default:
                guard size >= 8 else { return nil }
                payload = offset + 8
                end = offset + Int(size)
            }
        }
    }

    /// Big-endian reads that fail (return nil) past `limit` or past the bytes.
    struct Reader {
        let bytes: UnsafeRawBufferPointer
        var offset: Int
        let limit: Int

        init(bytes: UnsafeRawBufferPointer, offset: Int, limit: Int) {
            self.bytes = bytes
            self.offset = offset
            self.limit = min(limit, bytes.count)
        }

        mutating func read(_ count: Int) -> UInt64? {
            guard count >= 0, count <= 8, offset + count <= limit else { return nil }
            var value: UInt64 = 0
            for index in 0..<count { value = value << 8 | UInt64(bytes[offset + index]) }
            offset += count
            return value
        }

        /// One extent of an `iloc` item: its item, construction method (0 file, 1 `idat`), base offset, the
        /// extent's offset and length, and its position among the item's extents.
        struct ILocExtent {
            let item: UInt64
            let method: UInt64
            let base: UInt64
            let offset: UInt64
            let length: UInt64
            let index: UInt64
            let count: UInt64
        }

        /// Walks an `iloc` payload (ISO/IEC 14496-12 8.11.3, versions 0 to 2), handing `visit` every extent in
        /// order; `visit` returns false to stop. Returns false when a field could not be read (the extents
        /// before it were visited) or `visit` stopped the walk.
        mutating func walkILoc(_ visit: (ILocExtent) -> Bool) -> Bool {
            guard let version = read(1), version <= 2, read(3) != nil,
                let sizes = read(1), let moreSizes = read(1)
            else { return false }
            let offsetSize = Int(sizes >> 4), lengthSize = Int(sizes & 0xF)
            let baseOffsetSize = Int(moreSizes >> 4), indexSize = version >= 1 ? Int(moreSizes & 0xF) : 0
            guard let itemCount = read(version < 2 ? 2 : 4) else { return false }
            for _ in 0..<itemCount {
                guard let item = read(version < 2 ? 2 : 4) else { return false }
                var method: UInt64 = 0
                if version >= 1 {
                    guard let field = read(2) else { return false }
                    method = field & 0xF
                }
                guard read(2) != nil, let base = read(baseOffsetSize), let extents = read(2) else { return false }
                for index in 0..<extents {
                    guard read(indexSize) != nil, let extentOffset = read(offsetSize),
                        let extentLength = read(lengthSize)
                    else { return false }
                    let extent = ILocExtent(
                        item: item, method: method, base: base, offset: extentOffset, length: extentLength,
                        index: index, count: extents)
                    guard visit(extent) else { return false }
                }
            }
            return true
        }

        /// The largest end of the extents stored at a file offset (see ``HEIFContainer/requiredLength``).
        mutating func ilocRequiredLength() -> Int? {
            var required: UInt64 = 0
            let complete = walkILoc { extent in
                guard extent.method == 0 else { return true }  // in idat or another item: no file bytes of its own
                guard extent.length > 0 else { return false }  // runs to the end of the file
                let (sum, overflow1) = extent.base.addingReportingOverflow(extent.offset)
                let (end, overflow2) = sum.addingReportingOverflow(extent.length)
                guard !overflow1, !overflow2 else { return false }
                required = max(required, end)
                return true
            }
            guard complete else { return nil }
            return required > UInt64(Int.max / 4) ? nil : Int(required)
        }
    }
}
