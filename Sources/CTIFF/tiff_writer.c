#include "CTIFF.h"
#include "tiff_support.h"
#include <stdlib.h>
#include <string.h>

// Writing needs no mapping.
static int sink_map(thandle_t handle, void **base, toff_t *size) {
    (void)handle;
    (void)base;
    (void)size;
    return 0;
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
    tip_tiff_memory sink;
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
    TIFF *tif = TIFFClientOpenExt("memory", big ? "w8" : "w", (thandle_t)&sink, tip_tiff_memory_read, tip_tiff_memory_write,
                                  tip_tiff_memory_seek, tip_tiff_memory_close, tip_tiff_memory_size, sink_map, tip_tiff_memory_unmap,
                                  options);
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
