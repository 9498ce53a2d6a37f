import TIP

/// Where the codestream of a (possibly partial) JPEG 2000 file lies and how much of it has arrived:
/// a walk over JP2 box headers and codestream marker segments, no decoding.
struct JPEG2000Layout: Equatable {
    /// The two ways JPEG 2000 is stored.
    enum Format: Equatable {
        /// A JP2 file: boxes, the codestream in the `jp2c` box.
        case jp2
        /// A bare codestream (J2K / J2C): SOC, SIZ, …, EOC.
        case codestream
    }

    /// JP2 or bare codestream.
    var format: Format
    /// Whether the main header (everything before the first tile-part) has arrived: OpenJPEG can
    /// then read the header without waiting for more bytes.
    var hasMainHeader: Bool
    /// Whether the whole codestream has arrived (the `jp2c` box whole, or an EOC marker at the end).
    var isComplete: Bool
    /// The image and tile sizes of the codestream's SIZ marker, once it has arrived.
    var size: JPEG2000Size? = nil

    private static let jp2Signature: [UInt8] = [0x00, 0x00, 0x00, 0x0C, 0x6A, 0x50, 0x20, 0x20, 0x0D, 0x0A, 0x87, 0x0A]
    private static let codestreamSignature: [UInt8] = [0xFF, 0x4F, 0xFF, 0x51]

    /// Whether `bytes` (possibly a prefix) start like a JP2 file or a bare codestream.
    static func detect(_ bytes: UnsafeRawBufferPointer, isComplete: Bool) -> ImageDecoderDetection {
        var undecided = false
        for signature in [jp2Signature, codestreamSignature] {
            let count = min(bytes.count, signature.count)
            guard (0..<count).allSatisfy({ bytes[$0] == signature[$0] }) else { continue }
            if count == signature.count { return .match }
            undecided = true
        }
        return undecided && !isComplete ? .needMoreData : .noMatch
    }

    /// The layout of `bytes`; nil while the signature is incomplete. Throws
    /// ``ImageDecodingError/unrecognizedFormat`` when the bytes are not JPEG 2000.
    static func scan(_ bytes: UnsafeRawBufferPointer) throws(ImageDecodingError) -> JPEG2000Layout? {
        switch detect(bytes, isComplete: false) {
        case .noMatch: throw .unrecognizedFormat
        case .needMoreData: return nil
        case .match: break
        }
        if bytes[0] == 0xFF {
            return layout(of: bytes, codestreamStart: 0, codestreamEnd: nil, format: .codestream)
        }
        // JP2: find the contiguous codestream box.
        var offset = 0
        while offset + 8 <= bytes.count {
            let length = Int(readBE32(bytes, offset))
            let type = readBE32(bytes, offset + 4)
            var headerLength = 8
            var end: Int?
            switch length {
            case 0: end = nil  // to the end of the file
            case 1:
                guard offset + 16 <= bytes.count else {
                    return JPEG2000Layout(format: .jp2, hasMainHeader: false, isComplete: false)
                }
                let extended = UInt64(readBE32(bytes, offset + 8)) << 32 | UInt64(readBE32(bytes, offset + 12))
                guard extended >= 16, extended < UInt64(Int.max / 2) else { return corruptJP2 }
                headerLength = 16
                end = offset + Int(extended)
            default:
                guard length >= 8 else { return corruptJP2 }
                end = offset + length
            }
            if type == 0x6A70_3263 {  // "jp2c"
                return layout(of: bytes, codestreamStart: offset + headerLength, codestreamEnd: end, format: .jp2)
            }
            guard let end else { return corruptJP2 }
            offset = end
        }
        return JPEG2000Layout(format: .jp2, hasMainHeader: false, isComplete: false)
    }

    /// A JP2 whose boxes cannot lead to a codestream: OpenJPEG will say what is wrong.
    private static let corruptJP2 = JPEG2000Layout(format: .jp2, hasMainHeader: true, isComplete: true)

    private static func layout(
        of bytes: UnsafeRawBufferPointer, codestreamStart start: Int, codestreamEnd end: Int?,
        format: Format
    ) -> JPEG2000Layout {
        let available = min(end ?? bytes.count, bytes.count)
        let hasMainHeader = mainHeaderEnd(bytes, from: start, to: available) != nil
        let isComplete: Bool
        if let end {
            isComplete = end <= bytes.count
        } else {
            var last = bytes.count
            while last > start + 2 && bytes[last - 1] == 0 { last -= 1 }
            isComplete = last >= start + 4 && bytes[last - 2] == 0xFF && bytes[last - 1] == 0xD9
        }
        return JPEG2000Layout(
            format: format, hasMainHeader: hasMainHeader, isComplete: isComplete,
            size: JPEG2000Size(bytes, codestreamStart: start, limit: available))
    }

    /// The offset of the first SOT marker (the end of the main header) in `bytes[start..<limit]`;
    /// nil while it has not arrived. A marker segment that cannot be walked counts as the end: the
    /// header is then OpenJPEG's to reject.
    private static func mainHeaderEnd(_ bytes: UnsafeRawBufferPointer, from start: Int, to limit: Int) -> Int? {
        var offset = start + 2  // past SOC
        while offset + 2 <= limit {
            guard bytes[offset] == 0xFF else { return offset }
            let marker = bytes[offset + 1]
            if marker == 0x90 { return offset }  // SOT
            guard offset + 4 <= limit else { return nil }
            let length = Int(bytes[offset + 2]) << 8 | Int(bytes[offset + 3])
            guard length >= 2 else { return offset }
            offset += 2 + length
        }
        return nil
    }

    private static func readBE32(_ bytes: UnsafeRawBufferPointer, _ offset: Int) -> UInt32 {
        UInt32(bytes[offset]) << 24 | UInt32(bytes[offset + 1]) << 16 | UInt32(bytes[offset + 2]) << 8
            | UInt32(bytes[offset + 3])
    }
}
