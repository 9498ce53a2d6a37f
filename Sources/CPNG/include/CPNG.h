#ifndef CPNG_H
#define CPNG_H

#include <png.h>
#include <stddef.h>
#include <stdint.h>

/// Version of libpng this shim was compiled against (PNG_LIBPNG_VER).
int tip_png_lib_version(void);

// MARK: - Decoding (libpng's progressive reader; every libpng error is caught in C)

/// Pixel layouts the reader writes (they match TIP's PixelFormat).
enum {
    /// One byte per pixel, opaque gray.
    TIP_PNG_OUTPUT_GRAY8 = 0,
    /// R, G, B, 0xFF.
    TIP_PNG_OUTPUT_RGBX8 = 1,
    /// R, G, B, A with colour premultiplied by alpha (rounded to nearest).
    TIP_PNG_OUTPUT_RGBA8_PREMULTIPLIED = 2,
};

/// An incremental PNG decode: bytes go in as they arrive, rows land in a caller-owned canvas.
typedef struct tip_png_reader tip_png_reader;

/// What a reader has achieved so far.
typedef struct {
    /// 1 once libpng reported an error; the reader then ignores further bytes.
    int32_t failed;
    /// 1 once the header and every chunk before the image data were read.
    int32_t header_read;
    /// 1 once IEND was read.
    int32_t finished;
    /// 1 once the last row of the last pass was delivered.
    int32_t pixels_complete;
    /// Rows of the canvas holding decoded data: all rows above this one (for interlaced images, rows
    /// above hold at least the blocky approximation of the passes received).
    uint32_t rows_written;
    /// The latest pass that delivered a row (0...6), or -1.
    int32_t pass;
    /// libpng's message for the error, empty when none.
    char message[192];
} tip_png_reader_status;

/// A reader for a `width` x `height` image written as `output_format`. The header the data carries
/// must match these dimensions. Returns NULL when out of memory.
tip_png_reader *tip_png_reader_create(uint32_t width, uint32_t height, int output_format);

/// Frees the reader (NULL is fine).
void tip_png_reader_destroy(tip_png_reader *reader);

/// Feeds the next `count` bytes. Decoded rows are written to `canvas`, which has `height` rows of
/// `stride` bytes (stride >= width * bytes per pixel); for interlaced images the canvas must hold
/// defined bytes before the first call, as passes combine with earlier ones. Returns 0, or -1 once
/// libpng failed (see the status message).
int tip_png_reader_feed(tip_png_reader *reader, const uint8_t *bytes, size_t count,
                        uint8_t *canvas, size_t stride);

/// The reader's progress.
void tip_png_reader_get_status(const tip_png_reader *reader, tip_png_reader_status *status);

// MARK: - One-shot fast path (libdeflate)

/// Results of `tip_png_fast_decode`.
enum {
    /// Every row of the canvas was written.
    TIP_PNG_FAST_OK = 0,
    /// The data is not one this path decodes exactly as the libpng reader would (damage, other bit
    /// depths, interlacing, unusual chunk layouts, out of memory): decode it with the reader instead.
    TIP_PNG_FAST_UNSUPPORTED = -1,
};

/// Where `tip_png_fast_decode` gets the buffer it inflates the rows into, which it writes whole at once:
/// `allocate` returns at least `bytes` bytes (contents arbitrary) and stores their usable length in
/// `*length`, or returns NULL; `release` takes the buffer back with that length. Called on the decoding
/// thread, and only for buffers from 256 KiB to 16 MiB (others come from malloc).
typedef struct {
    void *(*allocate)(size_t bytes, size_t *length);
    void (*release)(void *pointer, size_t length);
} tip_png_scratch_allocator;

/// Decodes a complete, non-interlaced, 8-bit PNG (`size` bytes up to and including IEND) whose header
/// says `width` x `height`, writing `output_format` rows into `canvas` (`height` rows of `stride`
/// bytes). The pixels are byte-identical to what the libpng reader writes for the same data; every
/// chunk CRC that the reader would act on is checked. Returns `TIP_PNG_FAST_OK`, or
/// `TIP_PNG_FAST_UNSUPPORTED` with the canvas partly written. `scratch` (NULL: a mapping of its own)
/// provides the inflated rows' buffer. Thread-safe (no shared state).
int tip_png_fast_decode(const uint8_t *data, size_t size, uint32_t width, uint32_t height, int output_format,
                        uint8_t *canvas, size_t stride, const tip_png_scratch_allocator *scratch);

// MARK: - Chunk checksums

/// The CRC-32 of `count` bytes continuing `crc` (0 to start), as PNG chunks use it (libdeflate's).
uint32_t tip_png_crc32(uint32_t crc, const uint8_t *bytes, size_t count);

// MARK: - Encoding

/// Pixel layouts the encoder reads.
enum {
    TIP_PNG_INPUT_GRAY8 = 0,
    TIP_PNG_INPUT_RGBX8 = 1,
    TIP_PNG_INPUT_RGBA8_PREMULTIPLIED = 2,
};

/// PNG colour layouts the encoder writes.
enum {
    TIP_PNG_WRITE_GRAY = 0,
    TIP_PNG_WRITE_GRAY_ALPHA = 1,
    TIP_PNG_WRITE_RGB = 2,
    TIP_PNG_WRITE_RGBA = 3,
};

/// Encodes `height` rows of `stride` bytes as an 8-bit PNG. Premultiplied input is un-premultiplied
/// (rounded) for the alpha layouts and used as is (composited onto black) for the opaque ones; gray is
/// the rounded Rec. 601 luma. `interlaced` writes Adam7, `level` is the zlib level (0...9). On success
/// returns 0 and a malloc'd buffer in `*out_data` (free it with `tip_png_free`); on failure returns -1
/// with libpng's message in `message`.
int tip_png_encode(const uint8_t *pixels, size_t stride, uint32_t width, uint32_t height,
                   int input_format, int write_layout, int interlaced, int level,
                   uint8_t **out_data, size_t *out_size, char *message, size_t message_size);

/// Frees a buffer returned by `tip_png_encode`.
void tip_png_free(void *pointer);

#endif
