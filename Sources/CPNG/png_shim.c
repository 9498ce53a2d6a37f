#include "CPNG.h"

int tip_png_lib_version(void) { return PNG_LIBPNG_VER; }
