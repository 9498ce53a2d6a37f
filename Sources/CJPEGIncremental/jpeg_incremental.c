#include <stdio.h>
#include <jpeglib.h>
#include "CJPEGIncremental.h"

int tip_jpeg_lib_version(void) { return JPEG_LIB_VERSION; }
