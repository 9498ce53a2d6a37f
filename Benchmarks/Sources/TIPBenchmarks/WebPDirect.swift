// libwebp's headers belong to the TIP package's CWebP module once TIPWebP is loaded; its names come from there.
import CWebP
import CWebPDirect
import Foundation
import TIP

/// libwebp called directly, with nothing around it: the baseline for WebP decoding.
enum WebPDirect {
    /// Header dimensions, or nil when libwebp does not recognize the data.
    static func dimensions(_ data: Data) -> (width: Int, height: Int)? {
        var w: Int32 = 0, h: Int32 = 0
        let ok = data.withUnsafeBytes { WebPGetInfo($0.bindMemory(to: UInt8.self).baseAddress, data.count, &w, &h) }
        return ok != 0 ? (Int(w), Int(h)) : nil
    }

    /// `WebPDecode` into a freshly allocated 64-byte-aligned RGBA buffer (as the codec's bitmaps are),
    /// scaled by libwebp to `width`x`height` when given; the buffer is freed. Returns whether it succeeded.
    @discardableResult
    static func decode(_ data: Data, width: Int? = nil, height: Int? = nil, threads: Bool = true) -> Bool {
        guard let (w, h) = dimensions(data) else { return false }
        var config = WebPDecoderConfig()
        guard WebPInitDecoderConfig(&config) != 0 else { return false }
        config.options.use_threads = threads ? 1 : 0
        let outWidth = width ?? w, outHeight = height ?? h
        if outWidth != w || outHeight != h {
            config.options.use_scaling = 1
            config.options.scaled_width = Int32(outWidth)
            config.options.scaled_height = Int32(outHeight)
        }
        let pitch = (outWidth * 4 + 63) / 64 * 64
        let buffer = UnsafeMutableRawPointer.allocate(byteCount: pitch * outHeight, alignment: 64)
        defer { buffer.deallocate() }
        config.output.colorspace = MODE_RGBA
        config.output.is_external_memory = 1
        config.output.u.RGBA.rgba = buffer.assumingMemoryBound(to: UInt8.self)
        config.output.u.RGBA.stride = Int32(pitch)
        config.output.u.RGBA.size = pitch * outHeight
        let status = data.withUnsafeBytes { WebPDecode($0.bindMemory(to: UInt8.self).baseAddress, data.count, &config) }
        WebPFreeDecBuffer(&config.output)
        return status == VP8_STATUS_OK
    }

    /// `WebPDecodeRGBA`: libwebp's simplest call, allocating its own buffer (freed here).
    @discardableResult
    static func decodeRGBA(_ data: Data) -> Bool {
        var w: Int32 = 0, h: Int32 = 0
        let pixels = data.withUnsafeBytes {
            WebPDecodeRGBA($0.bindMemory(to: UInt8.self).baseAddress, data.count, &w, &h)
        }
        defer { WebPFree(pixels) }
        return pixels != nil
    }
}

extension WebPDirect {
    /// `WebPDecode` into a `Bitmap(width:height:format:)` made the way TIPWebP's still decoder makes its
    /// output (zero-filled, then every alpha byte set): separates the bitmap's initialisation from the codec.
    @discardableResult
    static func decodeIntoInitializedBitmap(_ data: Data) -> Bool {
        guard let (w, h) = dimensions(data), var bitmap = Bitmap(width: w, height: h, format: .rgbx8) else {
            return false
        }
        var config = WebPDecoderConfig()
        guard WebPInitDecoderConfig(&config) != 0 else { return false }
        config.options.use_threads = 1
        config.output.colorspace = MODE_RGBA
        config.output.is_external_memory = 1
        let stride = bitmap.bytesPerRow
        let status = bitmap.withUnsafeMutableBytes { pixels -> VP8StatusCode in
            guard let base = pixels.baseAddress else { return VP8_STATUS_OUT_OF_MEMORY }
            config.output.u.RGBA.rgba = base.assumingMemoryBound(to: UInt8.self)
            config.output.u.RGBA.stride = Int32(stride)
            config.output.u.RGBA.size = pixels.count
            return data.withUnsafeBytes { WebPDecode($0.bindMemory(to: UInt8.self).baseAddress, data.count, &config) }
        }
        WebPFreeDecBuffer(&config.output)
        return status == VP8_STATUS_OK
    }
}
