#include "tiff_support.h"
#include "CTIFF.h"
#include <stdio.h>
#include <stdlib.h>
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

tmsize_t tip_tiff_memory_read(thandle_t handle, void *buffer, tmsize_t count) {
    tip_tiff_memory *memory = (tip_tiff_memory *)handle;
    if (count <= 0 || memory->position >= memory->size) return 0;
    toff_t available = memory->size - memory->position;
    toff_t length = (toff_t)count < available ? (toff_t)count : available;
    memcpy(buffer, memory->data + memory->position, (size_t)length);
    memory->position += length;
    return (tmsize_t)length;
}

tmsize_t tip_tiff_memory_write(thandle_t handle, void *buffer, tmsize_t count) {
    tip_tiff_memory *memory = (tip_tiff_memory *)handle;
    if (count <= 0) return 0;
    toff_t end = memory->position + (toff_t)count;
    if (end < memory->position || end > (toff_t)INT64_MAX) {
        memory->failed = 1;
        return 0;
    }
    if (end > memory->capacity) {
        toff_t capacity = memory->capacity ? memory->capacity : 65536;
        while (capacity < end) capacity *= 2;
        uint8_t *grown = (uint8_t *)realloc(memory->data, (size_t)capacity);
        if (grown == NULL) {
            memory->failed = 1;
            return 0;
        }
        memory->data = grown;
        memory->capacity = capacity;
    }
    if (memory->position > memory->size) memset(memory->data + memory->size, 0, (size_t)(memory->position - memory->size));
    memcpy(memory->data + memory->position, buffer, (size_t)count);
    memory->position = end;
    if (end > memory->size) memory->size = end;
    return count;
}

toff_t tip_tiff_memory_seek(thandle_t handle, toff_t offset, int whence) {
    tip_tiff_memory *memory = (tip_tiff_memory *)handle;
    toff_t base = whence == SEEK_CUR ? memory->position : (whence == SEEK_END ? memory->size : 0);
    if (offset > UINT64_MAX - base) return (toff_t)-1;
    memory->position = base + offset;
    return memory->position;
}

int tip_tiff_memory_close(thandle_t handle) {
    (void)handle;
    return 0;
}

toff_t tip_tiff_memory_size(thandle_t handle) { return ((tip_tiff_memory *)handle)->size; }

void tip_tiff_memory_unmap(thandle_t handle, void *base, toff_t size) {
    (void)handle;
    (void)base;
    (void)size;
}
