#ifndef CJPEGINCREMENTAL_H
#define CJPEGINCREMENTAL_H

#include <stddef.h>

/// Version of the libjpeg API this shim was compiled against (JPEG_LIB_VERSION).
int tip_jpeg_lib_version(void);

#endif
