#include "CPNG.h"
#include <libdeflate.h>
#include <stdlib.h>

int tip_png_lib_version(void) { return PNG_LIBPNG_VER; }

void tip_png_free(void *pointer) { free(pointer); }

uint32_t tip_png_crc32(uint32_t crc, const uint8_t *bytes, size_t count) { return libdeflate_crc32(crc, bytes, count); }
