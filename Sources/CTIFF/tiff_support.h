#ifndef TIP_TIFF_SUPPORT_H
#define TIP_TIFF_SUPPORT_H

#include <stdarg.h>
#include <stddef.h>
#include <tiffio.h>

/// Where one handle's libtiff messages go: the first error is kept, warnings are dropped.
typedef struct {
    char text[256];
    int error_count;
} tip_tiff_messages;

/// libtiff error handler for one handle (`user_data` is its tip_tiff_messages). Returns 1, so libtiff's
/// global handler never runs.
int tip_tiff_error_handler(TIFF *tif, void *user_data, const char *module, const char *format, va_list args);

/// libtiff warning handler for one handle: dropped (the library must not print). Returns 1.
int tip_tiff_warning_handler(TIFF *tif, void *user_data, const char *module, const char *format, va_list args);

/// Open options with this handle's handlers and an allocation limit (0: libtiff's default).
TIFFOpenOptions *tip_tiff_options(tip_tiff_messages *messages, tmsize_t max_single_allocation);

/// Copies `text` into `buffer` (truncated, NUL-terminated).
void tip_tiff_copy_message(char *buffer, size_t size, const char *text);

#endif
