import CPNG
import Foundation

/// Encodes PNG with libpng at zlib level 6 (quality is ignored: PNG is lossless).
///
/// ```swift
/// let png = try PNGEncoder().encode(container, options: [.progressive], quality: 1)
/// ```
///
/// Layout: `.gray8` images (or any image with `.grayscale`) become 8-bit gray, with alpha only when
/// a pixel is transparent; colour becomes RGBA when a pixel is transparent (colour un-premultiplied
/// with rounding), else RGB. `.noAlpha` drops alpha (flattening onto black); `.progressive` writes
/// Adam7 interlacing. An animation is written as APNG (`APNGEncoder`). Stateless: safe from any thread.
struct PNGEncoder: ImageEncoder {
    /// zlib compression level used for every image (0...9). Default 6.
    let compressionLevel: Int

    /// An encoder compressing at `compressionLevel` (default 6, clamped to 0...9).
    init(compressionLevel: Int = 6) {
        self.compressionLevel = min(max(compressionLevel, 0), 9)
    }

    /// Encodes `image`: an animation as APNG (see `APNGEncoder`), else its one frame. Throws
    /// ``PipelineError`` with `failedToFinalizeImageDestination` when libpng fails.
    func encode(_ image: ImageContainer, options: ImageEncodingOptions, quality: Float) throws(PipelineError) -> Data {
        if image.isAnimated {
            return try APNGEncoder(encoder: self).encode(image, options: options)
        }
        let bitmap = image.image
        let keepsAlpha =
            !options.contains(.noAlpha) && bitmap.format == .rgba8Premultiplied && bitmap.containsTransparency()
        let gray = options.contains(.grayscale) || bitmap.format == .gray8
        return try encode(
            bitmap, layout: Layout(gray: gray, alpha: keepsAlpha), interlaced: options.contains(.progressive))
    }

    /// The PNG colour layout written.
    struct Layout: Equatable {
        /// Gray (else RGB).
        var gray: Bool
        /// With an alpha channel.
        var alpha: Bool

        var code: Int32 {
            switch (gray, alpha) {
            case (true, false): return Int32(TIP_PNG_WRITE_GRAY)
            case (true, true): return Int32(TIP_PNG_WRITE_GRAY_ALPHA)
            case (false, false): return Int32(TIP_PNG_WRITE_RGB)
            case (false, true): return Int32(TIP_PNG_WRITE_RGBA)
            }
        }
    }

    /// `bitmap` as a PNG in `layout`.
    func encode(_ bitmap: Bitmap, layout: Layout, interlaced: Bool) throws(PipelineError) -> Data {
        let input: Int32
        switch bitmap.format {
        case .gray8: input = Int32(TIP_PNG_INPUT_GRAY8)
        case .rgbx8: input = Int32(TIP_PNG_INPUT_RGBX8)
        case .rgba8Premultiplied: input = Int32(TIP_PNG_INPUT_RGBA8_PREMULTIPLIED)
        }
        var output: UnsafeMutablePointer<UInt8>?
        var size = 0
        var message = [CChar](repeating: 0, count: 192)
        let level = Int32(compressionLevel)
        let status = bitmap.withUnsafeBytes { pixels in
            message.withUnsafeMutableBufferPointer { text in
                tip_png_encode(
                    pixels.baseAddress?.assumingMemoryBound(to: UInt8.self), bitmap.bytesPerRow,
                    UInt32(bitmap.width), UInt32(bitmap.height), input, layout.code, interlaced ? 1 : 0, level,
                    &output, &size, text.baseAddress, text.count)
            }
        }
        guard status == 0, let output else {
            let text = String(decoding: message.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }, as: UTF8.self)
            throw PipelineError(.failedToFinalizeImageDestination, "PNG encoding failed: \(text)")
        }
        return Data(bytesNoCopy: output, count: size, deallocator: .custom { pointer, _ in tip_png_free(pointer) })
    }
}
