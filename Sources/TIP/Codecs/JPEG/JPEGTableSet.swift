/// The quantization and Huffman tables a JPEG defines before its first scan, and its frame's components, for
/// ``JPEGMarkerScanner/definesItsTables``.
struct JPEGTableSet {
    /// Defined table slots (0-3) as bits.
    private var quantization: UInt8 = 0
    private var dc: UInt8 = 0
    private var ac: UInt8 = 0
    /// Sequential Huffman frame (SOF0 or SOF1): the components' ids and quantization slots; nil for any other.
    private var components: [(id: UInt8, table: UInt8)]?
    private var sawFrame = false

    /// Notes what a segment before the first scan defines (`payload`: the segment after its length field).
    mutating func read(marker: UInt8, _ payload: UnsafeRawBufferPointer) {
        switch marker {
        case 0xDB:  // DQT: (precision << 4 | slot), then 64 values of 1 or 2 bytes, repeated
            var i = 0
            while i < payload.count {
                let precision = payload[i] >> 4, slot = payload[i] & 15
                guard precision <= 1, slot < 4 else { return }
                quantization |= 1 << slot
                i += 1 + 64 * (Int(precision) + 1)
            }
        case 0xC4:  // DHT: (class << 4 | slot), 16 counts, the symbols, repeated
            var i = 0
            while i + 17 <= payload.count {
                let kind = payload[i] >> 4, slot = payload[i] & 15
                guard kind <= 1, slot < 4 else { return }
                var symbols = 0
                for l in 1...16 { symbols += Int(payload[i + l]) }
                guard i + 17 + symbols <= payload.count else { return }
                if kind == 0 { dc |= 1 << slot } else { ac |= 1 << slot }
                i += 17 + symbols
            }
        case 0xC0...0xCF where marker != 0xC4 && marker != 0xC8 && marker != 0xCC:
            // Another frame after the first is not ours to judge: libjpeg refuses it.
            guard !sawFrame else { return }
            sawFrame = true
            guard marker == 0xC0 || marker == 0xC1, payload.count >= 6 else { return }
            let count = Int(payload[5])
            guard count >= 1, payload.count >= 6 + 3 * count else { return }
            components = (0..<count).map { (payload[6 + 3 * $0], payload[8 + 3 * $0]) }
        default:
            break
        }
    }

    /// Whether the first scan (`payload`: its SOS segment after the length field) codes every component of a
    /// sequential Huffman frame with tables all defined before it.
    func coversScan(_ payload: UnsafeRawBufferPointer) -> Bool {
        guard let components, payload.count >= 1 else { return false }
        let count = Int(payload[0])
        guard count == components.count, payload.count >= 1 + 2 * count else { return false }
        for i in 0..<count {
            let id = payload[1 + 2 * i], dcSlot = payload[2 + 2 * i] >> 4, acSlot = payload[2 + 2 * i] & 15
            guard let component = components.first(where: { $0.id == id }), component.table < 4, dcSlot < 4,
                acSlot < 4, quantization & (1 << component.table) != 0, dc & (1 << dcSlot) != 0,
                ac & (1 << acSlot) != 0
            else { return false }
        }
        return true
    }
}
