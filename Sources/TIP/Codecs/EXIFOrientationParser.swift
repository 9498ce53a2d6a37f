/// Reads the orientation (tag 0x0112) from EXIF TIFF data (a JPEG APP1 payload after "Exif\0\0", or a
/// PNG eXIf chunk), with every read bounds-checked; both byte orders.
enum EXIFOrientationParser {
    /// The orientation in `tiff`, or nil when absent, invalid or out of bounds.
    static func orientation(fromTIFF tiff: UnsafeRawBufferPointer) -> ImageOrientation? {
        guard let directory = TIFFDirectory(tiff), let entry = directory.entry(0x0112) else { return nil }
        // SHORT (3): the value sits in the first two bytes of the value field.
        guard entry.type == 3, let value = directory.reader.u16(at: entry.valueOffset) else { return nil }
        return ImageOrientation(rawValue: value)
    }

    /// Whether the first IFD of `tiff` points to a GPS directory (tag 0x8825), as cameras and phones write
    /// the location a photo was taken at.
    static func hasGPSDirectory(inTIFF tiff: UnsafeRawBufferPointer) -> Bool {
        TIFFDirectory(tiff)?.entry(0x8825) != nil
    }
}
