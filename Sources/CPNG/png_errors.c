#include "png_errors.h"
#include <string.h>

void tip_png_sink_store(tip_png_message_sink *sink, const char *text) {
    if (sink == NULL || sink->buffer == NULL || sink->capacity == 0) return;
    size_t length = text ? strlen(text) : 0;
    if (length >= sink->capacity) length = sink->capacity - 1;
    if (length > 0) memcpy(sink->buffer, text, length);
    sink->buffer[length] = '\0';
}

void tip_png_error_fn(png_structp png, png_const_charp message) {
    tip_png_message_sink *sink = (tip_png_message_sink *)png_get_error_ptr(png);
    tip_png_sink_store(sink, message ? message : "libpng error");
    png_longjmp(png, 1);
}

void tip_png_warning_fn(png_structp png, png_const_charp message) {
    (void)png;
    (void)message;
}
