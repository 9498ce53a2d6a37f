#include <openjpeg.h>
