/// Reads the orientation (tag 0x0112) from EXIF TIFF data (a JPEG APP1 payload after "Exif\0\0", or a
/// PNG eXIf chunk), with every read bounds-checked; both byte orders.
enum EXIFOrientationParser {
    /// The orientation in `tiff`, or nil when absent, invalid or out of bounds.
    static func orientation(fromTIFF tiff: UnsafeRawBufferPointer) -> ImageOrientation? {
        guard let reader = TIFFReader(tiff), let entry = reader.firstIFDEntry(tag: 0x0112) else { return nil }
        // SHORT (3), count 1: the value sits in the first two bytes of the value field.
        guard reader.u16(entry + 2) == 3, let value = reader.u16(entry + 8) else { return nil }
        return ImageOrientation(rawValue: value)
    }

    /// Whether the first IFD of `tiff` points to a GPS directory (tag 0x8825), as cameras and phones write
    /// the location a photo was taken at.
    static func hasGPSDirectory(inTIFF tiff: UnsafeRawBufferPointer) -> Bool {
        TIFFReader(tiff)?.firstIFDEntry(tag: 0x8825) != nil
    }
}

/// Bounds-checked reads of TIFF data in its byte order.
private struct TIFFReader {
    let tiff: UnsafeRawBufferPointer
    let littleEndian: Bool

    /// A reader for `tiff` when it starts with a TIFF byte-order mark.
    init?(_ tiff: UnsafeRawBufferPointer) {
        guard tiff.count >= 8 else { return nil }
        switch (tiff[0], tiff[1]) {
        case (0x49, 0x49): littleEndian = true
        case (0x4D, 0x4D): littleEndian = false
        default: return nil
        }
        self.tiff = tiff
    }

    func u16(_ offset: Int) -> Int? {
        guard offset >= 0, offset + 2 <= tiff.count else { return nil }
        let a = Int(tiff[offset]), b = Int(tiff[offset + 1])
        return littleEndian ? a | b << 8 : a << 8 | b
    }

    func u32(_ offset: Int) -> Int? {
        guard let lo = u16(littleEndian ? offset : offset + 2), let hi = u16(littleEndian ? offset + 2 : offset) else { return nil }
        return lo | hi << 16
    }

    /// The offset of the first IFD's entry with `tag`, or nil.
    func firstIFDEntry(tag wanted: Int) -> Int? {
        guard u16(2) == 42, let ifd = u32(4), let entries = u16(ifd) else { return nil }
        for i in 0..<entries {
            let entry = ifd + 2 + i * 12
            guard let tag = u16(entry) else { return nil }
            if tag == wanted { return entry }
        }
        return nil
    }
}
