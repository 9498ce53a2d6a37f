#include "CPNG.h"
#include <stdlib.h>

int tip_png_lib_version(void) { return PNG_LIBPNG_VER; }

void tip_png_free(void *pointer) { free(pointer); }
