import COpenJPEG
import TIP

/// One OpenJPEG decompressor over bytes in memory: codec, input stream and message collector, with
/// the header read. Destroys everything it made (the image included) when released.
///
/// Not thread-safe: one decode, on one thread.
final class OpenJPEGDecompressor {
    private let codec: UnsafeMutablePointer<opj_codec_t?>
    private let input: OpenJPEGInputStream
    /// What OpenJPEG reported.
    let messages = OpenJPEGMessages()
    /// The image OpenJPEG made from the header (component data filled in by ``decode()``).
    let image: UnsafeMutablePointer<opj_image_t>

    /// Reads the header of the `format` data in `bytes` (which must outlive the decompressor).
    /// `strict` false lets OpenJPEG decode what a truncated codestream holds; `threads` > 1 decodes
    /// code-blocks on OpenJPEG's own thread pool.
    init(_ bytes: UnsafeRawBufferPointer, format: JPEG2000Layout.Format, strict: Bool, threads: Int)
        throws(ImageDecodingError)
    {
        guard let codec = opj_create_decompress(format == .jp2 ? OPJ_CODEC_JP2 : OPJ_CODEC_J2K) else {
            throw .unsupported("OpenJPEG could not create a decompressor")
        }
        messages.install(on: codec)
        var parameters = opj_dparameters_t()
        opj_set_default_decoder_parameters(&parameters)
        guard opj_setup_decoder(codec, &parameters) != 0, let input = OpenJPEGInputStream(bytes) else {
            opj_destroy_codec(codec)
            throw .unsupported("OpenJPEG could not set up a decompressor")
        }
        opj_decoder_set_strict_mode(codec, strict ? 1 : 0)
        if threads > 1, opj_has_thread_support() != 0 { opj_codec_set_threads(codec, Int32(threads)) }
        var image: UnsafeMutablePointer<opj_image_t>?
        guard opj_read_header(input.stream, codec, &image) != 0, let image else {
            let text = messages.errorText(or: "OpenJPEG could not read the header")
            opj_destroy_codec(codec)
            throw .corruptData(text)
        }
        self.codec = codec
        self.input = input
        self.image = image
    }

    deinit {
        opj_image_destroy(image)
        opj_destroy_codec(codec)
    }

    /// The fewest resolution levels any component has in the main header (1 = no wavelet levels).
    var resolutionLevels: Int {
        var info = opj_get_cstr_info(codec)
        defer { opj_destroy_cstr_info(&info) }
        guard let info else { return 1 }
        let count = Int(info.pointee.nbcomps)
        guard let components = info.pointee.m_default_tile_info.tccp_info, count > 0 else { return 1 }
        return (0..<count).map { Int(components[$0].numresolutions) }.min().map { max($0, 1) } ?? 1
    }

    /// Discards the `levels` highest resolution levels: each halves both sides (rounding up).
    func reduce(by levels: Int) -> Bool {
        levels == 0 || opj_set_decoded_resolution_factor(codec, UInt32(levels)) != 0
    }

    /// Decodes the component data into ``image``; returns whether OpenJPEG succeeded.
    func decode() -> Bool {
        opj_decode(codec, input.stream, image) != 0 && opj_end_decompress(codec, input.stream) != 0
    }
}
