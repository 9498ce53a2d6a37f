import CWebP
import TIP

/// libwebp's incremental decoder (`WebPIDecode` + `WebPIAppend`) for one static image at full size,
/// with libwebp owning the output buffer. Used by ``WebPDecoderContext`` and to recover the rows of
/// a truncated file.
///
/// Not thread-safe: use from one queue at a time.
final class WebPIncrementalDecoder {
    /// Heap-allocated because libwebp keeps pointers into it for the decoder's lifetime.
    private let config: UnsafeMutablePointer<WebPDecoderConfig>
    private let decoder: OpaquePointer
    /// `rgba8Premultiplied` for images with alpha, else `rgbx8`.
    let format: PixelFormat
    /// The last status libwebp returned: `SUSPENDED` while more bytes are needed, `OK` once the
    /// image is whole, anything else is a failure.
    private(set) var status = VP8_STATUS_SUSPENDED

    /// A decoder writing premultiplied RGBA when `hasAlpha`, else RGBA with alpha 255. Nil when libwebp
    /// cannot start one (ABI mismatch or no memory).
    init?(hasAlpha: Bool) {
        let config = UnsafeMutablePointer<WebPDecoderConfig>.allocate(capacity: 1)
        config.initialize(to: WebPDecoderConfig())
        guard WebPInitDecoderConfig(config) != 0 else {
            config.deallocate()
            return nil
        }
        config.pointee.output.colorspace = hasAlpha ? MODE_rgbA : MODE_RGBA
        guard let decoder = WebPIDecode(nil, 0, config) else {
            config.deallocate()
            return nil
        }
        self.config = config
        self.decoder = decoder
        self.format = hasAlpha ? .rgba8Premultiplied : .rgbx8
    }

    deinit {
        WebPIDelete(decoder)
        WebPFreeDecBuffer(&config.pointee.output)
        config.deallocate()
    }

    /// Whether the whole image is decoded.
    var isComplete: Bool { status == VP8_STATUS_OK }
    /// Whether libwebp gave up on the data.
    var hasFailed: Bool { status != VP8_STATUS_OK && status != VP8_STATUS_SUSPENDED }

    /// Decodes `bytes`, the next bytes of the file (copied by libwebp). Returns the new status.
    @discardableResult
    func append(_ bytes: UnsafeRawBufferPointer) -> VP8StatusCode {
        guard status == VP8_STATUS_SUSPENDED, let base = bytes.baseAddress, !bytes.isEmpty else { return status }
        status = WebPIAppend(decoder, base.assumingMemoryBound(to: UInt8.self), bytes.count)
        return status
    }

    /// Rows decoded so far, from the top.
    var decodedRows: Int {
        var lastY: Int32 = 0, width: Int32 = 0, height: Int32 = 0, stride: Int32 = 0
        guard WebPIDecGetRGB(decoder, &lastY, &width, &height, &stride) != nil else { return 0 }
        return max(0, min(Int(lastY), Int(height)))
    }

    /// A copy of the image with the rows decoded so far (the rest transparent black, or opaque black
    /// for `rgbx8`), or nil before the first row.
    func bitmap() -> Bitmap? {
        var lastY: Int32 = 0, width: Int32 = 0, height: Int32 = 0, stride: Int32 = 0
        guard let source = WebPIDecGetRGB(decoder, &lastY, &width, &height, &stride), lastY > 0, width > 0,
            height > 0, stride >= width * 4
        else { return nil }
        let rows = min(Int(lastY), Int(height))
        guard var bitmap = Bitmap(width: Int(width), height: Int(height), format: format) else { return nil }
        let rowBytes = Int(width) * 4, sourceStride = Int(stride), destinationStride = bitmap.bytesPerRow
        bitmap.withUnsafeMutableBytes { pixels in
            guard let destination = pixels.baseAddress else { return }
            for y in 0..<rows {
                (destination + y * destinationStride).copyMemory(from: source + y * sourceStride, byteCount: rowBytes)
            }
        }
        return bitmap
    }
}
