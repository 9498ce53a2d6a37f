/// The checksums that tell a torn or damaged entry from a whole one. Not cryptographic: they catch writes cut
/// short and bytes changed on disk, the way a CRC would, at memory speed.
enum ImageTableChecksum {
    private static let multiplier: UInt64 = 0x9E37_79B9_7F4A_7C15

    /// A 64-bit checksum of `count` bytes at `bytes` (`count` a multiple of 32), mixed with `seed`. Four
    /// independent lanes keep the multiplier units busy: about 8 bytes per cycle.
    static func pixels(_ bytes: UnsafeRawPointer, count: Int, seed: UInt64) -> UInt64 {
        precondition(count % 32 == 0, "entry sizes are multiples of 64 bytes")
        var a = seed ^ 0x243F_6A88_85A3_08D3, b = seed ^ 0x1319_8A2E_0370_7344
        var c = seed ^ 0xA409_3822_299F_31D0, d = seed ^ 0x082E_FA98_EC4E_6C89
        var offset = 0
        while offset < count {
            a = mix(a ^ bytes.loadUnaligned(fromByteOffset: offset, as: UInt64.self))
            b = mix(b ^ bytes.loadUnaligned(fromByteOffset: offset + 8, as: UInt64.self))
            c = mix(c ^ bytes.loadUnaligned(fromByteOffset: offset + 16, as: UInt64.self))
            d = mix(d ^ bytes.loadUnaligned(fromByteOffset: offset + 24, as: UInt64.self))
            offset += 32
        }
        return finish(mix(a ^ rotate(b, 17)) ^ mix(c ^ rotate(d, 41)) ^ UInt64(count))
    }

    /// A 64-bit checksum of a few words (a record's fields, a header), added one at a time.
    struct Words {
        private var state: UInt64

        init(seed: UInt64) { state = seed ^ 0x452_821E_638D_0137 }

        mutating func add(_ word: UInt64) { state = ImageTableChecksum.mix(state ^ word) }

        var value: UInt64 { ImageTableChecksum.finish(state) }
    }

    @inline(__always)
    fileprivate static func mix(_ x: UInt64) -> UInt64 {
        let product = x &* multiplier
        return product ^ (product >> 29)
    }

    @inline(__always)
    private static func rotate(_ x: UInt64, _ n: UInt64) -> UInt64 { (x << n) | (x >> (64 - n)) }

    fileprivate static func finish(_ x: UInt64) -> UInt64 {
        var h = x
        h ^= h >> 33
        h = h &* 0xFF51_AFD7_ED55_8CCD
        h ^= h >> 33
        h = h &* 0xC4CE_B9FE_1A85_EC53
        return h ^ (h >> 33)
    }
}
