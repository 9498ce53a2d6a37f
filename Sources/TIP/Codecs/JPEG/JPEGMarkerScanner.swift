/// Walks the marker segments of a JPEG up to the first SOS, bounds-checked, to find the EXIF APP1
/// payload, the Adobe APP14 marker (which means CMYK samples are stored inverted), the frame type and
/// whether the file defines every table its decode uses.
struct JPEGMarkerScanner {
    /// The TIFF data of the first "Exif" APP1 segment, as a range of the scanned bytes.
    var exifRange: Range<Int>?
    /// Whether an Adobe APP14 segment was seen.
    var hasAdobeMarker = false
    /// Whether the frame is progressive (SOF2, Huffman-coded).
    var isProgressive = false
    /// Whether the file is one sequential Huffman-coded scan of every component whose quantization and
    /// Huffman tables are all defined before it. Only then is a decode independent of the tables a reused
    /// TurboJPEG handle keeps from earlier images: libjpeg keeps them for abbreviated streams, and a file
    /// without its own (a Motion-JPEG frame relying on the standard Huffman tables, a damaged file) would
    /// otherwise decode with another image's tables.
    var definesItsTables = false

    /// Scans `bytes`, which must start with SOI (otherwise nothing is found).
    init(_ bytes: UnsafeRawBufferPointer) {
        let n = bytes.count
        guard n >= 4, bytes[0] == 0xFF, bytes[1] == 0xD8 else { return }
        var p = 2
        var tables = JPEGTableSet()
        while p + 4 <= n {
            guard bytes[p] == 0xFF else { return }
            let marker = bytes[p + 1]
            if marker == 0xFF { p += 1; continue }  // fill byte
            if marker == 0xD8 || marker == 0x01 || (0xD0...0xD7).contains(marker) { p += 2; continue }
            if marker == 0xD9 { return }
            let length = Int(bytes[p + 2]) << 8 | Int(bytes[p + 3])
            guard length >= 2 else { return }
            if marker == 0xC2 { isProgressive = true }
            let payload = p + 4
            let end = p + 2 + length
            let available = min(end, n)
            if marker == 0xDA {
                definesItsTables = tables.coversScan(UnsafeRawBufferPointer(rebasing: bytes[payload..<available]))
                return
            }
            tables.read(marker: marker, UnsafeRawBufferPointer(rebasing: bytes[payload..<available]))
            if marker == 0xE1, exifRange == nil, available - payload >= 6,
                bytes[payload] == 0x45, bytes[payload + 1] == 0x78, bytes[payload + 2] == 0x69,
                bytes[payload + 3] == 0x66, bytes[payload + 4] == 0, bytes[payload + 5] == 0
            {
                exifRange = (payload + 6)..<available
            } else if marker == 0xEE, available - payload >= 5,
                bytes[payload] == 0x41, bytes[payload + 1] == 0x64, bytes[payload + 2] == 0x6F,
                bytes[payload + 3] == 0x62, bytes[payload + 4] == 0x65
            {
                hasAdobeMarker = true
            }
            p = end
        }
    }

    /// The EXIF orientation of the scanned bytes, `.up` when there is none.
    func orientation(in bytes: UnsafeRawBufferPointer) -> ImageOrientation {
        guard let range = exifRange else { return .up }
        return EXIFOrientationParser.orientation(fromTIFF: UnsafeRawBufferPointer(rebasing: bytes[range])) ?? .up
    }
}
