#ifndef CTIFF_H
#define CTIFF_H

#include <stddef.h>
#include <stdint.h>

// Our C shim over libtiff 4.5+: TIFF in memory, with libtiff's errors and warnings caught per handle
// (TIFFOpenOptionsSetErrorHandlerExtR), never through libtiff's process-global handlers, so decodes and
// encodes on several threads never share state and nothing is printed.

/// Version string of the libtiff this shim runs against.
const char *tip_tiff_lib_version(void);

// MARK: - Decoding

/// An open TIFF (its first image) over caller-owned bytes.
typedef struct tip_tiff_image tip_tiff_image;

/// What libtiff reports about the first image.
typedef struct {
    uint32_t width;
    uint32_t height;
    /// TIFF orientation 1...8 (1 when absent or invalid).
    uint16_t orientation;
    /// 0 no alpha, 1 associated (premultiplied) alpha, 2 unassociated alpha.
    uint16_t alpha;
    uint16_t samples_per_pixel;
    uint16_t bits_per_sample;
    uint16_t photometric;
    uint16_t compression;
    /// 1 when the image is stored in tiles, 0 for strips.
    int32_t is_tiled;
    /// 1 when libtiff's RGBA interface can convert this image, 0 otherwise (see the message).
    int32_t is_supported;
    /// Rows per strip, or the tile length: bands decoded apart must start at multiples of it.
    uint32_t rows_per_piece;
} tip_tiff_info;

/// Results of `tip_tiff_read_rgba`.
enum {
    /// Every row was decoded.
    TIP_TIFF_OK = 0,
    /// Decoding stopped at a damaged or missing strip or tile; the rows above `rows_complete` hold pixels.
    TIP_TIFF_PARTIAL = 1,
    /// Nothing could be decoded.
    TIP_TIFF_FAILED = -1,
};

/// Opens the first image of the `size` bytes at `data`, which must stay valid and unchanged until
/// `tip_tiff_close`. No single allocation libtiff makes for it may exceed `max_single_allocation`
/// bytes. Returns NULL with libtiff's message in `message` when the data is not a readable TIFF.
tip_tiff_image *tip_tiff_open(const uint8_t *data, size_t size, uint64_t max_single_allocation,
                              tip_tiff_info *info, char *message, size_t message_size);

/// Decodes the image as premultiplied RGBA words (bytes r, g, b, a; opaque images get a = 255), rows in
/// the order they are stored (the orientation is not applied), into `raster`: `height` rows of `stride`
/// bytes (at least width * 4, a multiple of 4). Returns TIP_TIFF_OK, TIP_TIFF_PARTIAL (rows from
/// `*rows_complete` on were not written) or TIP_TIFF_FAILED, with the first libtiff error in `message`.
int tip_tiff_read_rgba(tip_tiff_image *image, uint8_t *raster, size_t stride, uint32_t *rows_complete,
                       char *message, size_t message_size);

/// Decodes rows `first_row` to `first_row + row_count - 1` (stored order) into `raster` (the band's
/// first row; rows `stride` bytes apart), as `tip_tiff_read_rgba` does for the whole image. Bands that
/// start at multiples of `rows_per_piece` read disjoint strips or tiles, so separate handles over the
/// same bytes can decode them on separate threads. `*rows_complete` counts from the band's first row.
int tip_tiff_read_rgba_rows(tip_tiff_image *image, uint8_t *raster, size_t stride, uint32_t first_row, uint32_t row_count,
                            uint32_t *rows_complete, char *message, size_t message_size);

/// Closes the image (NULL is fine).
void tip_tiff_close(tip_tiff_image *image);

// MARK: - Encoding

/// Pixel layouts the encoder reads (they match TIP's PixelFormat).
enum {
    TIP_TIFF_INPUT_GRAY8 = 0,
    TIP_TIFF_INPUT_RGBX8 = 1,
    TIP_TIFF_INPUT_RGBA8_PREMULTIPLIED = 2,
};

/// Sample layouts the encoder writes.
enum {
    /// 8-bit gray (the rounded Rec. 601 luma of colour input, composited onto black).
    TIP_TIFF_WRITE_GRAY = 0,
    /// 8-bit RGB (premultiplied input composited onto black).
    TIP_TIFF_WRITE_RGB = 1,
    /// 8-bit RGB plus unassociated alpha (colours un-premultiplied with rounding).
    TIP_TIFF_WRITE_RGBA = 2,
};

/// Encodes `height` rows of `stride` bytes as a single-image TIFF, LZW-compressed with horizontal
/// differencing, in strips of about 8 KiB, orientation 1. On success returns 0 and a malloc'd buffer
/// in `*out_data` (free it with `tip_tiff_free`); on failure returns -1 with libtiff's message.
int tip_tiff_encode(const uint8_t *pixels, size_t stride, uint32_t width, uint32_t height,
                    int input_format, int write_layout, uint8_t **out_data, size_t *out_size,
                    char *message, size_t message_size);

/// Frees a buffer returned by `tip_tiff_encode`.
void tip_tiff_free(void *pointer);

#endif
