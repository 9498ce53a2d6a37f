/// Reads the orientation (tag 0x0112) from EXIF TIFF data (a JPEG APP1 payload after "Exif\0\0", or a
/// PNG eXIf chunk), with every read bounds-checked; both byte orders.
enum EXIFOrientationParser {
    /// The orientation in `tiff`, or nil when absent, invalid or out of bounds.
    static func orientation(fromTIFF tiff: UnsafeRawBufferPointer) -> ImageOrientation? {
        let count = tiff.count
        guard count >= 8 else { return nil }
        let littleEndian: Bool
        switch (tiff[0], tiff[1]) {
        case (0x49, 0x49): littleEndian = true
        case (0x4D, 0x4D): littleEndian = false
        default: return nil
        }
        func u16(_ offset: Int) -> Int? {
            guard offset >= 0, offset + 2 <= count else { return nil }
            let a = Int(tiff[offset]), b = Int(tiff[offset + 1])
            return littleEndian ? a | b << 8 : a << 8 | b
        }
        func u32(_ offset: Int) -> Int? {
            guard let lo = u16(littleEndian ? offset : offset + 2), let hi = u16(littleEndian ? offset + 2 : offset) else { return nil }
            return lo | hi << 16
        }
        guard u16(2) == 42, let ifd = u32(4), let entries = u16(ifd) else { return nil }
        for i in 0..<entries {
            let entry = ifd + 2 + i * 12
            guard let tag = u16(entry) else { return nil }
            guard tag == 0x0112 else { continue }
            // SHORT (3), count 1: the value sits in the first two bytes of the value field.
            guard u16(entry + 2) == 3, let value = u16(entry + 8) else { return nil }
            return ImageOrientation(rawValue: value)
        }
        return nil
    }
}
