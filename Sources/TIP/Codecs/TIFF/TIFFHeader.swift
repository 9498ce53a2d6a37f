/// What a TIFF's first image file directory says before any pixel is decoded: dimensions,
/// orientation, alpha, and where the file's last byte the image needs lies.
///
/// ```swift
/// guard let header = try TIFFHeader(bytes) else { return }   // nil: more bytes needed
/// print(header.width, header.height, header.orientation)
/// ```
///
/// The header is available once the directory and the strip or tile tables it points to have
/// arrived (a file whose directory comes last is only readable whole). Bytes that cannot start a TIFF
/// throw ``ImageDecodingError/corruptData(_:)``.
struct TIFFHeader: Equatable, Sendable {
    /// Width in pixels, as stored.
    let width: Int
    /// Height in pixels, as stored.
    let height: Int
    /// The orientation tag (1 when absent or invalid).
    let orientation: ImageOrientation
    /// Whether an extra sample is declared as alpha (associated or not).
    let hasAlpha: Bool
    /// The end of the last byte the first image needs: its directory, its tag values and every strip or tile.
    let fileLength: Int

    /// The signatures TIFF files start with: "II*\0" and "MM\0*", and BigTIFF's "II+\0" and "MM\0+".
    static let signatures: [[UInt8]] = [
        [0x49, 0x49, 0x2A, 0x00], [0x4D, 0x4D, 0x00, 0x2A], [0x49, 0x49, 0x2B, 0x00], [0x4D, 0x4D, 0x00, 0x2B],
    ]

    /// Whether `prefix` agrees with a TIFF signature as far as it goes.
    static func couldStartTIFF(_ prefix: some Collection<UInt8>) -> Bool {
        let head = Array(prefix.prefix(4))
        return signatures.contains { $0.starts(with: head) }
    }

    /// Parses the first directory; nil while bytes are missing.
    init?(_ bytes: UnsafeRawBufferPointer) throws(ImageDecodingError) {
        guard TIFFHeader.couldStartTIFF(bytes) else { throw .corruptData("not a TIFF signature") }
        guard let directory = TIFFDirectory(bytes), let entries = directory.entries(), let directoryEnd = directory.end,
            directoryEnd <= bytes.count
        else { return nil }
        func first(_ tag: Int) -> Int? {
            entries.first { $0.tag == tag }.flatMap { directory.values(of: $0, limit: 1)?.first }
        }
        guard let width = first(256), let height = first(257) else {
            throw .corruptData("no image width or length")
        }
        var end = directoryEnd
        for entry in entries {
            guard let valuesEnd = directory.valuesEnd(of: entry) else {
                throw .corruptData("tag \(entry.tag) out of range")
            }
            end = max(end, valuesEnd)
        }
        guard end <= bytes.count else { return nil }
        // Strips (273 / 279) or tiles (324 / 325): offsets and byte counts, pairwise.
        for (offsetsTag, countsTag) in [(273, 279), (324, 325)] {
            guard let offsetsEntry = entries.first(where: { $0.tag == offsetsTag }),
                let countsEntry = entries.first(where: { $0.tag == countsTag }),
                let offsets = directory.values(of: offsetsEntry), let counts = directory.values(of: countsEntry)
            else { continue }
            for (offset, count) in zip(offsets, counts) {
                let (pieceEnd, overflow) = offset.addingReportingOverflow(count)
                guard !overflow else { throw .corruptData("strip or tile out of range") }
                end = max(end, pieceEnd)
            }
        }
        let extra = entries.first { $0.tag == 338 }.flatMap { directory.values(of: $0, limit: 8) } ?? []
        self.width = width
        self.height = height
        orientation = first(274).flatMap { ImageOrientation(rawValue: $0) } ?? .up
        hasAlpha = extra.contains(1) || extra.contains(2)
        fileLength = end
    }
}
