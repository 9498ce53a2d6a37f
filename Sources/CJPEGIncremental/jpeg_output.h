// libjpeg's output colour space for a TIP_JPEG_OUT_* value, shared by the one-shot, sequential and incremental
// decoders (TurboJPEG's for the same pixel format). Private to CJPEGIncremental.
#ifndef TIP_JPEG_OUTPUT_H
#define TIP_JPEG_OUTPUT_H

#include <stdio.h>
#include <jpeglib.h>
#include "CJPEGIncremental.h"

static inline J_COLOR_SPACE tip_jpeg_out_color_space(int out_space) {
    switch (out_space) {
    case TIP_JPEG_OUT_GRAY: return JCS_GRAYSCALE;
    case TIP_JPEG_OUT_CMYK: return JCS_CMYK;
    default: return JCS_EXT_RGBX;
    }
}

#endif
