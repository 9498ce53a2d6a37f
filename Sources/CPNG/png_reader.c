#include "CPNG.h"
#include "png_errors.h"
#include <setjmp.h>
#include <stdlib.h>
#include <string.h>

struct tip_png_reader {
    png_structp png;
    png_infop info;
    uint32_t width;
    uint32_t height;
    int output_format;
    int interlaced;
    int fused_copy;
    // Valid only during tip_png_reader_feed.
    uint8_t *canvas;
    size_t stride;
    tip_png_reader_status status;
    tip_png_message_sink sink;
};

// Ancillary chunks we never use: skipping them saves time and keeps hostile payloads away.
static const png_byte ignored_chunks[] = {
    'b', 'K', 'G', 'D', '\0', 'c', 'H', 'R', 'M', '\0', 'e', 'X', 'I', 'f', '\0',
    'g', 'A', 'M', 'A', '\0', 'h', 'I', 'S', 'T', '\0', 'i', 'C', 'C', 'P', '\0',
    'i', 'T', 'X', 't', '\0', 'o', 'F', 'F', 's', '\0', 'p', 'C', 'A', 'L', '\0',
    'p', 'H', 'Y', 's', '\0', 's', 'B', 'I', 'T', '\0', 's', 'C', 'A', 'L', '\0',
    's', 'P', 'L', 'T', '\0', 's', 'R', 'G', 'B', '\0', 't', 'E', 'X', 't', '\0',
    't', 'I', 'M', 'E', '\0', 'z', 'T', 'X', 't', '\0',
};

// Exact round(value * alpha / 255) for value, alpha in 0...255.
static inline uint8_t multiply_div255(unsigned value, unsigned alpha) {
    unsigned t = value * alpha + 128;
    return (uint8_t)((t + (t >> 8)) >> 8);
}

// Runs once on every decoded row (before interlace expansion), so each pixel is premultiplied once.
static void premultiply_transform(png_structp png, png_row_infop row_info, png_bytep data) {
    (void)png;
    if (row_info->channels != 4 || row_info->bit_depth != 8) return;
    png_uint_32 width = row_info->width;
    for (png_uint_32 x = 0; x < width; x++) {
        uint8_t *p = data + (size_t)x * 4;
        unsigned alpha = p[3];
        if (alpha == 255) continue;
        if (alpha == 0) {
            p[0] = 0; p[1] = 0; p[2] = 0;
        } else {
            p[0] = multiply_div255(p[0], alpha);
            p[1] = multiply_div255(p[1], alpha);
            p[2] = multiply_div255(p[2], alpha);
        }
    }
}

enum { ROW_COPY_PLAIN = 0, ROW_COPY_RGB_TO_RGBX = 1, ROW_COPY_PREMULTIPLY = 2 };

static void copy_rgb_to_rgbx(const uint8_t *src, uint8_t *dst, uint32_t width) {
    for (uint32_t x = 0; x < width; x++) {
        dst[0] = src[0];
        dst[1] = src[1];
        dst[2] = src[2];
        dst[3] = 0xFF;
        src += 3;
        dst += 4;
    }
}

static void copy_premultiplied(const uint8_t *src, uint8_t *dst, uint32_t width) {
    for (uint32_t x = 0; x < width; x++) {
        unsigned alpha = src[3];
        if (alpha == 255) {
            memcpy(dst, src, 4);
        } else {
            dst[0] = multiply_div255(src[0], alpha);
            dst[1] = multiply_div255(src[1], alpha);
            dst[2] = multiply_div255(src[2], alpha);
            dst[3] = (uint8_t)alpha;
        }
        src += 4;
        dst += 4;
    }
}

static size_t bytes_per_pixel(int output_format) {
    return output_format == TIP_PNG_OUTPUT_GRAY8 ? 1 : 4;
}

static void info_callback(png_structp png, png_infop info) {
    tip_png_reader *reader = (tip_png_reader *)png_get_progressive_ptr(png);
    png_uint_32 width = 0, height = 0;
    int bit_depth = 0, color_type = 0, interlace = 0;
    png_get_IHDR(png, info, &width, &height, &bit_depth, &color_type, &interlace, NULL, NULL);
    if (width != reader->width || height != reader->height) {
        png_error(png, "image header does not match the scanned header");
    }
    int format = reader->output_format;
    int has_trns = png_get_valid(png, info, PNG_INFO_tRNS) != 0;
    int is_gray = (color_type & PNG_COLOR_MASK_COLOR) == 0;

    if (format == TIP_PNG_OUTPUT_GRAY8 && color_type != PNG_COLOR_TYPE_GRAY) {
        png_error(png, "gray output requested for a colour image");
    }
    if (color_type == PNG_COLOR_TYPE_PALETTE) png_set_palette_to_rgb(png);
    if (is_gray && bit_depth < 8) png_set_expand_gray_1_2_4_to_8(png);
    if (has_trns && format == TIP_PNG_OUTPUT_RGBA8_PREMULTIPLIED && color_type != PNG_COLOR_TYPE_PALETTE) {
        png_set_tRNS_to_alpha(png);
    }
    if (bit_depth == 16) png_set_strip_16(png);
    if (is_gray && format != TIP_PNG_OUTPUT_GRAY8) png_set_gray_to_rgb(png);

    // Palette expansion adds alpha whenever tRNS is present.
    int has_alpha = (color_type & PNG_COLOR_MASK_ALPHA) != 0 ||
                    (has_trns && (color_type == PNG_COLOR_TYPE_PALETTE || format == TIP_PNG_OUTPUT_RGBA8_PREMULTIPLIED));
    reader->interlaced = interlace != PNG_INTERLACE_NONE;
    // Non-interlaced rows are copied to the canvas by our own loops, which fold the filler or the
    // premultiplication into that copy; interlaced rows need libpng's combining, so libpng must
    // produce the final layout itself.
    reader->fused_copy = ROW_COPY_PLAIN;
    if (format == TIP_PNG_OUTPUT_RGBX8) {
        if (has_alpha) png_set_strip_alpha(png);
        if (reader->interlaced) png_set_filler(png, 0xFF, PNG_FILLER_AFTER);
        else reader->fused_copy = ROW_COPY_RGB_TO_RGBX;
    } else if (format == TIP_PNG_OUTPUT_RGBA8_PREMULTIPLIED) {
        if (!has_alpha) png_set_add_alpha(png, 0xFF, PNG_FILLER_AFTER);
        if (reader->interlaced) png_set_read_user_transform_fn(png, premultiply_transform);
        else reader->fused_copy = ROW_COPY_PREMULTIPLY;
    }
    if (reader->interlaced) (void)png_set_interlace_handling(png);
    png_read_update_info(png, info);
    size_t expected_row = (size_t)width * (reader->fused_copy == ROW_COPY_RGB_TO_RGBX ? 3 : bytes_per_pixel(format));
    if (png_get_rowbytes(png, info) != expected_row || png_get_bit_depth(png, info) != 8) {
        png_error(png, "unexpected row layout after transformations");
    }
    reader->status.header_read = 1;
}

static void row_callback(png_structp png, png_bytep new_row, png_uint_32 row_num, int pass) {
    tip_png_reader *reader = (tip_png_reader *)png_get_progressive_ptr(png);
    if (row_num >= reader->height || reader->canvas == NULL) png_error(png, "row out of range");
    if (row_num + 1 == reader->height && (!reader->interlaced || pass == 6)) reader->status.pixels_complete = 1;
    if (new_row == NULL) return;
    uint8_t *dst = reader->canvas + (size_t)row_num * reader->stride;
    switch (reader->fused_copy) {
    case ROW_COPY_RGB_TO_RGBX: copy_rgb_to_rgbx(new_row, dst, reader->width); break;
    case ROW_COPY_PREMULTIPLY: copy_premultiplied(new_row, dst, reader->width); break;
    default: png_progressive_combine_row(png, dst, new_row); break;
    }
    if (row_num + 1 > reader->status.rows_written) reader->status.rows_written = row_num + 1;
    reader->status.pass = pass;
}

static void end_callback(png_structp png, png_infop info) {
    (void)info;
    tip_png_reader *reader = (tip_png_reader *)png_get_progressive_ptr(png);
    reader->status.finished = 1;
}

tip_png_reader *tip_png_reader_create(uint32_t width, uint32_t height, int output_format) {
    if (width == 0 || height == 0) return NULL;
    tip_png_reader *reader = (tip_png_reader *)calloc(1, sizeof(tip_png_reader));
    if (reader == NULL) return NULL;
    reader->width = width;
    reader->height = height;
    reader->output_format = output_format;
    reader->status.pass = -1;
    reader->sink.buffer = reader->status.message;
    reader->sink.capacity = sizeof(reader->status.message);
    reader->png = png_create_read_struct(PNG_LIBPNG_VER_STRING, &reader->sink, tip_png_error_fn, tip_png_warning_fn);
    if (reader->png == NULL) {
        free(reader);
        return NULL;
    }
    reader->info = png_create_info_struct(reader->png);
    if (reader->info == NULL) {
        png_destroy_read_struct(&reader->png, NULL, NULL);
        free(reader);
        return NULL;
    }
    if (setjmp(png_jmpbuf(reader->png))) {
        reader->status.failed = 1;
        return reader;
    }
    // The header was already checked against the caller's pixel budget: anything else is hostile.
    png_set_user_limits(reader->png, width, height);
    png_set_chunk_malloc_max(reader->png, 8u * 1024u * 1024u);
    png_set_chunk_cache_max(reader->png, 128);
    png_set_keep_unknown_chunks(reader->png, PNG_HANDLE_CHUNK_NEVER, NULL, 0);
    png_set_keep_unknown_chunks(reader->png, PNG_HANDLE_CHUNK_NEVER, ignored_chunks,
                                (int)(sizeof(ignored_chunks) / 5));
    // Chunk CRCs still catch damage; the zlib checksum over the inflated rows only costs time.
    (void)png_set_option(reader->png, PNG_IGNORE_ADLER32, PNG_OPTION_ON);
    png_set_progressive_read_fn(reader->png, reader, info_callback, row_callback, end_callback);
    return reader;
}

void tip_png_reader_destroy(tip_png_reader *reader) {
    if (reader == NULL) return;
    png_destroy_read_struct(&reader->png, &reader->info, NULL);
    free(reader);
}

int tip_png_reader_feed(tip_png_reader *reader, const uint8_t *bytes, size_t count,
                        uint8_t *canvas, size_t stride) {
    if (reader == NULL) return -1;
    if (reader->status.failed) return -1;
    if (count == 0 || reader->status.finished) return 0;
    if (canvas == NULL || stride < (size_t)reader->width * bytes_per_pixel(reader->output_format)) {
        tip_png_sink_store(&reader->sink, "invalid canvas");
        reader->status.failed = 1;
        return -1;
    }
    reader->canvas = canvas;
    reader->stride = stride;
    if (setjmp(png_jmpbuf(reader->png))) {
        reader->canvas = NULL;
        reader->status.failed = 1;
        return -1;
    }
    png_process_data(reader->png, reader->info, (png_bytep)bytes, count);
    reader->canvas = NULL;
    return 0;
}

void tip_png_reader_get_status(const tip_png_reader *reader, tip_png_reader_status *status) {
    if (reader == NULL || status == NULL) return;
    *status = reader->status;
}
