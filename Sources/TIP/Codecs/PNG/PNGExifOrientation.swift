/// Reads the orientation tag (0x0112) from the TIFF structure a PNG eXIf chunk holds.
enum PNGExifOrientation {
    /// The orientation in IFD0 of `tiff`, or nil when absent or malformed.
    static func orientation(inTIFF tiff: UnsafeRawBufferPointer) -> ImageOrientation? {
        guard tiff.count >= 8 else { return nil }
        let littleEndian: Bool
        switch (tiff[0], tiff[1]) {
        case (0x49, 0x49): littleEndian = true
        case (0x4D, 0x4D): littleEndian = false
        default: return nil
        }
        func u16(_ offset: Int) -> Int? {
            guard offset >= 0, offset + 2 <= tiff.count else { return nil }
            return littleEndian ? Int(tiff[offset]) | Int(tiff[offset + 1]) << 8 : Int(tiff[offset]) << 8 | Int(tiff[offset + 1])
        }
        func u32(_ offset: Int) -> Int? {
            guard let high = u16(littleEndian ? offset + 2 : offset), let low = u16(littleEndian ? offset : offset + 2) else { return nil }
            return high << 16 | low
        }
        guard u16(2) == 42, let ifd = u32(4), let count = u16(ifd) else { return nil }
        for index in 0..<min(count, 512) {
            let entry = ifd + 2 + index * 12
            guard let tag = u16(entry) else { return nil }
            if tag == 0x0112 {
                guard u16(entry + 2) == 3, let value = u16(entry + 8) else { return nil }
                return ImageOrientation(rawValue: value)
            }
        }
        return nil
    }
}
