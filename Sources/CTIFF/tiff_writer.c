#include "CTIFF.h"
#include "tiff_support.h"
#include <stdlib.h>
#include <string.h>

// A growing buffer libtiff writes into (and seeks in, to patch offsets).
typedef struct {
    uint8_t *data;
    toff_t size;
    toff_t capacity;
    toff_t position;
    int failed;
} memory_sink;

static tmsize_t sink_write(thandle_t handle, void *buffer, tmsize_t count) {
    memory_sink *sink = (memory_sink *)handle;
    if (count <= 0) return 0;
    toff_t end = sink->position + (toff_t)count;
    if (end < sink->position || end > (toff_t)INT64_MAX) {
        sink->failed = 1;
        return 0;
    }
    if (end > sink->capacity) {
        toff_t capacity = sink->capacity ? sink->capacity : 65536;
        while (capacity < end) capacity *= 2;
        uint8_t *grown = (uint8_t *)realloc(sink->data, (size_t)capacity);
        if (grown == NULL) {
            sink->failed = 1;
            return 0;
        }
        sink->data = grown;
        sink->capacity = capacity;
    }
    if (sink->position > sink->size) memset(sink->data + sink->size, 0, (size_t)(sink->position - sink->size));
    memcpy(sink->data + sink->position, buffer, (size_t)count);
    sink->position = end;
    if (end > sink->size) sink->size = end;
    return count;
}

static tmsize_t sink_read(thandle_t handle, void *buffer, tmsize_t count) {
    memory_sink *sink = (memory_sink *)handle;
    if (count <= 0 || sink->position >= sink->size) return 0;
    toff_t available = sink->size - sink->position;
    toff_t length = (toff_t)count < available ? (toff_t)count : available;
    memcpy(buffer, sink->data + sink->position, (size_t)length);
    sink->position += length;
    return (tmsize_t)length;
}

static toff_t sink_seek(thandle_t handle, toff_t offset, int whence) {
    memory_sink *sink = (memory_sink *)handle;
    toff_t base = whence == SEEK_CUR ? sink->position : (whence == SEEK_END ? sink->size : 0);
    if (offset > UINT64_MAX - base) return (toff_t)-1;
    sink->position = base + offset;
    return sink->position;
}

static int sink_close(thandle_t handle) {
    (void)handle;
    return 0;
}

static toff_t sink_size(thandle_t handle) { return ((memory_sink *)handle)->size; }

static int sink_map(thandle_t handle, void **base, toff_t *size) {
    (void)handle;
    (void)base;
    (void)size;
    return 0;
}

static void sink_unmap(thandle_t handle, void *base, toff_t size) {
    (void)handle;
    (void)base;
    (void)size;
}

// Exact round(value * 255 / alpha), clamped.
static uint8_t unpremultiply(unsigned value, unsigned alpha) {
    if (alpha == 0) return 0;
    unsigned result = (value * 255 + alpha / 2) / alpha;
    return (uint8_t)(result > 255 ? 255 : result);
}

static uint8_t luma(unsigned r, unsigned g, unsigned b) {
    return (uint8_t)((299 * r + 587 * g + 114 * b + 500) / 1000);
}

static void convert_row(const uint8_t *src, uint8_t *dst, uint32_t width, int input_format, int layout) {
    for (uint32_t x = 0; x < width; x++) {
        unsigned r, g, b, a;
        if (input_format == TIP_TIFF_INPUT_GRAY8) {
            r = g = b = src[x];
            a = 255;
        } else {
            const uint8_t *p = src + (size_t)x * 4;
            r = p[0];
            g = p[1];
            b = p[2];
            a = input_format == TIP_TIFF_INPUT_RGBA8_PREMULTIPLIED ? p[3] : 255;
        }
        switch (layout) {
        case TIP_TIFF_WRITE_GRAY:
            dst[x] = input_format == TIP_TIFF_INPUT_GRAY8 ? (uint8_t)r : luma(r, g, b);
            break;
        case TIP_TIFF_WRITE_RGB:
            dst[(size_t)x * 3] = (uint8_t)r;
            dst[(size_t)x * 3 + 1] = (uint8_t)g;
            dst[(size_t)x * 3 + 2] = (uint8_t)b;
            break;
        default:
            dst[(size_t)x * 4] = a == 255 ? (uint8_t)r : unpremultiply(r, a);
            dst[(size_t)x * 4 + 1] = a == 255 ? (uint8_t)g : unpremultiply(g, a);
            dst[(size_t)x * 4 + 2] = a == 255 ? (uint8_t)b : unpremultiply(b, a);
            dst[(size_t)x * 4 + 3] = (uint8_t)a;
            break;
        }
    }
}

int tip_tiff_encode(const uint8_t *pixels, size_t stride, uint32_t width, uint32_t height,
                    int input_format, int write_layout, uint8_t **out_data, size_t *out_size,
                    char *message, size_t message_size) {
    tip_tiff_copy_message(message, message_size, "");
    if (out_data) *out_data = NULL;
    if (out_size) *out_size = 0;
    if (pixels == NULL || width == 0 || height == 0 || out_data == NULL || out_size == NULL) {
        tip_tiff_copy_message(message, message_size, "invalid arguments");
        return -1;
    }
    uint16_t samples = write_layout == TIP_TIFF_WRITE_GRAY ? 1 : (write_layout == TIP_TIFF_WRITE_RGB ? 3 : 4);
    memory_sink sink;
    memset(&sink, 0, sizeof(sink));
    tip_tiff_messages messages;
    memset(&messages, 0, sizeof(messages));
    TIFFOpenOptions *options = tip_tiff_options(&messages, 0);
    if (options == NULL) {
        tip_tiff_copy_message(message, message_size, "out of memory");
        return -1;
    }
    // Classic TIFF (4 GiB at most) unless the pixels alone need more: then BigTIFF.
    int big = (uint64_t)width * height * samples > 0xF0000000ull;
    TIFF *tif = TIFFClientOpenExt("memory", big ? "w8" : "w", (thandle_t)&sink, sink_read, sink_write, sink_seek,
                                  sink_close, sink_size, sink_map, sink_unmap, options);
    TIFFOpenOptionsFree(options);
    if (tif == NULL) {
        tip_tiff_copy_message(message, message_size, messages.text[0] ? messages.text : "libtiff could not start");
        free(sink.data);
        return -1;
    }
    TIFFSetField(tif, TIFFTAG_IMAGEWIDTH, width);
    TIFFSetField(tif, TIFFTAG_IMAGELENGTH, height);
    TIFFSetField(tif, TIFFTAG_BITSPERSAMPLE, 8);
    TIFFSetField(tif, TIFFTAG_SAMPLESPERPIXEL, samples);
    TIFFSetField(tif, TIFFTAG_PLANARCONFIG, PLANARCONFIG_CONTIG);
    TIFFSetField(tif, TIFFTAG_PHOTOMETRIC, samples == 1 ? PHOTOMETRIC_MINISBLACK : PHOTOMETRIC_RGB);
    TIFFSetField(tif, TIFFTAG_ORIENTATION, ORIENTATION_TOPLEFT);
    TIFFSetField(tif, TIFFTAG_COMPRESSION, COMPRESSION_LZW);
    TIFFSetField(tif, TIFFTAG_PREDICTOR, PREDICTOR_HORIZONTAL);
    if (samples == 4) {
        uint16_t extra = EXTRASAMPLE_UNASSALPHA;
        TIFFSetField(tif, TIFFTAG_EXTRASAMPLES, 1, &extra);
    }
    TIFFSetField(tif, TIFFTAG_ROWSPERSTRIP, TIFFDefaultStripSize(tif, 0));
    size_t row_bytes = (size_t)width * samples;
    uint8_t *row = (uint8_t *)malloc(row_bytes);
    int status = row ? 0 : -1;
    for (uint32_t y = 0; status == 0 && y < height; y++) {
        convert_row(pixels + (size_t)y * stride, row, width, input_format, write_layout);
        if (TIFFWriteScanline(tif, row, y, 0) < 0) status = -1;
    }
    free(row);
    if (status == 0 && !TIFFWriteDirectory(tif)) status = -1;
    TIFFClose(tif);
    if (status != 0 || sink.failed || messages.error_count > 0) {
        tip_tiff_copy_message(message, message_size, messages.text[0] ? messages.text : "libtiff could not write the image");
        free(sink.data);
        return -1;
    }
    *out_data = sink.data;
    *out_size = (size_t)sink.size;
    return 0;
}

void tip_tiff_free(void *pointer) { free(pointer); }
