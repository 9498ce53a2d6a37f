/// The 18-byte header of a TARGA (TGA) file, its colour map, and the attributes of the TGA 2.0 footer.
///
/// ```swift
/// guard let header = try TGAHeader(bytes) else { return }   // nil: more bytes needed
/// print(header.width, header.height, header.pixelDepth)
/// ```
///
/// TGA has no signature: ``looksValid(_:)`` checks that every header field holds a value the format
/// allows, which is what detection relies on (with the "TRUEVISION-XFILE" footer of TGA 2.0 files
/// when the whole file is there). Invalid fields throw ``ImageDecodingError/corruptData(_:)``;
/// Huffman-compressed and interleaved files throw ``ImageDecodingError/unsupported(_:)``.
struct TGAHeader: Equatable, Sendable {
    /// What the pixels hold.
    enum Kind: Equatable, Sendable {
        /// Indices into the colour map.
        case colorMapped
        /// BGR(A) pixels of 15, 16, 24 or 32 bits.
        case trueColor
        /// Gray (8 bits) or gray and alpha (16 bits).
        case gray
    }

    /// The pixel kind.
    let kind: Kind
    /// Whether the pixels are run-length encoded (image types 9, 10, 11).
    let isRunLengthEncoded: Bool
    /// Width in pixels.
    let width: Int
    /// Height in pixels.
    let height: Int
    /// Bits per stored pixel: 8 or 16 for indices and gray, 15, 16, 24 or 32 for true colour.
    let pixelDepth: Int
    /// Alpha bits the descriptor declares (0...8).
    let alphaBits: Int
    /// Whether the first stored row is the top one (descriptor bit 5); else the bottom one.
    let isTopToBottom: Bool
    /// Whether stored rows run right to left (descriptor bit 4).
    let isRightToLeft: Bool
    /// The colour map as premultiplied RGBA words (bytes r, g, b, a), empty for other kinds.
    let palette: [UInt32]
    /// The colour map's first index (stored index `i` names palette entry `i - paletteStart`).
    let paletteStart: Int
    /// Whether the colour map has an alpha channel.
    let paletteHasAlpha: Bool
    /// Offset of the first pixel byte.
    let pixelOffset: Int

    /// Bytes per stored pixel.
    var bytesPerPixel: Int { (pixelDepth + 7) / 8 }

    /// Whether the pixels may carry alpha: a 32-bit or gray+alpha pixel, a 16-bit pixel with an alpha
    /// bit, or a colour map with alpha.
    var mayHaveAlpha: Bool {
        switch kind {
        case .colorMapped: return paletteHasAlpha
        case .gray: return pixelDepth == 16
        case .trueColor: return pixelDepth == 32 || (pixelDepth == 16 && alphaBits > 0)
        }
    }

    /// Where uncompressed pixel data ends (nil when run-length encoded: only decoding tells).
    var pixelDataEnd: Int? {
        isRunLengthEncoded ? nil : pixelOffset + width * height * bytesPerPixel
    }

    /// The 18 bytes of "TRUEVISION-XFILE.\0" that end a TGA 2.0 file.
    static let footerSignature = Array("TRUEVISION-XFILE.".utf8) + [0]

    /// Whether `bytes` (at least 18) hold a header whose every field is a value TGA allows.
    static func looksValid(_ bytes: UnsafeRawBufferPointer) -> Bool {
        guard bytes.count >= 18 else { return false }
        return (try? fields(ByteReader(bytes, littleEndian: true))) != nil
    }

    /// Parses the header and colour map; nil while `bytes` is too short.
    init?(_ bytes: UnsafeRawBufferPointer) throws(ImageDecodingError) {
        let reader = ByteReader(bytes, littleEndian: true)
        guard reader.count >= 18 else { return nil }
        let f = try TGAHeader.fields(reader)
        let entryBytes = (f.entryBits + 7) / 8
        let mapOffset = 18 + f.idLength
        let mapLength = f.hasColorMap ? f.mapLength * entryBytes : 0
        guard reader.contains(mapOffset, length: mapLength) else { return nil }
        var palette: [UInt32] = []
        var paletteHasAlpha = false
        if f.kind == .colorMapped {
            var straight: [(r: UInt32, g: UInt32, b: UInt32, a: UInt32)] = []
            straight.reserveCapacity(f.mapLength)
            for i in 0..<f.mapLength {
                straight.append(
                    TGAHeader.color(
                        reader.bytes, at: mapOffset + i * entryBytes, bits: f.entryBits, alphaBits: f.alphaBits))
            }
            // Alpha that is zero everywhere was never filled in: the colours are opaque.
            paletteHasAlpha = straight.contains { $0.a != 0 } && straight.contains { $0.a != 255 }
            palette = straight.map {
                paletteHasAlpha ? RGBAWord.premultiplied($0.r, $0.g, $0.b, $0.a) : RGBAWord.opaque($0.r, $0.g, $0.b)
            }
        }
        kind = f.kind
        isRunLengthEncoded = f.isRunLengthEncoded
        width = f.width
        height = f.height
        pixelDepth = f.pixelDepth
        alphaBits = f.alphaBits
        isTopToBottom = f.descriptor & 0x20 != 0
        isRightToLeft = f.descriptor & 0x10 != 0
        self.palette = palette
        paletteStart = f.mapFirst
        self.paletteHasAlpha = paletteHasAlpha
        pixelOffset = mapOffset + mapLength
    }

    private struct Fields {
        var idLength: Int
        var hasColorMap: Bool
        var kind: Kind
        var isRunLengthEncoded: Bool
        var mapFirst: Int
        var mapLength: Int
        var entryBits: Int
        var width: Int
        var height: Int
        var pixelDepth: Int
        var descriptor: Int
        var alphaBits: Int { descriptor & 0x0F }
    }

    private static func fields(_ reader: ByteReader) throws(ImageDecodingError) -> Fields {
        let b = reader.bytes
        let mapType = Int(b[1]), imageType = Int(b[2])
        guard mapType <= 1 else { throw .corruptData("colour map type \(mapType)") }
        let kind: Kind
        switch imageType & ~8 {
        case 1: kind = .colorMapped
        case 2: kind = .trueColor
        case 3: kind = .gray
        default:
            throw imageType == 32 || imageType == 33
                ? .unsupported("Huffman-compressed TGA") : .corruptData("image type \(imageType)")
        }
        let f = Fields(
            idLength: Int(b[0]), hasColorMap: mapType == 1, kind: kind, isRunLengthEncoded: imageType & 8 != 0,
            mapFirst: reader.u16(at: 3) ?? 0, mapLength: reader.u16(at: 5) ?? 0, entryBits: Int(b[7]),
            width: reader.u16(at: 12) ?? 0, height: reader.u16(at: 14) ?? 0, pixelDepth: Int(b[16]),
            descriptor: Int(b[17]))
        guard f.width > 0, f.height > 0 else { throw .corruptData("invalid dimensions \(f.width)x\(f.height)") }
        guard f.descriptor & 0xC0 == 0 else { throw .unsupported("interleaved TGA") }
        guard f.alphaBits <= 8 else { throw .corruptData("\(f.alphaBits) alpha bits") }
        if f.hasColorMap {
            guard [15, 16, 24, 32].contains(f.entryBits), f.mapLength > 0 else {
                throw .corruptData("colour map of \(f.mapLength) entries of \(f.entryBits) bits")
            }
        } else {
            // Without a colour map its specification must be empty.
            guard f.mapLength == 0, [0, 15, 16, 24, 32].contains(f.entryBits) else {
                throw .corruptData("colour map without a colour map type")
            }
        }
        switch kind {
        case .colorMapped:
            guard f.hasColorMap, f.pixelDepth == 8 || f.pixelDepth == 16 else {
                throw .corruptData("colour-mapped TGA with \(f.pixelDepth)-bit pixels")
            }
        case .trueColor:
            guard [15, 16, 24, 32].contains(f.pixelDepth) else {
                throw .corruptData("true-colour TGA with \(f.pixelDepth)-bit pixels")
            }
        case .gray:
            guard f.pixelDepth == 8 || f.pixelDepth == 16 else {
                throw .corruptData("gray TGA with \(f.pixelDepth)-bit pixels")
            }
        }
        return f
    }

    /// The colour stored at `offset` in `bits` (15, 16, 24 or 32), not premultiplied. Alpha is 255
    /// when the layout has none; a 16-bit colour's top bit is its alpha when `alphaBits` > 0.
    static func color(_ bytes: UnsafeRawBufferPointer, at offset: Int, bits: Int, alphaBits: Int) -> (
        r: UInt32, g: UInt32, b: UInt32, a: UInt32
    ) {
        switch bits {
        case 15, 16:
            let v = UInt32(bytes[offset]) | UInt32(bytes[offset + 1]) << 8
            func expand(_ c: UInt32) -> UInt32 { c << 3 | c >> 2 }
            return (
                expand((v >> 10) & 0x1F), expand((v >> 5) & 0x1F), expand(v & 0x1F),
                bits == 16 && alphaBits > 0 ? (v >> 15) * 255 : 255
            )
        case 24:
            return (UInt32(bytes[offset + 2]), UInt32(bytes[offset + 1]), UInt32(bytes[offset]), 255)
        default:
            return (
                UInt32(bytes[offset + 2]), UInt32(bytes[offset + 1]), UInt32(bytes[offset]), UInt32(bytes[offset + 3])
            )
        }
    }
}
