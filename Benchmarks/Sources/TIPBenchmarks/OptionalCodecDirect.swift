import CHeif
import COpenJPEG
import Foundation
import TIP

// The codec's memory stream: every direct OpenJPEG user needs one (OpenJPEG ships file streams only).
@testable import TIPJPEG2000

/// OpenJPEG and libheif called directly, with nothing around them: the baselines of the JPEG 2000,
/// HEIC and AVIF rows.
enum OptionalCodecDirect {
    /// `opj_read_header` + `opj_decode` (+ `opj_end_decompress`) of a JP2 with `reduce` resolution levels
    /// discarded and `threads` threads, then the components interleaved into a 64-byte-aligned RGBA
    /// buffer (what a direct caller needs to show the image). Returns the decoded size, nil on failure.
    static func decodeJPEG2000(_ data: Data, reduce: Int = 0, threads: Int = 1) -> (width: Int, height: Int)? {
        data.withUnsafeBytes { bytes -> (width: Int, height: Int)? in
            guard let codec = opj_create_decompress(OPJ_CODEC_JP2), let stream = OpenJPEGInputStream(bytes) else {
                return nil
            }
            defer { opj_destroy_codec(codec) }
            var parameters = opj_dparameters_t()
            opj_set_default_decoder_parameters(&parameters)
            guard opj_setup_decoder(codec, &parameters) != 0 else { return nil }
            if threads > 1 { opj_codec_set_threads(codec, Int32(threads)) }
            var image: UnsafeMutablePointer<opj_image_t>?
            guard opj_read_header(stream.stream, codec, &image) != 0, let image else { return nil }
            defer { opj_image_destroy(image) }
            if reduce > 0 { guard opj_set_decoded_resolution_factor(codec, UInt32(reduce)) != 0 else { return nil } }
            guard opj_decode(codec, stream.stream, image) != 0, opj_end_decompress(codec, stream.stream) != 0,
                image.pointee.numcomps >= 3
            else { return nil }
            let components = image.pointee.comps!
            let width = Int(components[0].w), height = Int(components[0].h)
            let pitch = (width * 4 + 63) / 64 * 64
            let buffer = UnsafeMutablePointer<UInt8>.allocate(capacity: pitch * height)
            defer { buffer.deallocate() }
            let r = components[0].data!, g = components[1].data!, b = components[2].data!
            for y in 0..<height {
                let row = buffer + y * pitch
                for x in 0..<width {
                    let i = y * width + x
                    row[x * 4] = UInt8(clamping: r[i])
                    row[x * 4 + 1] = UInt8(clamping: g[i])
                    row[x * 4 + 2] = UInt8(clamping: b[i])
                    row[x * 4 + 3] = 255
                }
            }
            return (width, height)
        }
    }

    /// libheif: read from memory, primary image (or its first thumbnail), `heif_decode_image` to
    /// interleaved 8-bit RGBA (its own buffer). Returns the decoded size, nil on failure.
    static func decodeHEIF(_ data: Data, thumbnail: Bool = false) -> (width: Int, height: Int)? {
        data.withUnsafeBytes { bytes -> (width: Int, height: Int)? in
            guard let context = heif_context_alloc() else { return nil }
            defer { heif_context_free(context) }
            guard
                heif_context_read_from_memory_without_copy(context, bytes.baseAddress, bytes.count, nil).code
                    == heif_error_Ok
            else { return nil }
            var handle: OpaquePointer?
            guard heif_context_get_primary_image_handle(context, &handle).code == heif_error_Ok, let handle else {
                return nil
            }
            defer { heif_image_handle_release(handle) }
            var target = handle
            if thumbnail {
                var id: heif_item_id = 0
                var thumbnailHandle: OpaquePointer?
                guard heif_image_handle_get_list_of_thumbnail_IDs(handle, &id, 1) == 1,
                    heif_image_handle_get_thumbnail(handle, id, &thumbnailHandle).code == heif_error_Ok,
                    let thumbnailHandle
                else { return nil }
                target = thumbnailHandle
            }
            defer { if target != handle { heif_image_handle_release(target) } }
            var image: OpaquePointer?
            guard
                heif_decode_image(target, &image, heif_colorspace_RGB, heif_chroma_interleaved_RGBA, nil).code
                    == heif_error_Ok,
                let image
            else { return nil }
            defer { heif_image_release(image) }
            return (
                Int(heif_image_get_width(image, heif_channel_interleaved)),
                Int(heif_image_get_height(image, heif_channel_interleaved))
            )
        }
    }
}
