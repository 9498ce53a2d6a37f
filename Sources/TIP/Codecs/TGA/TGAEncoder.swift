import Foundation

/// Encodes TARGA (TGA 2.0) images: the encoder of ``TGACodec``.
///
/// - Layout: opaque images as 24-bit BGR (image type 2), images with a transparent pixel as 32-bit
///   BGRA with 8 alpha bits declared (colours un-premultiplied with rounding; `.noAlpha` writes them
///   opaque over black), `gray8` images or `.grayscale` as 8-bit gray (type 3, the rounded Rec. 601 luma).
/// - Rows bottom-up (TGA's default origin), no image ID, no colour map, and the TGA 2.0 footer
///   ("TRUEVISION-XFILE"), so readers and detection recognise the file. With alpha, also a TGA 2.0 extension
///   area whose attributes type (3, "useful alpha") keeps an image transparent everywhere transparent when read
///   back (readers take zero alpha everywhere without it for a channel never filled in).
/// - `.none` by default: TIP writes TGA through ImageIO without setting
///   `kCGImagePropertyTGACompression`, whose default is none. `.runLength` writes types
///   10 and 11, with packets that never cross a row (as TGA 2.0 asks).
///
/// `quality` is ignored (lossless); only the first frame of an animation is written. Throws
/// ``PipelineError`` for images over 65535 pixels on a side. Stateless and thread-safe.
struct TGAEncoder: ImageEncoder {
    /// How pixel data is stored (the codec's public choice).
    typealias Compression = TGACodec.Compression

    /// The compression written. Default `.none`.
    let compression: Compression

    /// An encoder writing `compression`.
    init(compression: Compression = .none) {
        self.compression = compression
    }

    /// Encodes the first frame of `image`.
    func encode(_ image: ImageContainer, options: ImageEncodingOptions, quality: Float) throws(PipelineError) -> Data {
        let bitmap = image.image
        let width = bitmap.width, height = bitmap.height
        guard width <= 65535, height <= 65535 else {
            throw PipelineError(
                .failedToInitializeImageDestination,
                "TGA images are at most 65535x65535 pixels; this one is \(width)x\(height).")
        }
        let gray = options.contains(.grayscale) || bitmap.format == .gray8
        let alpha = !gray && !options.contains(.noAlpha) && bitmap.containsTransparency()
        let pixelBytes = gray ? 1 : (alpha ? 4 : 3)
        let rle = compression == .runLength

        var header = Data(count: 18)
        header.withUnsafeMutableBytes { raw in
            var writer = HeaderWriter(raw)
            writer.bytes([0, 0, UInt8((gray ? 3 : 2) + (rle ? 8 : 0))])  // no ID, no colour map, type
            writer.bytes([0, 0, 0, 0, 0])  // empty colour map specification
            writer.u16(0)  // x origin
            writer.u16(0)  // y origin
            writer.u16(width)
            writer.u16(height)
            writer.bytes([UInt8(pixelBytes * 8), alpha ? 8 : 0])  // depth; descriptor: alpha bits, bottom-up
        }
        var file = header
        file.reserveCapacity(18 + width * height * pixelBytes + 26)
        var row = [UInt8](repeating: 0, count: width * pixelBytes)
        for y in stride(from: height - 1, through: 0, by: -1) {
            Self.storedRow(bitmap, y: y, gray: gray, alpha: alpha, into: &row)
            if rle {
                Self.appendPackets(row, pixelBytes: pixelBytes, to: &file)
            } else {
                file.append(contentsOf: row)
            }
        }
        // With alpha, an extension area whose attributes type (3) says the alpha is real: readers then keep even
        // alpha that is zero everywhere, which they otherwise take for a channel never filled in.
        var extensionOffset = 0
        if alpha {
            extensionOffset = file.count
            var area = [UInt8](repeating: 0, count: Self.extensionAreaSize)
            area[0] = UInt8(Self.extensionAreaSize & 0xFF)
            area[1] = UInt8(Self.extensionAreaSize >> 8)
            area[Self.extensionAreaSize - 1] = 3
            file.append(contentsOf: area)
        }
        file.append(contentsOf: (0..<4).map { UInt8(truncatingIfNeeded: extensionOffset >> ($0 * 8)) })
        file.append(contentsOf: [UInt8](repeating: 0, count: 4))  // no developer area
        file.append(contentsOf: TGAHeader.footerSignature)
        return file
    }

    /// The size of a TGA 2.0 extension area, its attributes type in its last byte.
    static let extensionAreaSize = 495

    /// Bitmap row `y` as stored TGA pixels (B, G, R[, A] or gray).
    private static func storedRow(_ bitmap: Bitmap, y: Int, gray: Bool, alpha: Bool, into row: inout [UInt8]) {
        bitmap.withUnsafeBytes { bytes in
            guard let base = bytes.baseAddress else { return }
            let source = base + y * bitmap.bytesPerRow
            for x in 0..<bitmap.width {
                if bitmap.format == .gray8 {
                    let g = source.load(fromByteOffset: x, as: UInt8.self)
                    if gray { row[x] = g } else { row[x * 3] = g; row[x * 3 + 1] = g; row[x * 3 + 2] = g }
                    continue
                }
                let word = UInt32(littleEndian: source.loadUnaligned(fromByteOffset: x * 4, as: UInt32.self))
                let r = word & 0xFF, g = (word >> 8) & 0xFF, b = (word >> 16) & 0xFF
                if gray {
                    row[x] = UInt8((299 * r + 587 * g + 114 * b + 500) / 1000)
                } else if alpha {
                    let a = word >> 24
                    func straight(_ c: UInt32) -> UInt8 { a == 0 ? 0 : UInt8(min(255, (c * 255 + a / 2) / a)) }
                    row[x * 4] = straight(b)
                    row[x * 4 + 1] = straight(g)
                    row[x * 4 + 2] = straight(r)
                    row[x * 4 + 3] = UInt8(a)
                } else {
                    row[x * 3] = UInt8(b)
                    row[x * 3 + 1] = UInt8(g)
                    row[x * 3 + 2] = UInt8(r)
                }
            }
        }
    }

    /// Appends one row as run-length packets: runs of two or more equal pixels become run packets,
    /// everything else raw packets, each at most 128 pixels.
    private static func appendPackets(_ row: [UInt8], pixelBytes: Int, to file: inout Data) {
        let count = row.count / pixelBytes
        func same(_ a: Int, _ b: Int) -> Bool {
            for i in 0..<pixelBytes where row[a * pixelBytes + i] != row[b * pixelBytes + i] { return false }
            return true
        }
        var x = 0
        while x < count {
            var run = 1
            while x + run < count, run < 128, same(x, x + run) { run += 1 }
            if run >= 2 {
                file.append(UInt8(0x80 | (run - 1)))
                file.append(contentsOf: row[(x * pixelBytes)..<((x + 1) * pixelBytes)])
                x += run
                continue
            }
            var raw = 1
            while x + raw < count, raw < 128, !(x + raw + 1 < count && same(x + raw, x + raw + 1)) { raw += 1 }
            file.append(UInt8(raw - 1))
            file.append(contentsOf: row[(x * pixelBytes)..<((x + raw) * pixelBytes)])
            x += raw
        }
    }
}
