/// Decodes the pixels a ``TGAHeader`` describes: colour-mapped (8- or 16-bit indices), true colour
/// (15, 16, 24, 32 bits), gray (8 bits) and gray with alpha (16 bits), uncompressed or run-length
/// encoded (packets may cross rows), in any of the four origins.
///
/// ```swift
/// let (bitmap, isPartial) = try TGAPixelReader.decode(bytes, header: header)
/// ```
///
/// Output: `gray8` for 8-bit gray, `rgba8Premultiplied` when the pixels carry alpha, else `rgbx8`.
/// Alpha is used when the pixel layout has it (32 bits, a 16-bit pixel whose descriptor declares an
/// alpha bit, gray with alpha, a colour map with alpha), unless the TGA 2.0 extension area says the
/// alpha is absent or to be ignored, or every alpha value is zero in a file without that area (writers that
/// leave it unfilled); an extension area saying "premultiplied" is honoured. Rows the data does not reach are
/// filled (see ``Bitmap/fillMissingRows(_:)``) and the result is partial; with no row at all it throws
/// ``ImageDecodingError/truncatedData``. Stateless.
enum TGAPixelReader {
    static func decode(_ bytes: UnsafeRawBufferPointer, header: TGAHeader) throws(ImageDecodingError) -> (
        bitmap: Bitmap, isPartial: Bool
    ) {
        let attributes = extensionAttributes(bytes)
        // Extension area attributes: 0 no alpha, 1 and 2 alpha to ignore, 3 alpha, 4 premultiplied alpha.
        let alphaAllowed = attributes.map { $0 >= 3 } ?? true
        let isPremultiplied = attributes == 4
        let usesAlpha = header.mayHaveAlpha && alphaAllowed
        let format: PixelFormat =
            usesAlpha ? .rgba8Premultiplied : (header.kind == .gray && header.pixelDepth == 8 ? .gray8 : .rgbx8)
        guard var bitmap = Bitmap(uninitializedWidth: header.width, height: header.height, format: format) else {
            throw .unsupported("out of memory for \(header.width)x\(header.height)")
        }
        let rowLength = header.width * header.bytesPerPixel
        var source = RowSource(bytes: bytes, header: header)
        let scratch = UnsafeMutableRawBufferPointer.allocate(byteCount: rowLength, alignment: 16)
        defer { scratch.deallocate() }
        var rows = 0
        var sawAlpha = false
        let stride = bitmap.bytesPerRow
        let converter = RowConverter(header: header, usesAlpha: usesAlpha, isPremultiplied: isPremultiplied)
        bitmap.withUnsafeMutableBytes { out in
            guard let target = out.baseAddress else { return }
            while rows < header.height, let row = source.nextRow(into: scratch) {
                let y = header.isTopToBottom ? rows : header.height - 1 - rows
                if converter.convert(row, to: target + y * stride, width: header.width, reversed: header.isRightToLeft)
                {
                    sawAlpha = true
                }
                rows += 1
            }
        }
        guard rows > 0 else { throw .truncatedData }
        if usesAlpha && !sawAlpha && header.kind != .colorMapped && attributes == nil {
            // Alpha that is zero everywhere, in a file that does not say its alpha is real, was never filled in:
            // decode the colours as opaque.
            var opaque = RowSource(bytes: bytes, header: header)
            let plain = RowConverter(header: header, usesAlpha: false, isPremultiplied: false)
            bitmap.withUnsafeMutableBytes { out in
                guard let target = out.baseAddress else { return }
                for index in 0..<rows {
                    guard let row = opaque.nextRow(into: scratch) else { return }
                    let y = header.isTopToBottom ? index : header.height - 1 - index
                    _ = plain.convert(row, to: target + y * stride, width: header.width, reversed: header.isRightToLeft)
                }
            }
        }
        if rows < header.height {
            bitmap.fillMissingRows(header.isTopToBottom ? rows..<header.height : 0..<(header.height - rows))
        }
        return (bitmap, rows < header.height)
    }

    /// The attributes type of a TGA 2.0 extension area (byte 494 of it), when the file ends with the
    /// TGA 2.0 footer and its extension area is inside the file.
    static func extensionAttributes(_ bytes: UnsafeRawBufferPointer) -> Int? {
        guard bytes.count >= 26 else { return nil }
        let footer = bytes.count - 26
        guard bytes[(footer + 8)...].elementsEqual(TGAHeader.footerSignature),
            let offset = ByteReader(bytes, littleEndian: true).u32(at: footer), offset > 0,
            offset <= footer - 495
        else { return nil }
        return Int(bytes[offset + 494])
    }
}

/// Yields stored rows of raw pixel bytes, expanding run-length packets (which may cross rows).
private struct RowSource {
    let bytes: UnsafeRawBufferPointer
    let header: TGAHeader
    var cursor: Int
    /// The packet being expanded: pixels left, and whether it repeats one pixel (at `runPixel`).
    var packetLeft = 0
    var packetIsRun = false
    var runPixel = 0

    init(bytes: UnsafeRawBufferPointer, header: TGAHeader) {
        self.bytes = bytes
        self.header = header
        cursor = header.pixelOffset
    }

    /// The next stored row, or nil when the data ends before it is complete.
    mutating func nextRow(into scratch: UnsafeMutableRawBufferPointer) -> UnsafeRawPointer? {
        let pixelBytes = header.bytesPerPixel, rowLength = header.width * pixelBytes
        guard let base = bytes.baseAddress else { return nil }
        if !header.isRunLengthEncoded {
            guard cursor <= bytes.count - rowLength else { return nil }
            defer { cursor += rowLength }
            return base + cursor
        }
        guard let out = scratch.baseAddress else { return nil }
        var filled = 0
        while filled < header.width {
            if packetLeft == 0 {
                guard cursor < bytes.count else { return nil }
                let packet = Int(bytes[cursor])
                cursor += 1
                packetLeft = (packet & 0x7F) + 1
                packetIsRun = packet & 0x80 != 0
                if packetIsRun {
                    guard cursor <= bytes.count - pixelBytes else { return nil }
                    runPixel = cursor
                    cursor += pixelBytes
                }
            }
            let count = min(packetLeft, header.width - filled)
            let target = out + filled * pixelBytes
            if packetIsRun {
                switch pixelBytes {
                case 4:
                    target.initializeMemory(
                        as: UInt32.self, repeating: (base + runPixel).loadUnaligned(as: UInt32.self), count: count)
                case 1:
                    target.initializeMemory(as: UInt8.self, repeating: bytes[runPixel], count: count)
                default:
                    for i in 0..<count {
                        (target + i * pixelBytes).copyMemory(from: base + runPixel, byteCount: pixelBytes)
                    }
                }
            } else {
                let length = count * pixelBytes
                guard cursor <= bytes.count - length else { return nil }
                target.copyMemory(from: base + cursor, byteCount: length)
                cursor += length
            }
            packetLeft -= count
            filled += count
        }
        return UnsafeRawPointer(out)
    }
}

/// Converts one stored row of raw TGA pixels into a bitmap row.
private struct RowConverter {
    let header: TGAHeader
    let usesAlpha: Bool
    let isPremultiplied: Bool

    /// Writes `width` pixels (right to left when `reversed`); returns whether one had a non-zero alpha.
    func convert(_ row: UnsafeRawPointer, to target: UnsafeMutableRawPointer, width: Int, reversed: Bool) -> Bool {
        let source = row.assumingMemoryBound(to: UInt8.self)
        if header.kind == .gray && header.pixelDepth == 8 && !usesAlpha {
            let out = target.assumingMemoryBound(to: UInt8.self)
            if reversed {
                for x in 0..<width { out[width - 1 - x] = source[x] }
            } else {
                out.update(from: source, count: width)
            }
            return false
        }
        let out = target.assumingMemoryBound(to: UInt32.self)
        var any: UInt32 = 0
        func store(_ x: Int, _ word: UInt32) { out[reversed ? width - 1 - x : x] = word }
        switch (header.kind, header.pixelDepth) {
        case (.colorMapped, _):
            let wide = header.pixelDepth == 16
            header.palette.withUnsafeBufferPointer { palette in
                for x in 0..<width {
                    let stored = wide ? Int(source[x * 2]) | Int(source[x * 2 + 1]) << 8 : Int(source[x])
                    let index = stored - header.paletteStart
                    store(x, index >= 0 && index < palette.count ? palette[index] : RGBAWord.opaque(0, 0, 0))
                }
            }
        case (.gray, _):
            for x in 0..<width {
                let g = UInt32(source[x * 2]), a = usesAlpha ? UInt32(source[x * 2 + 1]) : 255
                any |= a
                store(x, word(g, g, g, a))
            }
        case (_, 24):
            var s = source
            for x in 0..<width {
                store(x, RGBAWord.opaque(UInt32(s[2]), UInt32(s[1]), UInt32(s[0])))
                s += 3
            }
        case (_, 32):
            let words = UnsafeRawPointer(source)
            for x in 0..<width {
                let v = UInt32(littleEndian: words.loadUnaligned(fromByteOffset: x * 4, as: UInt32.self))
                let a = usesAlpha ? v >> 24 : 255
                any |= a
                store(x, word((v >> 16) & 0xFF, (v >> 8) & 0xFF, v & 0xFF, a))
            }
        default:
            let bits = header.pixelDepth
            let raw = UnsafeRawBufferPointer(start: row, count: width * 2)
            for x in 0..<width {
                let c = TGAHeader.color(raw, at: x * 2, bits: bits, alphaBits: usesAlpha ? header.alphaBits : 0)
                any |= c.a
                store(x, word(c.r, c.g, c.b, c.a))
            }
        }
        return usesAlpha && any != 0
    }

    /// A pixel as a bitmap word: premultiplied here unless the file's colours already are.
    @inline(__always)
    private func word(_ r: UInt32, _ g: UInt32, _ b: UInt32, _ a: UInt32) -> UInt32 {
        if a == 255 || !usesAlpha { return RGBAWord.opaque(r, g, b) }
        if isPremultiplied { return (min(r, a) | min(g, a) << 8 | min(b, a) << 16 | a << 24).littleEndian }
        return RGBAWord.premultiplied(r, g, b, a)
    }
}
