#include "CTIFF.h"
#include "tiff_support.h"
#include <stdlib.h>
#include <string.h>

struct tip_tiff_image {
    TIFF *tif;
    // The caller's bytes; libtiff reads strips in place through the map proc.
    tip_tiff_memory source;
    tip_tiff_messages messages;
};

// A read-only file is mapped: libtiff then reads strips where they are instead of copying them.
static int source_map(thandle_t handle, void **base, toff_t *size) {
    tip_tiff_memory *source = (tip_tiff_memory *)handle;
    *base = source->data;
    *size = source->size;
    return 1;
}

static tmsize_t source_write(thandle_t handle, void *buffer, tmsize_t count) {
    (void)handle;
    (void)buffer;
    (void)count;
    return 0;
}

tip_tiff_image *tip_tiff_open(const uint8_t *data, size_t size, uint64_t max_single_allocation,
                              tip_tiff_info *info, char *message, size_t message_size) {
    tip_tiff_copy_message(message, message_size, "");
    if (data == NULL || size == 0 || info == NULL) {
        tip_tiff_copy_message(message, message_size, "no data");
        return NULL;
    }
    memset(info, 0, sizeof(*info));
    tip_tiff_image *image = (tip_tiff_image *)calloc(1, sizeof(tip_tiff_image));
    if (image == NULL) {
        tip_tiff_copy_message(message, message_size, "out of memory");
        return NULL;
    }
    image->source.data = (uint8_t *)data;
    image->source.size = (toff_t)size;
    tmsize_t limit = max_single_allocation > (uint64_t)INT64_MAX ? 0 : (tmsize_t)max_single_allocation;
    TIFFOpenOptions *options = tip_tiff_options(&image->messages, limit);
    if (options == NULL) {
        free(image);
        tip_tiff_copy_message(message, message_size, "out of memory");
        return NULL;
    }
    image->tif = TIFFClientOpenExt("memory", "rm", (thandle_t)&image->source, tip_tiff_memory_read, source_write,
                                   tip_tiff_memory_seek, tip_tiff_memory_close, tip_tiff_memory_size, source_map,
                                   tip_tiff_memory_unmap, options);
    TIFFOpenOptionsFree(options);
    if (image->tif == NULL) {
        tip_tiff_copy_message(message, message_size,
                              image->messages.text[0] ? image->messages.text : "not a readable TIFF");
        free(image);
        return NULL;
    }
    TIFF *tif = image->tif;
    uint32_t width = 0, height = 0;
    uint16_t orientation = ORIENTATION_TOPLEFT, samples = 1, bits = 1, photometric = 0, compression = 1;
    TIFFGetField(tif, TIFFTAG_IMAGEWIDTH, &width);
    TIFFGetField(tif, TIFFTAG_IMAGELENGTH, &height);
    TIFFGetFieldDefaulted(tif, TIFFTAG_ORIENTATION, &orientation);
    TIFFGetFieldDefaulted(tif, TIFFTAG_SAMPLESPERPIXEL, &samples);
    TIFFGetFieldDefaulted(tif, TIFFTAG_BITSPERSAMPLE, &bits);
    TIFFGetFieldDefaulted(tif, TIFFTAG_COMPRESSION, &compression);
    TIFFGetField(tif, TIFFTAG_PHOTOMETRIC, &photometric);
    info->width = width;
    info->height = height;
    info->orientation = orientation >= 1 && orientation <= 8 ? orientation : ORIENTATION_TOPLEFT;
    info->samples_per_pixel = samples;
    info->bits_per_sample = bits;
    info->photometric = photometric;
    info->compression = compression;
    info->is_tiled = TIFFIsTiled(tif) ? 1 : 0;
    uint32_t piece = 0;
    if (info->is_tiled) {
        TIFFGetField(tif, TIFFTAG_TILELENGTH, &piece);
    } else {
        TIFFGetFieldDefaulted(tif, TIFFTAG_ROWSPERSTRIP, &piece);
    }
    info->rows_per_piece = piece == 0 || piece > height ? height : piece;
    char reason[1024] = "";
    info->is_supported = TIFFRGBAImageOK(tif, reason) ? 1 : 0;
    if (info->is_supported) {
        TIFFRGBAImage rgba;
        if (TIFFRGBAImageBegin(&rgba, tif, 1, reason)) {
            info->alpha = rgba.alpha == EXTRASAMPLE_ASSOCALPHA ? 1 : (rgba.alpha == EXTRASAMPLE_UNASSALPHA ? 2 : 0);
            TIFFRGBAImageEnd(&rgba);
        } else {
            info->is_supported = 0;
        }
    }
    if (!info->is_supported) tip_tiff_copy_message(message, message_size, reason);
    return image;
}

// The decode's state: libtiff's RGBA image first, so put routines can find the rest from it.
typedef struct {
    TIFFRGBAImage rgba;
    union {
        tileContigRoutine contig;
        tileSeparateRoutine separate;
    } put;
    uint8_t *raster;
    size_t stride;
    uint32_t rows_complete;
} rgba_state;

// libtiff computes `cp` and `toskew` for a raster of `w` words per row; the caller's rows are
// `stride` bytes apart, so both are moved to the caller's row `y` and pitch. Rows are complete once
// the piece reaching the right edge was put (a strip, or a row of tiles).
static uint32_t *restride(rgba_state *state, uint32_t x, uint32_t y, uint32_t w, uint32_t h, int32_t *toskew) {
    uint32_t words = (uint32_t)(state->stride / 4);
    *toskew += (int32_t)(words - state->rgba.width);
    if (x + w >= state->rgba.width && y + h > state->rows_complete) state->rows_complete = y + h;
    return (uint32_t *)(state->raster + (size_t)y * state->stride) + x;
}

static void put_contig(TIFFRGBAImage *img, uint32_t *cp, uint32_t x, uint32_t y, uint32_t w, uint32_t h,
                       int32_t fromskew, int32_t toskew, unsigned char *pp) {
    (void)cp;
    rgba_state *state = (rgba_state *)img;
    uint32_t *target = restride(state, x, y, w, h, &toskew);
    state->put.contig(img, target, x, y, w, h, fromskew, toskew, pp);
}

static void put_separate(TIFFRGBAImage *img, uint32_t *cp, uint32_t x, uint32_t y, uint32_t w, uint32_t h,
                         int32_t fromskew, int32_t toskew, unsigned char *r, unsigned char *g,
                         unsigned char *b, unsigned char *a) {
    (void)cp;
    rgba_state *state = (rgba_state *)img;
    uint32_t *target = restride(state, x, y, w, h, &toskew);
    state->put.separate(img, target, x, y, w, h, fromskew, toskew, r, g, b, a);
}

int tip_tiff_read_rgba(tip_tiff_image *image, uint8_t *raster, size_t stride, uint32_t *rows_complete,
                       char *message, size_t message_size) {
    return tip_tiff_read_rgba_rows(image, raster, stride, 0, UINT32_MAX, rows_complete, message, message_size);
}

int tip_tiff_read_rgba_rows(tip_tiff_image *image, uint8_t *raster, size_t stride, uint32_t first_row, uint32_t row_count,
                            uint32_t *rows_complete, char *message, size_t message_size) {
    tip_tiff_copy_message(message, message_size, "");
    if (rows_complete) *rows_complete = 0;
    if (image == NULL || raster == NULL) return TIP_TIFF_FAILED;
    rgba_state state;
    memset(&state, 0, sizeof(state));
    char reason[1024] = "";
    image->messages.error_count = 0;
    image->messages.text[0] = '\0';
    if (!TIFFRGBAImageBegin(&state.rgba, image->tif, 1, reason)) {
        tip_tiff_copy_message(message, message_size, reason);
        return TIP_TIFF_FAILED;
    }
    uint32_t width = state.rgba.width, height = state.rgba.height;
    if (stride < (size_t)width * 4 || stride % 4 != 0 || stride / 4 - width > INT32_MAX / 2 || first_row >= height) {
        TIFFRGBAImageEnd(&state.rgba);
        tip_tiff_copy_message(message, message_size, "invalid raster or rows");
        return TIP_TIFF_FAILED;
    }
    uint32_t rows = row_count < height - first_row ? row_count : height - first_row;
    // Rows in stored order: no flips, the caller applies the orientation.
    state.rgba.req_orientation = state.rgba.orientation;
    state.rgba.row_offset = (int)first_row;
    state.raster = raster;
    state.stride = stride;
    if (state.rgba.isContig) {
        state.put.contig = state.rgba.put.contig;
        state.rgba.put.contig = put_contig;
    } else {
        state.put.separate = state.rgba.put.separate;
        state.rgba.put.separate = put_separate;
    }
    // The raster pointer libtiff gets is only used for arithmetic: every write goes through the
    // restriding put routines above.
    int ok = TIFFRGBAImageGet(&state.rgba, (uint32_t *)raster, width, rows);
    TIFFRGBAImageEnd(&state.rgba);
    uint32_t complete = state.rows_complete > rows ? rows : state.rows_complete;
    if (rows_complete) *rows_complete = complete;
    if (ok && complete == rows && image->messages.error_count == 0) return TIP_TIFF_OK;
    tip_tiff_copy_message(message, message_size,
                          image->messages.text[0] ? image->messages.text : (reason[0] ? reason : "incomplete image data"));
    return complete > 0 ? TIP_TIFF_PARTIAL : TIP_TIFF_FAILED;
}

void tip_tiff_close(tip_tiff_image *image) {
    if (image == NULL) return;
    if (image->tif) TIFFClose(image->tif);
    free(image);
}
