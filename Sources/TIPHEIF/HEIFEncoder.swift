import CHeif
import Foundation
import TIP

/// The HEIF encoder behind ``HEIFCodec``: the first frame as a HEIC (x265 on Debian) or AVIF (aom)
/// still image, through libheif.
///
/// - `quality` 0...1 becomes libheif's lossy quality 0...100. Both codings store YCbCr, so even
///   quality 1 is not bit-exact (libheif 1.15 has no lossless RGB path for them).
/// - Alpha (unless `.noAlpha`, and only when some pixel is transparent) is written unpremultiplied
///   as an auxiliary alpha image; `.grayscale` stores gray pixels.
///
/// Stateless and thread-safe (each call has its own libheif context).
struct HEIFEncoder: ImageEncoder {
    /// HEIC or AVIF.
    let format: HEIFCodec.Format

    /// Encodes the first frame of `image`. Throws ``PipelineError`` when libheif fails.
    func encode(_ image: ImageContainer, options: ImageEncodingOptions, quality: Float) throws(PipelineError) -> Data {
        HEIFLibrary.prepare()
        var source = image.image
        if options.contains(.grayscale) {
            source = source.converted(to: .gray8).converted(to: source.format == .gray8 ? .rgbx8 : source.format)
        }
        let width = source.width, height = source.height
        let alpha = source.format == .rgba8Premultiplied && !options.contains(.noAlpha) && source.containsTransparency()
        guard let context = heif_context_alloc() else {
            throw PipelineError(.failedToInitializeImageDestination, "libheif could not allocate a context.")
        }
        defer { heif_context_free(context) }
        var encoder: OpaquePointer?
        try check(
            heif_context_get_encoder_for_format(context, format.compression, &encoder),
            .failedToInitializeImageDestination, "finding an encoder")
        guard let encoder else { throw PipelineError(.encodingUnsupported, "libheif has no \(format) encoder.") }
        defer { heif_encoder_release(encoder) }
        let clamped = quality.isFinite ? min(max(quality, 0), 1) : 0.75
        try check(
            heif_encoder_set_lossy_quality(encoder, Int32((clamped * 100).rounded())),
            .failedToInitializeImageDestination, "setting the quality")

        var heifImage: OpaquePointer?
        try check(
            heif_image_create(
                Int32(width), Int32(height), heif_colorspace_RGB,
                alpha ? heif_chroma_interleaved_RGBA : heif_chroma_interleaved_RGB, &heifImage),
            .failedToInitializeImageDestination, "creating the image")
        guard let heifImage else { throw PipelineError(.failedToInitializeImageDestination, "libheif made no image.") }
        defer { heif_image_release(heifImage) }
        try check(
            heif_image_add_plane(heifImage, heif_channel_interleaved, Int32(width), Int32(height), 8),
            .failedToInitializeImageDestination, "adding the pixel plane")
        var stride: Int32 = 0
        guard let plane = heif_image_get_plane(heifImage, heif_channel_interleaved, &stride) else {
            throw PipelineError(.failedToInitializeImageDestination, "libheif gave no pixel plane.")
        }
        Self.copy(source, into: plane, stride: Int(stride), alpha: alpha)

        guard let encodingOptions = heif_encoding_options_alloc() else {
            throw PipelineError(.failedToInitializeImageDestination, "libheif could not allocate options.")
        }
        defer { heif_encoding_options_free(encodingOptions) }
        try check(
            heif_context_encode_image(context, heifImage, encoder, encodingOptions, nil),
            .failedToFinalizeImageDestination, "encoding")

        let sink = HEIFOutputSink()
        var writer = heif_writer(writer_api_version: 1) { _, bytes, count, context in
            guard let context else { return HEIFOutputSink.failure }
            let sink = Unmanaged<HEIFOutputSink>.fromOpaque(context).takeUnretainedValue()
            if let bytes, count > 0 { sink.data.append(bytes.assumingMemoryBound(to: UInt8.self), count: count) }
            return HEIFOutputSink.success
        }
        try check(
            heif_context_write(context, &writer, Unmanaged.passUnretained(sink).toOpaque()),
            .failedToFinalizeImageDestination, "writing")
        return sink.data
    }

    private func check(_ error: heif_error, _ code: PipelineError.Code, _ action: String) throws(PipelineError) {
        guard error.code != heif_error_Ok else { return }
        let message = error.message.map { String(cString: $0) } ?? "no message"
        throw PipelineError(code, "libheif failed \(action) a \(format) image: \(message)")
    }

    /// Writes `bitmap` as interleaved 8-bit RGB, or straight RGBA when `alpha`.
    private static func copy(_ bitmap: Bitmap, into plane: UnsafeMutablePointer<UInt8>, stride: Int, alpha: Bool) {
        let width = bitmap.width, height = bitmap.height
        let source = bitmap.format == .gray8 ? bitmap.converted(to: .rgbx8) : bitmap
        source.withUnsafeBytes { raw in
            guard let base = raw.baseAddress?.assumingMemoryBound(to: UInt8.self) else { return }
            for y in 0..<height {
                let row = base + y * source.bytesPerRow
                let out = plane + y * stride
                for x in 0..<width {
                    let a = Int(row[x * 4 + 3])
                    for c in 0..<3 {
                        var value = Int(row[x * 4 + c])
                        if alpha && a < 255 { value = a == 0 ? 0 : min(255, (min(value, a) * 255 + a / 2) / a) }
                        out[x * (alpha ? 4 : 3) + c] = UInt8(value)
                    }
                    if alpha { out[x * 4 + 3] = UInt8(a) }
                }
            }
        }
    }
}

/// Collects what libheif writes.
private final class HEIFOutputSink {
    var data = Data()

    /// libheif's "no error" (its message must be a valid C string).
    static var success: heif_error {
        let text: StaticString = "Success"
        return heif_error(
            code: heif_error_Ok, subcode: heif_suberror_Unspecified,
            message: UnsafeRawPointer(text.utf8Start).assumingMemoryBound(to: CChar.self))
    }

    /// The error for a write without a sink.
    static var failure: heif_error {
        let text: StaticString = "no output"
        return heif_error(
            code: heif_error_Encoding_error, subcode: heif_suberror_Cannot_write_output_data,
            message: UnsafeRawPointer(text.utf8Start).assumingMemoryBound(to: CChar.self))
    }
}
