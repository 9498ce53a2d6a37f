import Foundation

/// A small deterministic generator (SplitMix64) for chunk sizes, seeded from the input itself.
public struct FuzzRandom {
    private var state: UInt64

    /// Seeds from an FNV-1a hash of `data`, so the same input always splits the same way.
    public init(hashing data: Data) {
        var hash: UInt64 = 0xCBF2_9CE4_8422_2325
        for byte in data { hash = (hash ^ UInt64(byte)) &* 0x0000_0100_0000_01B3 }
        state = hash
    }

    /// The next 64 random bits.
    public mutating func next() -> UInt64 {
        state &+= 0x9E37_79B9_7F4A_7C15
        var z = state
        z = (z ^ (z >> 30)) &* 0xBF58_476D_1CE4_E5B9
        z = (z ^ (z >> 27)) &* 0x94D0_49BB_1331_11EB
        return z ^ (z >> 31)
    }

    /// A chunk length: mostly short (1–64 bytes), sometimes up to 4 KB, now and then everything left.
    public mutating func chunkLength(remaining: Int) -> Int {
        let roll = next()
        let length: Int
        switch roll % 8 {
        case 0...4: length = 1 + Int((roll >> 8) % 64)
        case 5, 6: length = 1 + Int((roll >> 8) % 4096)
        default: length = remaining
        }
        return min(max(length, 1), remaining)
    }
}
