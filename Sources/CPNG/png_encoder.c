#include "CPNG.h"
#include "png_errors.h"
#include <setjmp.h>
#include <stdlib.h>
#include <string.h>

typedef struct {
    uint8_t *data;
    size_t size;
    size_t capacity;
} output_buffer;

static void write_callback(png_structp png, png_bytep bytes, size_t count) {
    output_buffer *out = (output_buffer *)png_get_io_ptr(png);
    if (count > SIZE_MAX - out->size) png_error(png, "output too large");
    size_t needed = out->size + count;
    if (needed > out->capacity) {
        size_t capacity = out->capacity ? out->capacity : 65536;
        while (capacity < needed) {
            if (capacity > SIZE_MAX / 2) { capacity = needed; break; }
            capacity *= 2;
        }
        uint8_t *grown = (uint8_t *)realloc(out->data, capacity);
        if (grown == NULL) png_error(png, "out of memory");
        out->data = grown;
        out->capacity = capacity;
    }
    memcpy(out->data + out->size, bytes, count);
    out->size = needed;
}

static void flush_callback(png_structp png) { (void)png; }

// round(value * 255 / alpha), clamped; alpha > 0.
static inline uint8_t unpremultiply(unsigned value, unsigned alpha) {
    unsigned v = (value * 255u + alpha / 2u) / alpha;
    return (uint8_t)(v > 255u ? 255u : v);
}

static inline uint8_t luma(unsigned r, unsigned g, unsigned b) {
    return (uint8_t)((299u * r + 587u * g + 114u * b + 500u) / 1000u);
}

// Converts one source row into the layout libpng writes.
static void convert_row(const uint8_t *src, uint8_t *dst, uint32_t width, int input, int layout) {
    if (input == TIP_PNG_INPUT_GRAY8) {
        // Only gray layouts are requested for gray input; alpha is opaque.
        if (layout == TIP_PNG_WRITE_GRAY) {
            memcpy(dst, src, width);
        } else {
            for (uint32_t x = 0; x < width; x++) { dst[2 * x] = src[x]; dst[2 * x + 1] = 255; }
        }
        return;
    }
    int premultiplied = input == TIP_PNG_INPUT_RGBA8_PREMULTIPLIED;
    for (uint32_t x = 0; x < width; x++) {
        const uint8_t *p = src + (size_t)x * 4;
        unsigned r = p[0], g = p[1], b = p[2];
        unsigned a = premultiplied ? p[3] : 255u;
        int wants_alpha = layout == TIP_PNG_WRITE_RGBA || layout == TIP_PNG_WRITE_GRAY_ALPHA;
        if (wants_alpha && a != 255u) {
            if (a == 0) { r = g = b = 0; }
            else { r = unpremultiply(r, a); g = unpremultiply(g, a); b = unpremultiply(b, a); }
        }
        switch (layout) {
        case TIP_PNG_WRITE_GRAY: dst[x] = luma(r, g, b); break;
        case TIP_PNG_WRITE_GRAY_ALPHA: dst[2 * x] = luma(r, g, b); dst[2 * x + 1] = (uint8_t)a; break;
        case TIP_PNG_WRITE_RGB: dst[3 * x] = (uint8_t)r; dst[3 * x + 1] = (uint8_t)g; dst[3 * x + 2] = (uint8_t)b; break;
        default: dst[4 * x] = (uint8_t)r; dst[4 * x + 1] = (uint8_t)g; dst[4 * x + 2] = (uint8_t)b; dst[4 * x + 3] = (uint8_t)a; break;
        }
    }
}

int tip_png_encode(const uint8_t *pixels, size_t stride, uint32_t width, uint32_t height,
                   int input_format, int write_layout, int interlaced, int level,
                   uint8_t **out_data, size_t *out_size, char *message, size_t message_size) {
    tip_png_message_sink sink = { message, message_size };
    if (out_data == NULL || out_size == NULL || pixels == NULL || width == 0 || height == 0) {
        tip_png_sink_store(&sink, "invalid arguments");
        return -1;
    }
    *out_data = NULL;
    *out_size = 0;
    static const int color_types[4] = {
        PNG_COLOR_TYPE_GRAY, PNG_COLOR_TYPE_GRAY_ALPHA, PNG_COLOR_TYPE_RGB, PNG_COLOR_TYPE_RGB_ALPHA
    };
    if (write_layout < 0 || write_layout > 3) {
        tip_png_sink_store(&sink, "invalid layout");
        return -1;
    }
    uint8_t *row = (uint8_t *)malloc((size_t)width * 4);
    output_buffer *out = (output_buffer *)calloc(1, sizeof(output_buffer));
    png_structp png = png_create_write_struct(PNG_LIBPNG_VER_STRING, &sink, tip_png_error_fn, tip_png_warning_fn);
    png_infop info = png ? png_create_info_struct(png) : NULL;
    if (row == NULL || out == NULL || png == NULL || info == NULL) {
        tip_png_sink_store(&sink, "out of memory");
        png_destroy_write_struct(&png, &info);
        free(row);
        free(out);
        return -1;
    }
    if (setjmp(png_jmpbuf(png))) {
        png_destroy_write_struct(&png, &info);
        free(row);
        free(out->data);
        free(out);
        return -1;
    }
    png_set_write_fn(png, out, write_callback, flush_callback);
    png_set_compression_level(png, level < 0 ? 6 : (level > 9 ? 9 : level));
    png_set_IHDR(png, info, width, height, 8, color_types[write_layout],
                 interlaced ? PNG_INTERLACE_ADAM7 : PNG_INTERLACE_NONE,
                 PNG_COMPRESSION_TYPE_DEFAULT, PNG_FILTER_TYPE_DEFAULT);
    png_write_info(png, info);
    int passes = interlaced ? png_set_interlace_handling(png) : 1;
    for (int pass = 0; pass < passes; pass++) {
        for (uint32_t y = 0; y < height; y++) {
            convert_row(pixels + (size_t)y * stride, row, width, input_format, write_layout);
            png_write_row(png, row);
        }
    }
    png_write_end(png, info);
    png_destroy_write_struct(&png, &info);
    free(row);
    *out_data = out->data;
    *out_size = out->size;
    free(out);
    return 0;
}
