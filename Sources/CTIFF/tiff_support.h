#ifndef TIP_TIFF_SUPPORT_H
#define TIP_TIFF_SUPPORT_H

#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
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

/// A file in memory for libtiff's client procs: the caller's bytes when reading (never written), a
/// buffer that grows when writing.
typedef struct {
    uint8_t *data;
    toff_t size;
    /// Bytes allocated at `data` (writing only).
    toff_t capacity;
    toff_t position;
    /// 1 once a write could not grow the buffer.
    int failed;
} tip_tiff_memory;

/// Client procs over a tip_tiff_memory (the handle). Seeking past the end is allowed; reads there
/// return no bytes, and a write there fills the gap with zeros.
tmsize_t tip_tiff_memory_read(thandle_t handle, void *buffer, tmsize_t count);
tmsize_t tip_tiff_memory_write(thandle_t handle, void *buffer, tmsize_t count);
toff_t tip_tiff_memory_seek(thandle_t handle, toff_t offset, int whence);
int tip_tiff_memory_close(thandle_t handle);
toff_t tip_tiff_memory_size(thandle_t handle);
/// Unmapping: nothing to do (a mapping is the bytes themselves).
void tip_tiff_memory_unmap(thandle_t handle, void *base, toff_t size);

/// Copies `text` into `buffer` (truncated, NUL-terminated).
void tip_tiff_copy_message(char *buffer, size_t size, const char *text);

#endif
