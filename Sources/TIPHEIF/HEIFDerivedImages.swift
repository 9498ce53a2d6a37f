import TIP

/// What a HEIF file's derived images (grids, overlays, and the images they and their alpha refer to) would
/// make libheif do, read from the boxes before libheif sees them:
/// - ``sizes(_:)``: the canvas a grid (`grid`) or an overlay (`iovl`) declares in its own data, which libheif
///   allocates whatever the item's `ispe` says, so the pixel limit can refuse a kilobyte of file that pairs a
///   small `ispe` with a 6144x10240 grid (ISO/IEC 23008-12, 6.6.2.3 and 6.6.2.4);
/// - ``hasReferenceCycle(_:)``: whether decoding an image would decode itself again.
///
/// Reads `meta`'s `iinf`, `iloc`, `idat` and `iref` boxes only; an item whose data is not within `bytes`
/// (still arriving, or malformed) is skipped: libheif reads the same bytes.
enum HEIFDerivedImages {
    /// The declared output size of every grid and overlay item in `bytes`.
    static func sizes(_ bytes: UnsafeRawBufferPointer) -> [(width: Int, height: Int)] {
        guard let meta = metaBox(bytes), let metaEnd = meta.end, metaEnd <= bytes.count else { return [] }
        var types: [UInt32: String] = [:]
        var locations: [UInt32: Location] = [:]
        var idat: Range<Int>?
        var offset = meta.payload + 4  // FullBox version and flags
        while let child = HEIFContainer.Box(bytes, at: offset, limit: metaEnd) {
            guard let end = child.end, end > offset, end <= metaEnd else { break }
            switch child.type {
            case "iinf": types = itemTypes(bytes, payload: child.payload, end: end)
            case "iloc": locations = itemLocations(bytes, payload: child.payload, end: end)
            case "idat": idat = child.payload..<end
            default: break
            }
            offset = end
        }
        var sizes: [(width: Int, height: Int)] = []
        for (item, type) in types where type == "grid" || type == "iovl" {
            guard let location = locations[item], let start = location.start(idat: idat), start < bytes.count else {
                continue
            }
            var reader = HEIFContainer.Reader(bytes: bytes, offset: start, limit: bytes.count)
            guard reader.read(1) != nil, let flags = reader.read(1) else { continue }
            if type == "grid" {
                guard reader.read(2) != nil else { continue }  // rows and columns minus one
            } else {
                guard reader.read(8) != nil else { continue }  // the canvas fill value, four 16-bit channels
            }
            let fieldSize = flags & 1 == 0 ? 2 : 4
            guard let width = reader.read(fieldSize), let height = reader.read(fieldSize) else { continue }
            sizes.append((Int(width), Int(height)))
        }
        return sizes
    }

    /// Whether decoding some item would decode itself again: a grid whose tile is the grid, or an image whose
    /// alpha (`auxl`) is a grid of that image. libheif 1.15 follows such references without end and allocates
    /// at every step (a 1,318-byte file took the fuzzer past 2 GB). Decoding an item decodes its `dimg` inputs
    /// and the auxiliary images (`auxl`) that refer to it.
    static func hasReferenceCycle(_ bytes: UnsafeRawBufferPointer) -> Bool {
        guard let meta = metaBox(bytes), let metaEnd = meta.end, metaEnd <= bytes.count else { return false }
        var edges: [UInt32: [UInt32]] = [:]
        var offset = meta.payload + 4
        while let child = HEIFContainer.Box(bytes, at: offset, limit: metaEnd) {
            guard let end = child.end, end > offset, end <= metaEnd else { break }
            if child.type == "iref" { edges = decodingEdges(bytes, payload: child.payload, end: end) }
            offset = end
        }
        // Depth-first search for a back edge; 0 unvisited, 1 on the stack, 2 done.
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

    private static func metaBox(_ bytes: UnsafeRawBufferPointer) -> HEIFContainer.Box? {
        var offset = 0
        while let box = HEIFContainer.Box(bytes, at: offset, limit: bytes.count) {
            if box.type == "meta" { return box }
            guard let next = box.end, next > offset else { return nil }
            offset = next
        }
        return nil
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

    /// The first extent of every item in an `iloc` payload (ISO/IEC 14496-12 8.11.3, versions 0 to 2).
    private static func itemLocations(_ bytes: UnsafeRawBufferPointer, payload: Int, end: Int) -> [UInt32: Location] {
        var reader = HEIFContainer.Reader(bytes: bytes, offset: payload, limit: end)
        guard let version = reader.read(1), version <= 2, reader.read(3) != nil,
            let sizes = reader.read(1), let moreSizes = reader.read(1)
        else { return [:] }
        let offsetSize = Int(sizes >> 4), lengthSize = Int(sizes & 0xF)
        let baseOffsetSize = Int(moreSizes >> 4), indexSize = version >= 1 ? Int(moreSizes & 0xF) : 0
        guard let itemCount = reader.read(version < 2 ? 2 : 4) else { return [:] }
        var locations: [UInt32: Location] = [:]
        for _ in 0..<itemCount {
            guard let item = reader.read(version < 2 ? 2 : 4) else { break }
            var method: UInt64 = 0
            if version >= 1 {
                guard let field = reader.read(2) else { break }
                method = field & 0xF
            }
            guard reader.read(2) != nil, let base = reader.read(baseOffsetSize), let extents = reader.read(2) else {
                break
            }
            var first: UInt64?
            for _ in 0..<extents {
                guard reader.read(indexSize) != nil, let extentOffset = reader.read(offsetSize),
                    reader.read(lengthSize) != nil
                else { return locations }
                if first == nil {
                    let (sum, overflow) = base.addingReportingOverflow(extentOffset)
                    if !overflow { first = sum }
                }
            }
            if let first { locations[UInt32(truncatingIfNeeded: item)] = Location(method: method, offset: first) }
        }
        return locations
    }
}
