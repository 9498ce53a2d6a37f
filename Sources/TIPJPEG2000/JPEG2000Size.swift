import TIP

/// The SIZ marker segment (ISO/IEC 15444-1 A.5.1), read by us before OpenJPEG is given the header:
/// OpenJPEG allocates its per-tile and per-component structures while reading it, so the image size,
/// the tile count and the component count are checked first.
struct JPEG2000Size: Equatable {
    /// The image area on the reference grid.
    let width: Int
    let height: Int
    /// How many tiles cover the image.
    let tileCount: Int
    /// Csiz.
    let componentCount: Int

    /// The SIZ segment right after the SOC marker at `start`; nil until it has arrived or when it is invalid.
    init?(_ bytes: UnsafeRawBufferPointer, codestreamStart start: Int, limit: Int) {
        // SOC, SIZ marker, Lsiz, Rsiz, then Xsiz Ysiz XOsiz YOsiz XTsiz YTsiz XTOsiz YTOsiz (4 bytes each), Csiz.
        guard start + 42 <= limit, bytes[start + 2] == 0xFF, bytes[start + 3] == 0x51 else { return nil }
        func field(_ index: Int) -> Int {
            let offset = start + 8 + 4 * index
            return Int(bytes[offset]) << 24 | Int(bytes[offset + 1]) << 16 | Int(bytes[offset + 2]) << 8
                | Int(bytes[offset + 3])
        }
        let (x1, y1, x0, y0, tileWidth, tileHeight, tileX0, tileY0) = (
            field(0), field(1), field(2), field(3), field(4), field(5), field(6), field(7)
        )
        guard x1 > x0, y1 > y0, tileWidth > 0, tileHeight > 0, tileX0 <= x0, tileY0 <= y0 else { return nil }
        width = x1 - x0
        height = y1 - y0
        let (tiles, overflow) = ((x1 - tileX0 + tileWidth - 1) / tileWidth).multipliedReportingOverflow(
            by: (y1 - tileY0 + tileHeight - 1) / tileHeight)
        tileCount = overflow ? Int.max : tiles
        componentCount = Int(bytes[start + 40]) << 8 | Int(bytes[start + 41])
    }

    /// The most tiles an image may have: one per 1,024 pixels (tiles of 32x32 on average), at least 16.
    /// Encoders use one tile or tiles of hundreds of pixels a side; OpenJPEG allocates several
    /// kilobytes per tile while reading the header.
    var maximumTileCount: Int { max(16, width * height / 1024) }

    /// Throws unless OpenJPEG may be given this header: dimensions within `options`, a sane tile
    /// count, at most 5 components.
    func check(_ options: ImageDecodingOptions) throws(ImageDecodingError) {
        try options.checkDimensions(width: width, height: height)
        guard tileCount <= maximumTileCount else {
            throw .unsupported("JPEG 2000 with \(tileCount) tiles for \(width)x\(height) pixels")
        }
        guard componentCount >= 1, componentCount <= 5 else {
            throw .unsupported("JPEG 2000 with \(componentCount) components")
        }
    }
}
