import TIP

/// What a HEIF file's derived images (grids, overlays, and the images they and their alpha refer to) would
/// make libheif do, read from the boxes before libheif sees them:
/// - ``sizes``: the canvas a grid (`grid`) or an overlay (`iovl`) declares in its own data, which libheif
///   allocates whatever the item's `ispe` says, so the pixel limit can refuse a kilobyte of file that pairs a
///   small `ispe` with a 6144x10240 grid (ISO/IEC 23008-12, 6.6.2.3 and 6.6.2.4);
/// - ``hasReferenceCycle``: whether decoding an image would decode itself again.
///
/// Reads `meta`'s `iinf`, `iloc`, `idat` and `iref` boxes only; an item whose data is not within `bytes`
/// (still arriving, or malformed) is skipped: libheif reads the same bytes.
struct HEIFDerivedImages {
    /// The declared output size of every grid and overlay item.
    let sizes: [(width: Int, height: Int)]
    /// Whether decoding some item would decode itself again: a grid whose tile is the grid, or an image whose
    /// alpha (`auxl`) is a grid of that image. libheif 1.15 follows such references without end and allocates
    /// at every step (a 1,318-byte file took the fuzzer past 2 GB). Decoding an item decodes its `dimg` inputs
    /// and the auxiliary images (`auxl`) that refer to it.
    let hasReferenceCycle: Bool

    /// Reads the `meta` box of `bytes` once (nothing is found without a whole one).
    init(_ bytes: UnsafeRawBufferPointer) {
        var types: [UInt32: String] = [:]
        var locations: [UInt32: Location] = [:]
        var idat: Range<Int>?
        var edges: [UInt32: [UInt32]] = [:]
        if let meta = HEIFContainer.metaBox(bytes), let metaEnd = meta.end, metaEnd <= bytes.count {
            for (child, end) in HEIFContainer.metaChildren(bytes, meta: meta).children {
                switch child.type {
                case "iinf": types = Self.itemTypes(bytes, payload: child.payload, end: end)
                case "iloc": locations = Self.itemLocations(bytes, payload: child.payload, end: end)
                case "idat": idat = child.payload..<end
                case "iref": edges = Self.decodingEdges(bytes, payload: child.payload, end: end)
                default: break
                }
            }
        }
        sizes = types.compactMap { item, type in
            guard type == "grid" || type == "iovl", let start = locations[item]?.start(idat: idat) else { return nil }
            return Self.canvas(bytes, at: start, isGrid: type == "grid")
        }
        hasReferenceCycle = Self.hasCycle(edges)
    }

    /// The output size a grid or overlay descriptor at `start` declares, or nil when it is not within `bytes`.
    private static func canvas(_ bytes: UnsafeRawBufferPointer, at start: Int, isGrid: Bool) -> (
        width: Int, height: Int
    )? {
        guard start < bytes.count else { return nil }
        var reader = HEIFContainer.Reader(bytes: bytes, offset: start, limit: bytes.count)
        guard reader.read(1) != nil, let flags = reader.read(1) else { return nil }
        if isGrid {
            guard reader.read(2) != nil else { return nil }  // rows and columns minus one
        } else {
            guard reader.read(8) != nil else { return nil }  // the canvas fill value, four 16-bit channels
        }
        let fieldSize = flags & 1 == 0 ? 2 : 4
        guard let width = reader.read(fieldSize), let height = reader.read(fieldSize) else { return nil }
        return (Int(width), Int(height))
    }

    /// Whether `edges` hold a cycle: a depth-first search for a back edge (0 unvisited, 1 on the stack, 2 done).
    private static func hasCycle(_ edges: [UInt32: [UInt32]]) -> Bool {
        var state: [UInt32: Int] = [:]
        for start in edges.keys where state[start] == nil {
            var stack: [(item: UInt32, next: Int)] = [(start, 0)]
            state[start] = 1
            while let top = stack.last {
                let targets = edges[top.item] ?? []
                if top.next < targets.count {
                    stack[stack.count - 1].next += 1
                    let target = targets[top.next]
                    switch state[target] ?? 0 {
                    case 1: return true
                    case 0:
                        state[target] = 1
                        stack.append((target, 0))
                    default: break
                    }
                } else {
                    state[top.item] = 2
                    stack.removeLast()
                }
            }
        }
        return false
    }

    /// For each item, the items decoding it decodes too, from an `iref` payload.
    private static func decodingEdges(_ bytes: UnsafeRawBufferPointer, payload: Int, end: Int) -> [UInt32: [UInt32]] {
        var reader = HEIFContainer.Reader(bytes: bytes, offset: payload, limit: end)
        guard let version = reader.read(1), reader.read(3) != nil else { return [:] }
        let idSize = version == 0 ? 2 : 4
        var edges: [UInt32: [UInt32]] = [:]
        var offset = reader.offset
        // A reference box may not end past `iref` (a hostile size would otherwise hide the ones before it).
        while offset + 8 <= end, let reference = HEIFContainer.Box(bytes, at: offset, limit: end) {
            let referenceEnd = min(reference.end ?? end, end)
            guard referenceEnd > offset else { break }
            var fields = HEIFContainer.Reader(bytes: bytes, offset: reference.payload, limit: referenceEnd)
            if let from = fields.read(idSize), let count = fields.read(2) {
                for _ in 0..<count {
                    guard let to = fields.read(idSize) else { break }
                    let (source, target) = (UInt32(truncatingIfNeeded: from), UInt32(truncatingIfNeeded: to))
                    switch reference.type {
                    case "dimg": edges[source, default: []].append(target)
                    case "auxl": edges[target, default: []].append(source)
                    default: break
                    }
                }
            }
            offset = referenceEnd
        }
        return edges
    }

    /// Where an item's data starts: in the file (construction method 0) or in `idat` (1).
    private struct Location {
        let method: UInt64
        let offset: UInt64

        func start(idat: Range<Int>?) -> Int? {
            switch method {
            case 0: return offset <= UInt64(Int.max / 4) ? Int(offset) : nil
            case 1:
                guard let idat, offset <= UInt64(idat.count) else { return nil }
                return idat.lowerBound + Int(offset)
            default: return nil
            }
        }
    }

    /// Item types from an `iinf` payload (`infe` versions 2 and 3; older ones carry no type).
    private static func itemTypes(_ bytes: UnsafeRawBufferPointer, payload: Int, end: Int) -> [UInt32: String] {
        var reader = HEIFContainer.Reader(bytes: bytes, offset: payload, limit: end)
        guard let version = reader.read(1), reader.read(3) != nil, reader.read(version == 0 ? 2 : 4) != nil else {
            return [:]
        }
        var types: [UInt32: String] = [:]
        var offset = reader.offset
        while let entry = HEIFContainer.Box(bytes, at: offset, limit: end) {
            guard let entryEnd = entry.end, entryEnd > offset, entryEnd <= end else { break }
            if entry.type == "infe" {
                var fields = HEIFContainer.Reader(bytes: bytes, offset: entry.payload, limit: entryEnd)
                if let entryVersion = fields.read(1), entryVersion >= 2, fields.read(3) != nil,
                    let item = fields.read(entryVersion == 2 ? 2 : 4), fields.read(2) != nil,
                    let type = fields.read(4)
                {
                    types[UInt32(truncatingIfNeeded: item)] = HEIFContainer.fourCC(UInt32(truncatingIfNeeded: type))
                }
            }
            offset = entryEnd
        }
        return types
    }

    /// The first extent of every item in an `iloc` payload whose extents were all read (the items before a
    /// malformed field count).
    private static func itemLocations(_ bytes: UnsafeRawBufferPointer, payload: Int, end: Int) -> [UInt32: Location] {
        var reader = HEIFContainer.Reader(bytes: bytes, offset: payload, limit: end)
        var locations: [UInt32: Location] = [:]
        var first: UInt64?
        _ = reader.walkILoc { extent in
            if extent.index == 0 {
                let (start, overflow) = extent.base.addingReportingOverflow(extent.offset)
                first = overflow ? nil : start
            }
            if extent.index == extent.count - 1, let first {
                locations[UInt32(truncatingIfNeeded: extent.item)] = Location(method: extent.method, offset: first)
            }
            return true
        }
        return locations
    }
}
