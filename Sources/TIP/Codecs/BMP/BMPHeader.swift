/// The layout of a Windows bitmap's pixels, from its DIB header (every header version: OS/2 core,
/// `BITMAPINFOHEADER`, V2-V5, OS/2 2.x) and, for a `.bmp` file, its file header. Icon entries (ICO)
/// hold the same DIB without the file header.
///
/// ```swift
/// guard let header = try BMPHeader(file: bytes) else { return }   // nil: more bytes needed
/// print(header.width, header.height, header.bitCount)
/// ```
///
/// Every field is validated: dimensions, bit counts, compressions and masks that cannot describe an
/// image throw ``ImageDecodingError/corruptData(_:)``; valid features this reader does not decode
/// (embedded JPEG or PNG, OS/2 Huffman and RLE24) throw ``ImageDecodingError/unsupported(_:)``.
struct BMPHeader: Equatable, Sendable {
    /// How the pixel data is stored.
    enum Compression: Equatable, Sendable {
        /// Uncompressed rows; 16- and 32-bit pixels go through ``BMPHeader/masks``.
        case none
        /// 8-bit run-length encoding (`BI_RLE8`).
        case rle8
        /// 4-bit run-length encoding (`BI_RLE4`).
        case rle4
    }

    /// Width in pixels.
    let width: Int
    /// Height in pixels (of the colour image: an icon's AND mask is not counted).
    let height: Int
    /// Whether the first stored row is the top one (a negative height in the header).
    let isTopDown: Bool
    /// Bits per pixel: 1, 2, 4, 8, 16, 24 or 32.
    let bitCount: Int
    /// The storage.
    let compression: Compression
    /// Channel masks of 16- and 32-bit pixels (the defaults when the file gives none).
    let masks: BMPChannelMasks
    /// The colour table as opaque RGBA words (bytes r, g, b, 255), 256 entries for indexed images
    /// (missing entries are opaque black), empty otherwise.
    let palette: [UInt32]
    /// Offset of the first pixel byte in the buffer the header was read from.
    let pixelOffset: Int
    /// Bytes per stored row (rows are padded to 4 bytes).
    let rowBytes: Int
    /// The end of the pixel data (an icon's AND mask included), when the header tells it.
    let pixelDataEnd: Int?
    /// Whether this is an icon entry, whose colour rows are followed by a 1-bit AND mask.
    let isIconEntry: Bool

    /// Whether the pixels carry alpha: an alpha mask, or an icon (its AND mask or 32-bit alpha).
    var hasAlpha: Bool { masks.alpha != 0 || isIconEntry || compression != .none }

    /// Whether every colour of the table is a shade of gray (indexed images then decode to gray).
    var hasGrayPalette: Bool {
        !palette.isEmpty
            && palette.allSatisfy { word in
                let r = word & 0xFF, g = (word >> 8) & 0xFF, b = (word >> 16) & 0xFF
                return r == g && g == b
            }
    }

    /// Bytes per row of an icon's AND mask.
    var maskRowBytes: Int { (width + 31) / 32 * 4 }

    /// The header of a `.bmp` file ("BM", file header, DIB header, masks, colour table), or nil while
    /// `bytes` is too short to tell.
    init?(file bytes: UnsafeRawBufferPointer) throws(ImageDecodingError) {
        let reader = ByteReader(bytes, littleEndian: true)
        guard reader.count >= 2 else { return nil }
        guard bytes[0] == 0x42, bytes[1] == 0x4D else { throw .corruptData("not a BMP signature") }
        guard let dataOffset = reader.u32(at: 10) else { return nil }
        try self.init(
            reader: reader, dibOffset: 14, declaredPixelOffset: dataOffset, fileSize: reader.u32(at: 2),
            isIconEntry: false)
    }

    /// The header of an icon entry's DIB starting at `offset` (its height counts the AND mask too), or
    /// nil while `bytes` is too short to tell.
    init?(iconEntry bytes: UnsafeRawBufferPointer, at offset: Int) throws(ImageDecodingError) {
        try self.init(
            reader: ByteReader(bytes, littleEndian: true), dibOffset: offset, declaredPixelOffset: nil, fileSize: nil,
            isIconEntry: true)
    }

    private init?(
        reader: ByteReader, dibOffset: Int, declaredPixelOffset: Int?, fileSize: Int?,
        isIconEntry: Bool
    ) throws(ImageDecodingError) {
        guard let size = reader.u32(at: dibOffset) else { return nil }
        guard [12, 40, 52, 56, 64, 108, 124].contains(size) else {
            throw size < 12 || size > 124
                ? .corruptData("DIB header size \(size)") : .unsupported("BMP header of \(size) bytes")
        }
        guard reader.contains(dibOffset, length: size) else { return nil }
        let rawWidth: Int, rawHeight: Int, bitCount: Int
        var compressionCode = 0, colorsUsed = 0, imageSize = 0
        if size == 12 {
            // OS/2 1.x core header: 16-bit sides, 3-byte colour table entries.
            rawWidth = reader.u16(at: dibOffset + 4) ?? 0
            rawHeight = reader.u16(at: dibOffset + 6) ?? 0
            bitCount = reader.u16(at: dibOffset + 10) ?? 0
        } else {
            rawWidth = reader.i32(at: dibOffset + 4) ?? 0
            rawHeight = reader.i32(at: dibOffset + 8) ?? 0
            bitCount = reader.u16(at: dibOffset + 14) ?? 0
            compressionCode = reader.u32(at: dibOffset + 16) ?? 0
            imageSize = reader.u32(at: dibOffset + 20) ?? 0
            colorsUsed = reader.u32(at: dibOffset + 32) ?? 0
        }
        guard rawWidth > 0, rawHeight != 0, rawHeight != Int(Int32.min) else {
            throw .corruptData("invalid dimensions \(rawWidth)x\(rawHeight)")
        }
        guard [1, 2, 4, 8, 16, 24, 32].contains(bitCount) else { throw .corruptData("\(bitCount) bits per pixel") }
        var height = abs(rawHeight)
        let isTopDown = rawHeight < 0
        if isIconEntry {
            // The height covers the colour rows and the AND mask.
            guard !isTopDown, height >= 2 else { throw .corruptData("icon entry height \(rawHeight)") }
            height /= 2
        }

        // Compression, and where the masks come from.
        var compression = Compression.none
        var maskCount = 0  // masks stored right after a 40-byte header
        var masks = BMPChannelMasks.defaults(bitCount: bitCount)
        let isOS2v2 = size == 64
        switch compressionCode {
        case 0: break
        case 1:
            guard bitCount == 8 else { throw .corruptData("RLE8 with \(bitCount) bits per pixel") }
            compression = .rle8
        case 2:
            guard bitCount == 4 else { throw .corruptData("RLE4 with \(bitCount) bits per pixel") }
            compression = .rle4
        case 3 where !isOS2v2, 6 where !isOS2v2:
            guard bitCount == 16 || bitCount == 32 else {
                throw .corruptData("bit fields with \(bitCount) bits per pixel")
            }
            if size >= 52 {
                let alpha = size >= 56 || compressionCode == 6 ? reader.u32(at: dibOffset + 52) ?? 0 : 0
                masks = BMPChannelMasks(
                    red: reader.u32(at: dibOffset + 40) ?? 0, green: reader.u32(at: dibOffset + 44) ?? 0,
                    blue: reader.u32(at: dibOffset + 48) ?? 0, alpha: alpha)
            } else {
                maskCount = compressionCode == 6 ? 4 : 3
                guard let red = reader.u32(at: dibOffset + size), let green = reader.u32(at: dibOffset + size + 4),
                    let blue = reader.u32(at: dibOffset + size + 8)
                else { return nil }
                var alpha = 0
                if maskCount == 4 {
                    guard let value = reader.u32(at: dibOffset + size + 12) else { return nil }
                    alpha = value
                }
                masks = BMPChannelMasks(red: red, green: green, blue: blue, alpha: alpha)
            }
            try masks.validate(bitCount: bitCount)
        case 4, 5:
            throw .unsupported(compressionCode == 4 ? "BMP with embedded JPEG" : "BMP with embedded PNG")
        default:
            throw isOS2v2
                ? .unsupported("OS/2 bitmap compression \(compressionCode)")
                : .corruptData("compression \(compressionCode)")
        }
        if isTopDown && compression != .none { throw .corruptData("top-down run-length-encoded bitmap") }

        // Row sizes, checked for overflow before any arithmetic on them.
        guard rawWidth <= Int(Int32.max), height <= Int(Int32.max) else { throw .corruptData("dimensions too large") }
        let (bits, overflow) = rawWidth.multipliedReportingOverflow(by: bitCount)
        guard !overflow, bits <= Int(UInt32.max) * 8 else { throw .corruptData("row too long") }
        let rowBytes = (bits + 31) / 32 * 4

        // Colour table.
        let tableStart = dibOffset + size + maskCount * 4
        let entrySize = size == 12 ? 3 : 4
        var palette: [UInt32] = []
        if bitCount <= 8 {
            let maximum = 1 << bitCount
            var count = colorsUsed > 0 && colorsUsed <= maximum ? colorsUsed : maximum
            if let declaredPixelOffset, declaredPixelOffset > tableStart {
                // A table that runs into the pixels is cut where they start.
                count = min(count, (declaredPixelOffset - tableStart) / entrySize)
            }
            guard reader.contains(tableStart, length: count * entrySize) else { return nil }
            palette = [UInt32](repeating: 0xFF00_0000, count: 256)
            for i in 0..<count {
                let entry = tableStart + i * entrySize
                let blue = UInt32(reader.bytes[entry]), green = UInt32(reader.bytes[entry + 1]),
                    red = UInt32(reader.bytes[entry + 2])
                palette[i] = (red | green << 8 | blue << 16 | 0xFF00_0000).littleEndian
            }
            colorsUsed = count
        } else if colorsUsed > 0, size != 12 {
            // A colour table for a true-colour image is only a display hint: skip it.
            colorsUsed = min(colorsUsed, 256)
        } else {
            colorsUsed = 0
        }
        let tableEnd = tableStart + colorsUsed * entrySize
        var pixelOffset = tableEnd
        if let declaredPixelOffset, declaredPixelOffset >= dibOffset + size + maskCount * 4 {
            pixelOffset = declaredPixelOffset
        }

        // Where the pixel data ends, when the header can tell (sizes no 32-bit file holds tell nothing:
        // the dimensions check refuses those images).
        var pixelDataEnd: Int?
        if compression == .none || isIconEntry {
            var (total, overflowed) = rowBytes.multipliedReportingOverflow(by: height)
            if isIconEntry && !overflowed {
                let maskBytes = (rawWidth + 31) / 32 * 4 * height
                (total, overflowed) = total.addingReportingOverflow(maskBytes)
            }
            if !overflowed, total <= Int(UInt32.max) { pixelDataEnd = pixelOffset + total }
        } else if imageSize > 0 {
            pixelDataEnd = pixelOffset + imageSize
        } else if let fileSize, fileSize > pixelOffset {
            // Run-length data without its size: the file header's size is the best guess.
            pixelDataEnd = fileSize
        }

        self.width = rawWidth
        self.height = height
        self.isTopDown = isTopDown
        self.bitCount = bitCount
        self.compression = compression
        self.masks = masks
        self.palette = palette
        self.pixelOffset = pixelOffset
        self.rowBytes = rowBytes
        self.pixelDataEnd = pixelDataEnd
        self.isIconEntry = isIconEntry
    }
}

/// Where the channels of a 16- or 32-bit pixel sit (`BI_BITFIELDS`); a zero mask means the channel is absent.
struct BMPChannelMasks: Equatable, Sendable {
    var red: Int
    var green: Int
    var blue: Int
    var alpha: Int

    /// The masks of `BI_RGB` pixels: x1r5g5b5 for 16 bits, x8r8g8b8 for 32 (the fourth byte is unused).
    static func defaults(bitCount: Int) -> BMPChannelMasks {
        bitCount == 16
            ? BMPChannelMasks(red: 0x7C00, green: 0x03E0, blue: 0x001F, alpha: 0)
            : BMPChannelMasks(red: 0xFF_0000, green: 0xFF00, blue: 0xFF, alpha: 0)
    }

    /// The common 32-bit layout with alpha: a8r8g8b8.
    static let bgra = BMPChannelMasks(red: 0xFF_0000, green: 0xFF00, blue: 0xFF, alpha: 0xFF00_0000)

    /// Throws unless every mask is a run of contiguous bits inside the pixel and no two overlap.
    func validate(bitCount: Int) throws(ImageDecodingError) {
        let limit = bitCount == 32 ? Int(UInt32.max) : (1 << bitCount) - 1
        var seen = 0
        for mask in [red, green, blue, alpha] where mask != 0 {
            let shifted = mask >> mask.trailingZeroBitCount
            guard mask <= limit, shifted & (shifted + 1) == 0, seen & mask == 0 else {
                throw .corruptData("invalid channel masks")
            }
            seen |= mask
        }
    }
}
