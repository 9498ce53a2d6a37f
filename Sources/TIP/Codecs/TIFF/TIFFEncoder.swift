import CTIFF
import Foundation

/// Encodes TIFF with libtiff, the way TIP asks ImageIO to: LZW compression (with horizontal
/// differencing, which shrinks photos by a further third), one image, 8 bits per sample, orientation 1.
///
/// ```swift
/// let tiff = try TIFFEncoder().encode(container, options: [], quality: 1)
/// ```
///
/// Layout: `gray8` images, or any image with `.grayscale`, become 8-bit gray (the rounded Rec. 601
/// luma); images with a transparent pixel become RGB plus unassociated alpha (colours
/// un-premultiplied with rounding; `.noAlpha` drops it, compositing over black); others RGB.
/// `quality` is ignored (lossless); only the first frame of an animation is written. Throws
/// ``PipelineError`` when libtiff fails. Stateless and thread-safe.
struct TIFFEncoder: ImageEncoder {
    /// Encodes the first frame of `image`.
    func encode(_ image: ImageContainer, options: ImageEncodingOptions, quality: Float) throws(PipelineError) -> Data {
        let bitmap = image.image
        let layout: Int32
        if options.contains(.grayscale) || bitmap.format == .gray8 {
            layout = Int32(TIP_TIFF_WRITE_GRAY)
        } else if !options.contains(.noAlpha) && bitmap.containsTransparency() {
            layout = Int32(TIP_TIFF_WRITE_RGBA)
        } else {
            layout = Int32(TIP_TIFF_WRITE_RGB)
        }
        let input: Int32
        switch bitmap.format {
        case .gray8: input = Int32(TIP_TIFF_INPUT_GRAY8)
        case .rgbx8: input = Int32(TIP_TIFF_INPUT_RGBX8)
        case .rgba8Premultiplied: input = Int32(TIP_TIFF_INPUT_RGBA8_PREMULTIPLIED)
        }
        var output: UnsafeMutablePointer<UInt8>?
        var size = 0
        var message = [CChar](repeating: 0, count: 256)
        let status = bitmap.withUnsafeBytes { pixels in
            message.withUnsafeMutableBufferPointer { text in
                tip_tiff_encode(
                    pixels.baseAddress?.assumingMemoryBound(to: UInt8.self), bitmap.bytesPerRow,
                    UInt32(bitmap.width), UInt32(bitmap.height), input, layout, &output, &size,
                    text.baseAddress, text.count)
            }
        }
        guard status == 0, let output else {
            let text = String(decoding: message.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }, as: UTF8.self)
            throw PipelineError(.failedToFinalizeImageDestination, "TIFF encoding failed: \(text)")
        }
        return Data(bytesNoCopy: output, count: size, deallocator: .custom { pointer, _ in tip_tiff_free(pointer) })
    }
}
