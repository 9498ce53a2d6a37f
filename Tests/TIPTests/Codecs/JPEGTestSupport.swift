import CTurboJPEG
import Foundation

@testable import TIP

/// Builders shared by the JPEG tests: encoded test photos, EXIF segments, SOF patching.
enum JPEGTestSupport {
    static let codec = JPEGCodec()

    /// A generated photo encoded with our encoder.
    static func jpeg(
        width: Int, height: Int, progressive: Bool = false, gray: Bool = false,
        quality: Float = 0.83, seed: UInt64 = 1
    ) throws -> (source: Bitmap, data: Data) {
        let source = TestImages.photo(width: width, height: height, format: gray ? .gray8 : .rgbx8, seed: seed)
        let data = try codec.encoder!.encode(
            ImageContainer(image: source), options: progressive ? [.progressive] : [], quality: quality)
        return (source, data)
    }

    /// A full-size decode straight through `tjDecompress2` (no orientation, no resampling): the
    /// reference the incremental decoder must match byte for byte.
    static func turboJPEGDecode(_ data: Data, scaledWidth: Int32 = 0, scaledHeight: Int32 = 0) -> Bitmap? {
        guard let handle = tjInitDecompress() else { return nil }
        defer { tjDestroy(handle) }
        return data.withUnsafeBytes { raw -> Bitmap? in
            let src = raw.baseAddress!.assumingMemoryBound(to: UInt8.self)
            var w: Int32 = 0, h: Int32 = 0, sub: Int32 = 0, cs: Int32 = 0
            guard tjDecompressHeader3(handle, src, UInt(raw.count), &w, &h, &sub, &cs) == 0, w > 0, h > 0 else {
                return nil
            }
            if scaledWidth > 0 { w = scaledWidth; h = scaledHeight }
            let gray = cs == Int32(TJCS_GRAY.rawValue)
            guard var bitmap = Bitmap(width: Int(w), height: Int(h), format: gray ? .gray8 : .rgbx8) else { return nil }
            let pitch = bitmap.bytesPerRow
            let status = bitmap.withUnsafeMutableBytes { dst in
                tjDecompress2(
                    handle, src, UInt(raw.count), dst.baseAddress!.assumingMemoryBound(to: UInt8.self), w, Int32(pitch),
                    h,
                    Int32(gray ? TJPF_GRAY.rawValue : TJPF_RGBX.rawValue), 0)
            }
            return status == 0 || tjGetErrorCode(handle) == Int32(TJERR_WARNING.rawValue) ? bitmap : nil
        }
    }

    /// An APP1 EXIF segment (marker included) carrying `orientation`.
    static func exifSegment(orientation: Int, bigEndian: Bool) -> [UInt8] {
        func u16(_ v: Int) -> [UInt8] {
            bigEndian ? [UInt8(v >> 8), UInt8(v & 0xFF)] : [UInt8(v & 0xFF), UInt8(v >> 8)]
        }
        func u32(_ v: Int) -> [UInt8] { bigEndian ? u16(v >> 16) + u16(v & 0xFFFF) : u16(v & 0xFFFF) + u16(v >> 16) }
        var tiff: [UInt8] = bigEndian ? [0x4D, 0x4D] : [0x49, 0x49]
        tiff += u16(42) + u32(8)
        tiff += u16(2)  // two entries: an unrelated one first
        tiff += u16(0x010F) + u16(2) + u32(4) + [0x41, 0x42, 0x43, 0]  // Make = "ABC"
        tiff += u16(0x0112) + u16(3) + u32(1) + u16(orientation) + [0, 0]
        tiff += u32(0)
        let payload: [UInt8] = Array("Exif".utf8) + [0, 0] + tiff
        let length = payload.count + 2
        return [0xFF, 0xE1, UInt8(length >> 8), UInt8(length & 0xFF)] + payload
    }

    /// `jpeg` with `segment` spliced right after SOI.
    static func splice(_ segment: [UInt8], into jpeg: Data) -> Data {
        var out = Data(jpeg.prefix(2))
        out.append(contentsOf: segment)
        out.append(jpeg.dropFirst(2))
        return out
    }

    /// `jpeg` with its SOF dimensions replaced.
    static func patchingSOF(_ jpeg: Data, width: Int, height: Int) -> Data {
        var bytes = [UInt8](jpeg)
        var i = 2
        while i + 9 < bytes.count {
            guard bytes[i] == 0xFF else { i += 1; continue }
            let marker = bytes[i + 1]
            if marker == 0xC0 || marker == 0xC1 || marker == 0xC2 {
                bytes[i + 5] = UInt8(height >> 8); bytes[i + 6] = UInt8(height & 0xFF)
                bytes[i + 7] = UInt8(width >> 8); bytes[i + 8] = UInt8(width & 0xFF)
                break
            }
            let length = Int(bytes[i + 2]) << 8 | Int(bytes[i + 3])
            i += 2 + length
        }
        return Data(bytes)
    }

    /// Number of SOS markers (progressive scans) in a JPEG (a simple count, as TIP does).
    static func scanCount(_ data: Data) -> Int {
        let bytes = [UInt8](data)
        var count = 0
        for i in 0..<(bytes.count - 1) where bytes[i] == 0xFF && bytes[i + 1] == 0xDA { count += 1 }
        return count
    }

    /// Feeds `data` to a new context in chunks of the given sizes (the last chunk takes the rest),
    /// finalizes, and returns the context.
    static func feed(_ data: Data, chunkSizes: [Int], options: ImageDecodingOptions = ImageDecodingOptions()) throws
        -> any ImageDecoderContext
    {
        let context = codec.decoder.makeContext(expectedLength: data.count, options: options)
        var offset = 0
        for size in chunkSizes where offset < data.count {
            let end = min(data.count, offset + size)
            _ = try context.append(data.subdata(in: offset..<end))
            offset = end
        }
        if offset < data.count { _ = try context.append(data.subdata(in: offset..<data.count)) }
        _ = try context.finalize()
        return context
    }
}
