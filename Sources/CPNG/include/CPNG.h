#ifndef CPNG_H
#define CPNG_H

#include <png.h>

/// Version of libpng this shim was compiled against (PNG_LIBPNG_VER).
int tip_png_lib_version(void);

#endif
