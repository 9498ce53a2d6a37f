/// Running fixed-point sums over blocks of 4 consecutive 4-byte pixels (one block = 4 taps), used by
/// the horizontal pass of ``Resampler``. Two layouts with different costs: see the conforming types.
protocol BlockSums {
    init()
    /// Adds the 4 pixels `words` (one per lane) weighted by `taps` (one weight per lane, 16-bit range).
    mutating func add(_ words: SIMD4<UInt32>, taps: SIMD4<Int32>)
    /// The weighted sum of each channel (lane c = channel c), rounding bias included.
    var total: SIMD4<Int32> { get }
}

/// Sums kept per channel across the pixel's lanes: each pixel is widened and multiplied as a whole.
/// Cheap to total, dearer per block: best for short kernels.
struct PixelSums: BlockSums {
    private var even = SIMD4<Int32>(repeating: 1 << (ResamplerWeights.precision - 1))
    private var odd = SIMD4<Int32>(repeating: 0)

    init() {}

    @inline(__always)
    mutating func add(_ words: SIMD4<UInt32>, taps: SIMD4<Int32>) {
        let pixels = SIMD16<Int32>(truncatingIfNeeded: unsafeBitCast(words, to: SIMD16<UInt8>.self))
        even &+= pixels.lowHalf.lowHalf &* SIMD4(repeating: taps[0])
        odd &+= pixels.lowHalf.highHalf &* SIMD4(repeating: taps[1])
        even &+= pixels.highHalf.lowHalf &* SIMD4(repeating: taps[2])
        odd &+= pixels.highHalf.highHalf &* SIMD4(repeating: taps[3])
    }

    var total: SIMD4<Int32> {
        @inline(__always) get { even &+ odd }
    }
}

/// Sums kept per byte position, one lane per tap: the block is split into channels with shifts and
/// masks and multiplied by the 4 taps at once. Cheap per block, dearer to total: best for long kernels.
struct ChannelSums: BlockSums {
    private var c0 = SIMD4<Int32>(repeating: 0), c1 = SIMD4<Int32>(repeating: 0)
    private var c2 = SIMD4<Int32>(repeating: 0), c3 = SIMD4<Int32>(repeating: 0)

    init() {}

    @inline(__always)
    mutating func add(_ words: SIMD4<UInt32>, taps: SIMD4<Int32>) {
        let mask = SIMD4<UInt32>(repeating: 0xFF)
        c0 &+= unsafeBitCast(words & mask, to: SIMD4<Int32>.self) &* taps
        c1 &+= unsafeBitCast((words &>> 8) & mask, to: SIMD4<Int32>.self) &* taps
        c2 &+= unsafeBitCast((words &>> 16) & mask, to: SIMD4<Int32>.self) &* taps
        c3 &+= unsafeBitCast(words &>> 24, to: SIMD4<Int32>.self) &* taps
    }

    var total: SIMD4<Int32> {
        @inline(__always) get {
            // Lane c of the result adds up the lanes of c_c: the column sums of a 4x4 transpose.
            let front = SIMD4(c0[0], c1[0], c0[1], c1[1]) &+ SIMD4(c0[2], c1[2], c0[3], c1[3])
            let back = SIMD4(c2[0], c3[0], c2[1], c3[1]) &+ SIMD4(c2[2], c3[2], c2[3], c3[3])
            return SIMD4(front[0], front[1], back[0], back[1]) &+ SIMD4(front[2], front[3], back[2], back[3])
                &+ SIMD4(repeating: 1 << (ResamplerWeights.precision - 1))
        }
    }
}
