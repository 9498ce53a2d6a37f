/// SHA-1, used to name disk-cache files the way TIP does and to key image-table entries (not for security).
///
/// ```swift
/// SHA1.hexDigest(of: Array("abc".utf8))  // "a9993e364706816aba3e25717850c26c9cd0d89d"
/// ```
package enum SHA1 {
    /// The 20-byte digest of `bytes`. Inlinable, so that callers in other modules (image tables) get it
    /// specialized for their collection type.
    @inlinable
    package static func digest<C: Collection>(of bytes: C) -> [UInt8] where C.Element == UInt8 {
        var h: (UInt32, UInt32, UInt32, UInt32, UInt32) = (
            0x6745_2301, 0xEFCD_AB89, 0x98BA_DCFE, 0x1032_5476, 0xC3D2_E1F0
        )
        var message = Array(bytes)
        let bitLength = UInt64(message.count) &* 8
        message.append(0x80)
        while message.count % 64 != 56 { message.append(0) }
        for shift in stride(from: 56, through: 0, by: -8) {
            message.append(UInt8(truncatingIfNeeded: bitLength >> UInt64(shift)))
        }

        var w = [UInt32](repeating: 0, count: 80)
        for chunk in stride(from: 0, to: message.count, by: 64) {
            for i in 0..<16 {
                let b = chunk + i * 4
                w[i] =
                    UInt32(message[b]) << 24 | UInt32(message[b + 1]) << 16 | UInt32(message[b + 2]) << 8
                    | UInt32(message[b + 3])
            }
            for i in 16..<80 { w[i] = rotl(w[i - 3] ^ w[i - 8] ^ w[i - 14] ^ w[i - 16], 1) }
            var (a, b, c, d, e) = h
            for i in 0..<80 {
                let f: UInt32, k: UInt32
                switch i {
                case 0..<20: f = (b & c) | (~b & d); k = 0x5A82_7999
                case 20..<40: f = b ^ c ^ d; k = 0x6ED9_EBA1
                case 40..<60: f = (b & c) | (b & d) | (c & d); k = 0x8F1B_BCDC
                default: f = b ^ c ^ d; k = 0xCA62_C1D6
                }
                let t = rotl(a, 5) &+ f &+ e &+ k &+ w[i]
                e = d; d = c; c = rotl(b, 30); b = a; a = t
            }
            h = (h.0 &+ a, h.1 &+ b, h.2 &+ c, h.3 &+ d, h.4 &+ e)
        }
        var out: [UInt8] = []
        out.reserveCapacity(20)
        for word in [h.0, h.1, h.2, h.3, h.4] {
            out += [
                UInt8(word >> 24), UInt8(truncatingIfNeeded: word >> 16), UInt8(truncatingIfNeeded: word >> 8),
                UInt8(truncatingIfNeeded: word),
            ]
        }
        return out
    }

    /// The digest of `bytes` as 40 lowercase hexadecimal characters.
    static func hexDigest<C: Collection>(of bytes: C) -> String where C.Element == UInt8 {
        let digits = Array("0123456789abcdef".utf8)
        var chars: [UInt8] = []
        chars.reserveCapacity(40)
        for byte in digest(of: bytes) {
            chars.append(digits[Int(byte >> 4)])
            chars.append(digits[Int(byte & 0x0F)])
        }
        return String(decoding: chars, as: UTF8.self)
    }

    @usableFromInline
    static func rotl(_ x: UInt32, _ n: UInt32) -> UInt32 { (x << n) | (x >> (32 - n)) }
}
