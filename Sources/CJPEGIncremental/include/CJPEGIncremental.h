#ifndef CJPEGINCREMENTAL_H
#define CJPEGINCREMENTAL_H

#include <stddef.h>
#include <stdint.h>

/// Version of the libjpeg API this shim was compiled against (JPEG_LIB_VERSION).
int tip_jpeg_lib_version(void);

/// An incremental JPEG decode over libjpeg with a suspending source. Every entry point catches
/// libjpeg errors with setjmp internally and reports them as -1 (see tip_jpeg_inc_error_message);
/// after an error the decoder only accepts tip_jpeg_inc_destroy. Not thread-safe.
typedef struct tip_jpeg_inc tip_jpeg_inc;

/// What the decoder knows so far (filled by tip_jpeg_inc_get_info).
typedef struct {
    int header_ready;        ///< 1 once the header (SOF) was read
    int started;             ///< 1 once decompression started (output dims valid)
    int image_width;         ///< from the header
    int image_height;
    int num_components;      ///< components in the file
    int jpeg_color_space;    ///< J_COLOR_SPACE of the file
    int saw_adobe_marker;    ///< an Adobe APP14 marker was seen (inverted CMYK)
    int progressive;         ///< progressive (buffered-image mode) decode
    int output_width;        ///< after DCT scaling
    int output_height;
    int output_components;   ///< 4 (RGBX, CMYK) or 1 (gray)
    int completed_scans;     ///< progressive: scans whose data is fully decoded
    int input_scan_number;   ///< progressive: SOS markers seen
    int rows_decoded;        ///< sequential: output rows decoded so far
    int input_complete;      ///< all image data consumed (EOI or fake EOI reached)
    int warnings;            ///< libjpeg warnings so far (corrupt data, premature end)
    int truncated;           ///< the input ended early: the source supplied a fake EOI, or a scan's data stopped at a marker
    long long consumed;      ///< bytes libjpeg has consumed so far (a progress token)
    int last_render_smoothing; ///< 1 if the last progressive render allowed libjpeg's block smoothing
    int own_scans;           ///< progressive: AC scans decoded by TIP's scan decoder rather than libjpeg's
    int restarts;            ///< times TIP's scan decoder declined a scan and the decode started over on libjpeg
} tip_jpeg_inc_info;

/// Output colour spaces for tip_jpeg_inc_start.
enum { TIP_JPEG_OUT_RGBX = 0, TIP_JPEG_OUT_GRAY = 1, TIP_JPEG_OUT_CMYK = 2 };

/// A new decoder, or NULL when out of memory.
tip_jpeg_inc *tip_jpeg_inc_create(void);
/// Whether the AC scans of a progressive image whose data has entirely arrived go to TIP's scan decoder (1, the
/// default) or stay with libjpeg (0). Renders are the same either way; for tests and benchmarks. Call before
/// tip_jpeg_inc_start.
void tip_jpeg_inc_set_own_scans(tip_jpeg_inc *dec, int on);
/// Frees the decoder (NULL is fine).
void tip_jpeg_inc_destroy(tip_jpeg_inc *dec);
/// Queues `count` more bytes (copied). Returns 0, or -1 when out of memory.
int tip_jpeg_inc_append(tip_jpeg_inc *dec, const void *bytes, size_t count);
/// Says no more bytes will come: the source then supplies a fake EOI, like libjpeg's file source.
void tip_jpeg_inc_set_eof(tip_jpeg_inc *dec);
/// Reads the header: 1 when ready, 0 when more bytes are needed, -1 on error.
int tip_jpeg_inc_read_header(tip_jpeg_inc *dec);
/// The first APP1 "Exif" segment payload (after the 6-byte "Exif\0\0" id, i.e. the TIFF data),
/// valid until destroy. Returns 1 when found, else 0.
int tip_jpeg_inc_exif(tip_jpeg_inc *dec, const uint8_t **data, size_t *length);
/// Starts decompression at scale_num/scale_denom into `out_space` (TIP_JPEG_OUT_*). Progressive
/// images use buffered-image mode. Returns 1 when started, 0 when more bytes are needed (call
/// tip_jpeg_inc_consume later), -1 on error.
int tip_jpeg_inc_start(tip_jpeg_inc *dec, int scale_num, int scale_denom, int out_space);
/// Consumes queued bytes. With `hold_at_scan_end` set, a progressive decode stops right after a
/// completed scan unless the next scan is entirely queued (so the coefficients show exactly that
/// scan). Returns 0, or -1 on error.
int tip_jpeg_inc_consume(tip_jpeg_inc *dec, int hold_at_scan_end);
/// Progressive: outputs the coefficients as of `scan_number` (see jpeg_start_output) into `dst`
/// (output_height rows of `pitch` bytes). Rows the pass could not produce yet are filled with mid
/// gray. Returns the number of rows produced, -2 when there is nothing new to show (an earlier pass has yet to
/// finish, or some component has had no scan yet), or -1 on error.
int tip_jpeg_inc_render_progressive(tip_jpeg_inc *dec, int scan_number, uint8_t *dst, size_t pitch);
/// Sequential: copies the rows decoded so far into `dst` and fills the rest with mid gray.
/// Returns the number of decoded rows copied.
int tip_jpeg_inc_copy_rows(tip_jpeg_inc *dec, uint8_t *dst, size_t pitch);
/// The current state.
void tip_jpeg_inc_get_info(tip_jpeg_inc *dec, tip_jpeg_inc_info *info);
/// The last libjpeg error (or first warning) message; never NULL.
const char *tip_jpeg_inc_error_message(tip_jpeg_inc *dec);

/// Where a one-shot decode gets its large blocks (the whole-image coefficient arrays, the copy of the file
/// without the scans it leaves out): `allocate` returns at least `bytes` bytes and stores their usable length
/// in `*length`, or returns NULL; `release` takes back a block with that length. `whole` says the decoder
/// writes all `bytes` at once (a new block may then come with its pages already provided). Contents are
/// arbitrary unless `*zeroed` is set: the decoder zeroes what it needs only then. Called on the decoding
/// thread.
typedef struct {
    void *(*allocate)(size_t bytes, size_t *length, int whole, int *zeroed);
    void (*release)(void *pointer, size_t length);
} tip_jpeg_large_allocator;

/// How tip_jpeg_decode_progressive decoded (flags in `*path`).
enum {
    /// The AC scans of components whose inverse DCT at the scale reads only DC were not decoded.
    TIP_JPEG_PROGRESSIVE_DC_ONLY = 1,
    /// The scans were decoded by TIP's own decoder, libjpeg producing the pixels from the coefficients.
    TIP_JPEG_PROGRESSIVE_OWN_AC = 2,
};

/// Decodes a complete progressive JPEG at scale_num/scale_denom into `destination` (`height` rows of `pitch`
/// bytes, `out_space` a TIP_JPEG_OUT_* value) exactly as TurboJPEG decodes it, with the coefficient arrays
/// from `allocator`, the scans decoded by TIP's own decoder where it takes the file, and without the AC
/// scans of components whose inverse DCT at that scale reads only the DC coefficient; `*path` says which
/// (TIP_JPEG_PROGRESSIVE_* flags). Returns 0 when the image was written; 1 when the caller should decode with
/// TurboJPEG instead: not progressive, output dimensions other than `width` x `height`, any libjpeg warning or
/// error (the rows may then be partly written).
int tip_jpeg_decode_progressive(const uint8_t *data, size_t size, int scale_num, int scale_denom, int out_space,
                                uint8_t *destination, size_t pitch, int width, int height,
                                const tip_jpeg_large_allocator *allocator, int *path);

/// Decodes a complete sequential (baseline) JPEG at scale_num/scale_denom into `destination` (`height` rows of
/// `pitch` bytes, `out_space` a TIP_JPEG_OUT_* value) exactly as TurboJPEG decodes it, with TIP's entropy
/// decoder in place of libjpeg's (jpeg_sequential.c). Returns 0 when the image was written; 1 when the caller
/// should decode with TurboJPEG instead: not sequential or not one interleaved scan, output dimensions other
/// than `width` x `height`, data our decoder declines, any libjpeg warning or error (the rows may then be
/// partly written).
int tip_jpeg_decode_sequential(const uint8_t *data, size_t size, int scale_num, int scale_denom, int out_space,
                               uint8_t *destination, size_t pitch, int width, int height);

/// Compares TIP's progressive scan decoder with libjpeg on `data`: every coefficient of every component read by
/// libjpeg alone, and by TIP's decoder (libjpeg reading only the header). Returns 0 when they are
/// identical, -1 when they differ, 1 when libjpeg warns or fails (or the file is not progressive), 2 when
/// TIP's decoder declines the file. For tests and fuzzing.
int tip_jpeg_progressive_ac_check(const uint8_t *data, size_t size, const tip_jpeg_large_allocator *allocator);

/// Whether TIP's progressive AC decoder uses the PDEP instruction (only where the processor runs it fast):
/// `use` 1 lets it, 0 stops it, -1 leaves it as it is. Returns whether it does now. For tests and benchmarks;
/// decodes are right either way.
int tip_jpeg_ac_use_pdep(int use);

/// Whether TIP's progressive AC decoder, when it uses PDEP, applies a refinement scan's corrections with AVX-512
/// (F, BW and BITALG, where the processor and the OS have them): `use` 1 lets it, 0 stops it, -1 leaves it as it
/// is. Returns whether it may now. For tests and benchmarks; decodes are right either way.
int tip_jpeg_ac_use_avx512(int use);

/// Whether `bytes` (the queued input right after a completed scan; `pending_marker` is libjpeg's
/// already-read marker code or 0) holds a whole next scan, or the EOI. Exposed for tests.
int tip_jpeg_next_scan_available(const uint8_t *bytes, size_t count, int pending_marker);

#endif
