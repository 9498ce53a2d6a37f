/// Packs colours into the 32-bit words of `rgba8Premultiplied` bitmaps (bytes r, g, b, a in memory),
/// with the premultiplication every decoder of the project rounds the same way.
///
/// ```swift
/// row[x] = RGBAWord.premultiplied(r, g, b, alpha)
/// ```
enum RGBAWord {
    /// (r, g, b, a), each 0...255, with the colour premultiplied by alpha: round(c * a / 255).
    static func premultiplied(_ r: UInt32, _ g: UInt32, _ b: UInt32, _ a: UInt32) -> UInt32 {
        if a == 255 { return opaque(r, g, b) }
        if a == 0 { return 0 }
        return (scale(r, a) | scale(g, a) << 8 | scale(b, a) << 16 | a << 24).littleEndian
    }

    /// (r, g, b) with alpha 255.
    static func opaque(_ r: UInt32, _ g: UInt32, _ b: UInt32) -> UInt32 {
        (r | g << 8 | b << 16 | 0xFF00_0000).littleEndian
    }

    /// Exact round(value * alpha / 255) for value, alpha in 0...255.
    @inline(__always)
    static func scale(_ value: UInt32, _ alpha: UInt32) -> UInt32 {
        let t = value * alpha + 128
        return (t + (t >> 8)) >> 8
    }
}
