/// Lane-wise integer conversions for the resampler's SIMD loops, spelled out lane by lane.
///
/// The standard library's `SIMDn(truncatingIfNeeded:)` is a generic loop that the optimiser inlines in
/// a small module but, in our whole-module release build, leaves as an out-of-line call inside the hot
/// loops (measured: the resampler ran 4x slower, most of its time in those calls). Lane subscripts and
/// lane-list initialisers are transparent, so these always inline and LLVM turns them into single
/// unpack/pack instructions.
enum ResamplerLanes {
    /// Zero-extends 8 bytes to 16-bit lanes.
    @inline(__always)
    static func widen(_ v: SIMD8<UInt8>) -> SIMD8<Int16> {
        SIMD8(Int16(v[0]), Int16(v[1]), Int16(v[2]), Int16(v[3]), Int16(v[4]), Int16(v[5]), Int16(v[6]), Int16(v[7]))
    }

    /// Zero-extends 16 bytes to 16-bit lanes.
    @inline(__always)
    static func widen(_ v: SIMD16<UInt8>) -> SIMD16<Int16> {
        SIMD16(lowHalf: widen(v.lowHalf), highHalf: widen(v.highHalf))
    }

    /// Sign-extends 16-bit lanes to 32 bits.
    @inline(__always)
    static func widen(_ v: SIMD8<Int16>) -> SIMD8<Int32> {
        SIMD8(Int32(v[0]), Int32(v[1]), Int32(v[2]), Int32(v[3]), Int32(v[4]), Int32(v[5]), Int32(v[6]), Int32(v[7]))
    }

    /// Keeps the low 16 bits of each 32-bit lane.
    @inline(__always)
    static func narrow(_ v: SIMD8<Int32>) -> SIMD8<Int16> {
        SIMD8(
            Int16(truncatingIfNeeded: v[0]), Int16(truncatingIfNeeded: v[1]), Int16(truncatingIfNeeded: v[2]),
            Int16(truncatingIfNeeded: v[3]),
            Int16(truncatingIfNeeded: v[4]), Int16(truncatingIfNeeded: v[5]), Int16(truncatingIfNeeded: v[6]),
            Int16(truncatingIfNeeded: v[7]))
    }

    /// Keeps the low 8 bits of each 16-bit lane.
    @inline(__always)
    static func narrow(_ v: SIMD8<Int16>) -> SIMD8<UInt8> {
        SIMD8(
            UInt8(truncatingIfNeeded: v[0]), UInt8(truncatingIfNeeded: v[1]), UInt8(truncatingIfNeeded: v[2]),
            UInt8(truncatingIfNeeded: v[3]),
            UInt8(truncatingIfNeeded: v[4]), UInt8(truncatingIfNeeded: v[5]), UInt8(truncatingIfNeeded: v[6]),
            UInt8(truncatingIfNeeded: v[7]))
    }

    /// Keeps the low 8 bits of each 16-bit lane.
    @inline(__always)
    static func narrow(_ v: SIMD16<Int16>) -> SIMD16<UInt8> {
        SIMD16(lowHalf: narrow(v.lowHalf), highHalf: narrow(v.highHalf))
    }
}
