/// The fields of a PNG's IHDR chunk, validated.
struct PNGHeader: Equatable, Sendable {
    /// PNG colour types.
    enum ColorType: UInt8, Sendable {
        case gray = 0
        case rgb = 2
        case palette = 3
        case grayAlpha = 4
        case rgbAlpha = 6
    }

    let width: Int
    let height: Int
    let bitDepth: Int
    let colorType: ColorType
    let isInterlaced: Bool

    /// Parses the 13 IHDR data bytes; nil when any field is invalid.
    init?(ihdr bytes: UnsafeRawBufferPointer) {
        guard bytes.count >= 13 else { return nil }
        let width = Int(PNGHeader.bigEndianUInt32(bytes, at: 0))
        let height = Int(PNGHeader.bigEndianUInt32(bytes, at: 4))
        guard width > 0, height > 0, width <= 0x7FFF_FFFF, height <= 0x7FFF_FFFF,
            let colorType = ColorType(rawValue: bytes[9])
        else { return nil }
        let depth = Int(bytes[8])
        let allowed: [Int]
        switch colorType {
        case .gray: allowed = [1, 2, 4, 8, 16]
        case .palette: allowed = [1, 2, 4, 8]
        case .rgb, .grayAlpha, .rgbAlpha: allowed = [8, 16]
        }
        guard allowed.contains(depth), bytes[10] == 0, bytes[11] == 0, bytes[12] <= 1 else { return nil }
        self.width = width
        self.height = height
        self.bitDepth = depth
        self.colorType = colorType
        self.isInterlaced = bytes[12] == 1
    }

    /// Whether the colour type carries an alpha channel (tRNS is tracked separately).
    var hasAlphaChannel: Bool { colorType == .grayAlpha || colorType == .rgbAlpha }

    /// The pixel format decoded images get: gray8 for gray without tRNS, premultiplied RGBA when
    /// there is an alpha channel or tRNS, else rgbx8.
    func outputFormat(hasTransparencyChunk: Bool) -> PixelFormat {
        if hasAlphaChannel || hasTransparencyChunk { return .rgba8Premultiplied }
        return colorType == .gray ? .gray8 : .rgbx8
    }

    static func bigEndianUInt32(_ bytes: UnsafeRawBufferPointer, at offset: Int) -> UInt32 {
        UInt32(bytes[offset]) << 24 | UInt32(bytes[offset + 1]) << 16 | UInt32(bytes[offset + 2]) << 8
            | UInt32(bytes[offset + 3])
    }
}
