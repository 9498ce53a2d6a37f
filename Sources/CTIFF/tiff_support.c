#include "tiff_support.h"
#include "CTIFF.h"
#include <stdio.h>
#include <string.h>

const char *tip_tiff_lib_version(void) { return TIFFGetVersion(); }

int tip_tiff_error_handler(TIFF *tif, void *user_data, const char *module, const char *format, va_list args) {
    (void)tif;
    tip_tiff_messages *messages = (tip_tiff_messages *)user_data;
    if (messages == NULL) return 1;
    if (messages->error_count++ == 0) {
        char detail[200];
        vsnprintf(detail, sizeof(detail), format, args);
        if (module != NULL && module[0] != '\0') {
            snprintf(messages->text, sizeof(messages->text), "%s: %s", module, detail);
        } else {
            snprintf(messages->text, sizeof(messages->text), "%s", detail);
        }
    }
    return 1;
}

int tip_tiff_warning_handler(TIFF *tif, void *user_data, const char *module, const char *format, va_list args) {
    (void)tif;
    (void)user_data;
    (void)module;
    (void)format;
    (void)args;
    return 1;
}

TIFFOpenOptions *tip_tiff_options(tip_tiff_messages *messages, tmsize_t max_single_allocation) {
    TIFFOpenOptions *options = TIFFOpenOptionsAlloc();
    if (options == NULL) return NULL;
    TIFFOpenOptionsSetErrorHandlerExtR(options, tip_tiff_error_handler, messages);
    TIFFOpenOptionsSetWarningHandlerExtR(options, tip_tiff_warning_handler, messages);
    if (max_single_allocation > 0) TIFFOpenOptionsSetMaxSingleMemAlloc(options, max_single_allocation);
    return options;
}

void tip_tiff_copy_message(char *buffer, size_t size, const char *text) {
    if (buffer == NULL || size == 0) return;
    size_t length = text ? strlen(text) : 0;
    if (length >= size) length = size - 1;
    if (length > 0) memcpy(buffer, text, length);
    buffer[length] = '\0';
}
