import Foundation

/// Encodes Windows bitmaps, uncompressed, rows bottom-up (the layout every reader takes).
///
/// ```swift
/// let bmp = try BMPEncoder().encode(container, options: [], quality: 1)
/// ```
///
/// - Opaque images: 24-bit BGR with a `BITMAPINFOHEADER`.
/// - Images with a transparent pixel: 32-bit BGRA with a `BITMAPV4HEADER` whose bit fields name the
///   alpha channel (so browsers, Pillow and Windows see it), colours un-premultiplied with rounding.
///   `.noAlpha` writes them opaque (colours over black). An image transparent everywhere reads back opaque
///   (black) in browsers and in ``BMPDecoder``, which take alpha that is zero everywhere for a channel never
///   filled in: BMP has no field to say otherwise, so write such an image as PNG.
/// - `gray8` images, or any image with `.grayscale`: 8-bit indexed with a 256-level gray table (the
///   rounded Rec. 601 luma).
///
/// `quality` is ignored (the format is lossless); only the first frame of an animation is written.
/// Throws ``PipelineError`` when the file would exceed BMP's 4 GiB limit. Stateless and thread-safe.
struct BMPEncoder: ImageEncoder {
    /// Encodes the first frame of `image`.
    func encode(_ image: ImageContainer, options: ImageEncodingOptions, quality: Float) throws(PipelineError) -> Data {
        let bitmap = image.image
        let layout: Layout
        if options.contains(.grayscale) || bitmap.format == .gray8 {
            layout = .gray8
        } else if !options.contains(.noAlpha) && bitmap.containsTransparency() {
            layout = .bgra32
        } else {
            layout = .bgr24
        }
        let width = bitmap.width, height = bitmap.height
        let rowBytes = (width * layout.bitCount + 31) / 32 * 4
        let headerSize = layout == .bgra32 ? 108 : 40
        let tableSize = layout == .gray8 ? 256 * 4 : 0
        let pixelOffset = 14 + headerSize + tableSize
        let (pixelBytes, overflow) = rowBytes.multipliedReportingOverflow(by: height)
        guard !overflow, pixelBytes <= Int(UInt32.max) - pixelOffset, width <= Int(Int32.max), height <= Int(Int32.max)
        else {
            throw PipelineError(
                .failedToInitializeImageDestination, "A \(width)x\(height) image is over the BMP format's 4 GiB limit.")
        }
        var file = Data(count: pixelOffset + pixelBytes)
        file.withUnsafeMutableBytes { raw in
            var header = HeaderWriter(raw)
            header.bytes([0x42, 0x4D])  // "BM"
            header.u32(pixelOffset + pixelBytes)  // file size
            header.u32(0)  // reserved
            header.u32(pixelOffset)
            header.u32(headerSize)
            header.u32(width)
            header.u32(height)  // positive: bottom-up rows
            header.u16(1)  // planes
            header.u16(layout.bitCount)
            header.u32(layout == .bgra32 ? 3 : 0)  // BI_BITFIELDS or BI_RGB
            header.u32(pixelBytes)
            header.u32(2835)  // 72 dpi in pixels per metre
            header.u32(2835)
            header.u32(layout == .gray8 ? 256 : 0)  // colours used
            header.u32(0)  // colours important
            if layout == .bgra32 {
                for mask in [0x00FF_0000, 0x0000_FF00, 0x0000_00FF, 0xFF00_0000] { header.u32(mask) }
                header.bytes(Array("BGRs".utf8))  // LCS_sRGB ('sRGB' as a little-endian word)
                header.bytes([UInt8](repeating: 0, count: 48))  // end points and gammas, unused for sRGB
            }
            if layout == .gray8 {
                for level in 0..<256 { header.bytes([UInt8(level), UInt8(level), UInt8(level), 0]) }
            }
            guard let base = raw.baseAddress else { return }
            let pixels = base + pixelOffset
            for y in 0..<height {
                Self.writeRow(bitmap, y: y, layout: layout, to: pixels + (height - 1 - y) * rowBytes)
            }
        }
        return file
    }

    private enum Layout {
        case gray8, bgr24, bgra32

        var bitCount: Int {
            switch self {
            case .gray8: return 8
            case .bgr24: return 24
            case .bgra32: return 32
            }
        }
    }

    private static func writeRow(_ bitmap: Bitmap, y: Int, layout: Layout, to target: UnsafeMutableRawPointer) {
        let out = target.assumingMemoryBound(to: UInt8.self)
        bitmap.withUnsafeBytes { bytes in
            guard let base = bytes.baseAddress else { return }
            let row = base + y * bitmap.bytesPerRow
            for x in 0..<bitmap.width {
                let pixel: SIMD4<UInt32>
                if bitmap.format == .gray8 {
                    let g = UInt32(row.load(fromByteOffset: x, as: UInt8.self))
                    pixel = SIMD4(g, g, g, 255)
                } else {
                    let word = UInt32(littleEndian: row.loadUnaligned(fromByteOffset: x * 4, as: UInt32.self))
                    let alpha = bitmap.format == .rgba8Premultiplied ? word >> 24 : 255
                    pixel = SIMD4(word & 0xFF, (word >> 8) & 0xFF, (word >> 16) & 0xFF, alpha)
                }
                switch layout {
                case .gray8:
                    out[x] =
                        bitmap.format == .gray8
                        ? UInt8(pixel[0])
                        : UInt8((299 * pixel[0] + 587 * pixel[1] + 114 * pixel[2] + 500) / 1000)
                case .bgr24:
                    out[x * 3] = UInt8(pixel[2])
                    out[x * 3 + 1] = UInt8(pixel[1])
                    out[x * 3 + 2] = UInt8(pixel[0])
                case .bgra32:
                    let a = pixel[3]
                    func straight(_ c: UInt32) -> UInt8 { a == 0 ? 0 : UInt8(min(255, (c * 255 + a / 2) / a)) }
                    out[x * 4] = straight(pixel[2])
                    out[x * 4 + 1] = straight(pixel[1])
                    out[x * 4 + 2] = straight(pixel[0])
                    out[x * 4 + 3] = UInt8(a)
                }
            }
        }
    }
}
