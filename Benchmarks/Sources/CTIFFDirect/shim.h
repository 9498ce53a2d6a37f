#include <tiffio.h>

// TIFFGetField is variadic, which Swift cannot call: the two fields the baseline needs.
static inline uint32_t tip_direct_tiff_width(TIFF *tif) {
    uint32_t value = 0;
    TIFFGetField(tif, TIFFTAG_IMAGEWIDTH, &value);
    return value;
}

static inline uint32_t tip_direct_tiff_height(TIFF *tif) {
    uint32_t value = 0;
    TIFFGetField(tif, TIFFTAG_IMAGELENGTH, &value);
    return value;
}
