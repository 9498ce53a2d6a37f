/// Planes of more than 8 bits per sample (10- and 12-bit HEIC and AVIF) brought down to 8 bits.
///
/// libheif 1.15 ignores `convert_hdr_to_8bit` for planar output: such an image's planes come back at
/// their coded depth, each sample in a native-endian `UInt16`.
enum HEIFDeepPlane {
    /// A new `width` x `height` plane of 8-bit samples (rows `width` bytes apart; the caller deallocates
    /// it) from `plane`, whose `bits`-bit samples (9...16) are each in a native-endian `UInt16` and
    /// whose rows are `stride` bytes apart (at least `2 * width`). Each sample becomes
    /// `value * 255 / maximum` rounded to nearest, `maximum` being `2^bits - 1`; a value beyond
    /// `maximum`, which a damaged stream may hold, becomes 255.
    static func narrow(_ plane: UnsafePointer<UInt8>, stride: Int, width: Int, height: Int, bits: Int)
        -> UnsafeMutablePointer<UInt8>
    {
        precondition((9...16).contains(bits) && stride >= 2 * width, "not a plane of 9 to 16 bits per sample")
        let maximum = (1 << bits) - 1
        let table = (0...maximum).map { UInt8(($0 * 255 + maximum / 2) / maximum) }
        let output = UnsafeMutablePointer<UInt8>.allocate(capacity: width * height)
        table.withUnsafeBufferPointer { table in
            for y in 0..<height {
                let row = UnsafeRawPointer(plane + y * stride)
                let destination = output + y * width
                for x in 0..<width {
                    let value = Int(row.loadUnaligned(fromByteOffset: x * 2, as: UInt16.self))
                    destination[x] = table[min(value, maximum)]
                }
            }
        }
        return output
    }
}
