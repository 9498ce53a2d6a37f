/// Decodes the pixels a ``BMPHeader`` describes: indexed (1, 2, 4, 8 bits), 16- and 32-bit bit fields,
/// 24-bit BGR, RLE8 and RLE4, bottom-up and top-down, and icon entries with their AND mask.
///
/// ```swift
/// let (bitmap, isPartial) = try BMPPixelReader.decode(bytes, header: header)
/// ```
///
/// Output: `gray8` for indexed images whose colours are all gray, `rgba8Premultiplied` when the pixels
/// carry alpha (an alpha mask, an icon, or run-length encoding, whose skipped pixels are transparent as
/// in browsers), else `rgbx8`. An alpha channel that is zero everywhere is ignored (writers that
/// declare one without filling it), as browsers do. Rows the data does not reach are filled (see
/// ``Bitmap/fillMissingRows(_:)``) and the result is partial; with no row at all it throws
/// ``ImageDecodingError/truncatedData``. Every read is bounds-checked. Stateless.
enum BMPPixelReader {
    static func decode(_ bytes: UnsafeRawBufferPointer, header: BMPHeader) throws(ImageDecodingError) -> (
        bitmap: Bitmap, isPartial: Bool
    ) {
        guard let base = bytes.baseAddress else { throw .truncatedData }
        let format: PixelFormat
        if header.hasAlpha {
            format = .rgba8Premultiplied
        } else if header.bitCount <= 8 && header.hasGrayPalette {
            format = .gray8
        } else {
            format = .rgbx8
        }
        let pixels = UnsafeRawBufferPointer(start: base, count: bytes.count)
        if header.compression != .none {
            // Nothing to show without a single run-length code.
            guard bytes.count - header.pixelOffset >= 2 else { throw .truncatedData }
            guard var bitmap = Bitmap(width: header.width, height: header.height, format: format) else {
                throw outOfMemory(header)
            }
            let isComplete = decodeRunLengths(pixels, header: header, into: &bitmap)
            return (bitmap, !isComplete)
        }
        guard var bitmap = Bitmap(uninitializedWidth: header.width, height: header.height, format: format) else {
            throw outOfMemory(header)
        }
        let available = max(0, bytes.count - header.pixelOffset)
        let rows = min(header.height, available / header.rowBytes)
        guard rows > 0 else { throw .truncatedData }
        let sawAlpha = decodeRows(pixels, header: header, rows: rows, into: &bitmap, usesAlpha: true)
        let declaresAlpha = header.masks.alpha != 0 || (header.isIconEntry && header.bitCount == 32)
        if declaresAlpha && !sawAlpha {
            // An alpha channel that is zero everywhere was never filled in: show the colours.
            _ = decodeRows(pixels, header: header, rows: rows, into: &bitmap, usesAlpha: false)
        }
        var maskComplete = true
        if header.isIconEntry && !sawAlpha {
            maskComplete = applyANDMask(pixels, header: header, rows: rows, to: &bitmap)
        }
        if rows < header.height {
            bitmap.fillMissingRows(header.isTopDown ? rows..<header.height : 0..<(header.height - rows))
        }
        return (bitmap, rows < header.height || !maskComplete)
    }

    private static func outOfMemory(_ header: BMPHeader) -> ImageDecodingError {
        .unsupported("out of memory for \(header.width)x\(header.height)")
    }

    /// The image row stored `index`-th.
    private static func imageRow(_ index: Int, header: BMPHeader) -> Int {
        header.isTopDown ? index : header.height - 1 - index
    }

    /// Converts the first `rows` stored rows; returns whether any pixel had a non-zero alpha.
    private static func decodeRows(
        _ bytes: UnsafeRawBufferPointer, header: BMPHeader, rows: Int, into bitmap: inout Bitmap,
        usesAlpha: Bool
    ) -> Bool {
        let stride = bitmap.bytesPerRow, width = header.width, format = bitmap.format
        guard let base = bytes.baseAddress else { return false }
        let source = base + header.pixelOffset
        let converter = RowConverter(
            header: header, usesAlpha: usesAlpha && (header.masks.alpha != 0 || header.isIconEntry))
        var sawAlpha = false
        bitmap.withUnsafeMutableBytes { out in
            guard let target = out.baseAddress else { return }
            for index in 0..<rows {
                let row = source + index * header.rowBytes
                let y = imageRow(index, header: header)
                let destination = target + y * stride
                if format == .gray8 {
                    converter.grayRow(
                        row.assumingMemoryBound(to: UInt8.self), destination.assumingMemoryBound(to: UInt8.self),
                        width: width)
                } else if converter.rgbaRow(
                    row.assumingMemoryBound(to: UInt8.self), destination.assumingMemoryBound(to: UInt32.self),
                    width: width)
                {
                    sawAlpha = true
                }
            }
        }
        return sawAlpha
    }

    /// Makes the pixels the AND mask sets transparent. Returns false when the mask is cut short (the
    /// rows it does not reach stay opaque).
    private static func applyANDMask(
        _ bytes: UnsafeRawBufferPointer, header: BMPHeader, rows: Int, to bitmap: inout Bitmap
    ) -> Bool {
        let maskStart = header.pixelOffset + header.rowBytes * header.height
        let maskRowBytes = header.maskRowBytes
        let stride = bitmap.bytesPerRow, width = header.width
        var complete = true
        bitmap.withUnsafeMutableBytes { out in
            guard let target = out.baseAddress else { return }
            for index in 0..<rows {
                let row = maskStart + index * maskRowBytes
                guard row + maskRowBytes <= bytes.count else {
                    complete = false
                    return
                }
                let destination = (target + imageRow(index, header: header) * stride).assumingMemoryBound(
                    to: UInt32.self)
                for x in 0..<width where bytes[row + x >> 3] & (0x80 >> UInt8(x & 7)) != 0 {
                    destination[x] = 0
                }
            }
        }
        return complete
    }

    /// Decodes RLE8 / RLE4 data into a transparent canvas. Returns whether the data reached its
    /// end-of-bitmap code or the last row.
    private static func decodeRunLengths(_ bytes: UnsafeRawBufferPointer, header: BMPHeader, into bitmap: inout Bitmap)
        -> Bool
    {
        let isRLE4 = header.compression == .rle4
        let width = header.width, height = header.height, stride = bitmap.bytesPerRow
        let palette = header.palette
        let end = min(bytes.count, header.pixelDataEnd ?? bytes.count)
        var cursor = header.pixelOffset
        var x = 0, y = 0  // y counts stored rows, from the bottom
        var finished = false
        bitmap.withUnsafeMutableBytes { out in
            guard let target = out.baseAddress else { return }
            func put(_ index: Int) {
                if x < width, y < height {
                    let row = (target + (height - 1 - y) * stride).assumingMemoryBound(to: UInt32.self)
                    row[x] = palette[index]
                }
                x += 1
            }
            while cursor + 2 <= end, y < height {
                let count = Int(bytes[cursor]), value = Int(bytes[cursor + 1])
                cursor += 2
                if count > 0 {
                    for i in 0..<count where x < width {
                        put(isRLE4 ? (i & 1 == 0 ? value >> 4 : value & 0x0F) : value)
                    }
                    continue
                }
                switch value {
                case 0:  // end of line
                    x = 0
                    y += 1
                case 1:  // end of bitmap
                    finished = true
                    return
                case 2:  // delta
                    guard cursor + 2 <= end else { return }
                    x += Int(bytes[cursor])
                    y += Int(bytes[cursor + 1])
                    cursor += 2
                default:  // absolute run of `value` pixels, padded to 16 bits
                    let byteCount = isRLE4 ? (value + 1) / 2 : value
                    guard cursor + byteCount <= end else { return }
                    for i in 0..<value {
                        let byte = Int(bytes[cursor + (isRLE4 ? i / 2 : i)])
                        put(isRLE4 ? (i & 1 == 0 ? byte >> 4 : byte & 0x0F) : byte)
                    }
                    cursor += (byteCount + 1) & ~1
                }
            }
        }
        return finished || y >= height
    }
}

/// Converts one stored row of an uncompressed bitmap to RGBA words or gray bytes.
private struct RowConverter {
    enum Kind {
        case indexed(bits: Int)
        case bgr24
        case bgrx32
        case bgra32
        case masked(bytesPerPixel: Int)
    }

    let kind: Kind
    let palette: [UInt32]
    let usesAlpha: Bool
    /// For masked pixels: shift, then a 256-entry table taking the top bits of each channel to 0...255.
    let shifts: [Int]
    let reductions: [Int]
    let tables: [[UInt8]]
    let masks: [Int]

    init(header: BMPHeader, usesAlpha: Bool) {
        self.usesAlpha = usesAlpha
        palette = header.palette
        let masks = header.masks
        switch header.bitCount {
        case 1, 2, 4, 8: kind = .indexed(bits: header.bitCount)
        case 24: kind = .bgr24
        case 32 where masks == .bgra || (header.isIconEntry && masks == .defaults(bitCount: 32)):
            kind = usesAlpha ? .bgra32 : .bgrx32
        case 32 where masks == .defaults(bitCount: 32): kind = .bgrx32
        default: kind = .masked(bytesPerPixel: header.bitCount / 8)
        }
        var shifts: [Int] = [], reductions: [Int] = [], tables: [[UInt8]] = [], channelMasks: [Int] = []
        for mask in [masks.red, masks.green, masks.blue, masks.alpha] {
            let bits = mask.nonzeroBitCount
            shifts.append(mask == 0 ? 0 : mask.trailingZeroBitCount)
            reductions.append(max(0, bits - 8))
            let levels = 1 << min(bits, 8)
            tables.append(
                (0..<256).map { value in
                    guard bits > 0 else { return 0 }
                    let v = min(value, levels - 1)
                    return UInt8((v * 255 + (levels - 1) / 2) / (levels - 1))
                })
            channelMasks.append(mask)
        }
        self.shifts = shifts
        self.reductions = reductions
        self.tables = tables
        self.masks = channelMasks
    }

    /// Gray output (indexed images with a gray table): the table's red byte.
    func grayRow(_ source: UnsafePointer<UInt8>, _ target: UnsafeMutablePointer<UInt8>, width: Int) {
        guard case .indexed(let bits) = kind else { return }
        palette.withUnsafeBufferPointer { table in
            forEachIndex(source, bits: bits, width: width) { x, index in
                target[x] = UInt8(truncatingIfNeeded: UInt32(littleEndian: table[index]))
            }
        }
    }

    /// RGBA output; returns whether any pixel had a non-zero alpha (only tracked when `usesAlpha`).
    func rgbaRow(_ source: UnsafePointer<UInt8>, _ target: UnsafeMutablePointer<UInt32>, width: Int) -> Bool {
        switch kind {
        case .indexed(let bits):
            palette.withUnsafeBufferPointer { table in
                forEachIndex(source, bits: bits, width: width) { x, index in target[x] = table[index] }
            }
            return false
        case .bgr24:
            var s = source
            for x in 0..<width {
                target[x] = (UInt32(s[2]) | UInt32(s[1]) << 8 | UInt32(s[0]) << 16 | 0xFF00_0000).littleEndian
                s += 3
            }
            return false
        case .bgrx32:
            let words = UnsafeRawPointer(source)
            for x in 0..<width {
                let v = UInt32(littleEndian: words.loadUnaligned(fromByteOffset: x * 4, as: UInt32.self))
                target[x] = ((v >> 16) & 0xFF | v & 0xFF00 | (v & 0xFF) << 16 | 0xFF00_0000).littleEndian
            }
            return false
        case .bgra32:
            let words = UnsafeRawPointer(source)
            var any: UInt32 = 0
            for x in 0..<width {
                let v = UInt32(littleEndian: words.loadUnaligned(fromByteOffset: x * 4, as: UInt32.self))
                let alpha = v >> 24
                any |= alpha
                let rgba = (v >> 16) & 0xFF | v & 0xFF00 | (v & 0xFF) << 16
                target[x] = (alpha == 255 ? rgba | 0xFF00_0000 : premultiplied(rgba, alpha: alpha)).littleEndian
            }
            return any != 0
        case .masked(let bytesPerPixel):
            return maskedRow(source, target, width: width, bytesPerPixel: bytesPerPixel)
        }
    }

    private func maskedRow(
        _ source: UnsafePointer<UInt8>, _ target: UnsafeMutablePointer<UInt32>, width: Int, bytesPerPixel: Int
    ) -> Bool {
        var any = 0
        let hasAlpha = usesAlpha && masks[3] != 0
        tables[0].withUnsafeBufferPointer { red in
            tables[1].withUnsafeBufferPointer { green in
                tables[2].withUnsafeBufferPointer { blue in
                    tables[3].withUnsafeBufferPointer { alphaTable in
                        let raw = UnsafeRawPointer(source)
                        for x in 0..<width {
                            let v =
                                bytesPerPixel == 2
                                ? Int(UInt16(littleEndian: raw.loadUnaligned(fromByteOffset: x * 2, as: UInt16.self)))
                                : Int(UInt32(littleEndian: raw.loadUnaligned(fromByteOffset: x * 4, as: UInt32.self)))
                            let r = UInt32(red[((v & masks[0]) >> shifts[0]) >> reductions[0]])
                            let g = UInt32(green[((v & masks[1]) >> shifts[1]) >> reductions[1]])
                            let b = UInt32(blue[((v & masks[2]) >> shifts[2]) >> reductions[2]])
                            let rgb = r | g << 8 | b << 16
                            if hasAlpha {
                                let a = UInt32(alphaTable[((v & masks[3]) >> shifts[3]) >> reductions[3]])
                                any |= Int(a)
                                target[x] = (a == 255 ? rgb | 0xFF00_0000 : premultiplied(rgb, alpha: a)).littleEndian
                            } else {
                                target[x] = (rgb | 0xFF00_0000).littleEndian
                            }
                        }
                    }
                }
            }
        }
        return any != 0
    }

    /// `rgb` (bytes r, g, b in the low 24 bits) premultiplied by `alpha`, with alpha in the top byte.
    private func premultiplied(_ rgb: UInt32, alpha: UInt32) -> UInt32 {
        UInt32(littleEndian: RGBAWord.premultiplied(rgb & 0xFF, (rgb >> 8) & 0xFF, (rgb >> 16) & 0xFF, alpha))
    }

    /// Calls `body` with each pixel's colour-table index.
    private func forEachIndex(_ source: UnsafePointer<UInt8>, bits: Int, width: Int, _ body: (Int, Int) -> Void) {
        if bits == 8 {
            for x in 0..<width { body(x, Int(source[x])) }
            return
        }
        let perByte = 8 / bits, mask = (1 << bits) - 1
        for x in 0..<width {
            let byte = Int(source[x / perByte])
            let shift = 8 - bits * (x % perByte + 1)
            body(x, (byte >> shift) & mask)
        }
    }
}
