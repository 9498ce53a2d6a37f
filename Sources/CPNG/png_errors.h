#ifndef TIP_PNG_ERRORS_H
#define TIP_PNG_ERRORS_H

#include <png.h>
#include <stddef.h>

/// Where libpng's error callback leaves its message: `png_get_error_ptr` points at one of these.
typedef struct {
    char *buffer;
    size_t capacity;
} tip_png_message_sink;

/// libpng error callback: records the message and longjmps to the active setjmp (never returns,
/// so libpng never falls back to abort()).
void tip_png_error_fn(png_structp png, png_const_charp message);

/// libpng warning callback: warnings are dropped (the library must not print).
void tip_png_warning_fn(png_structp png, png_const_charp message);

/// Copies `text` into the sink, truncated and NUL-terminated.
void tip_png_sink_store(tip_png_message_sink *sink, const char *text);

#endif
