// One-shot decoding of complete progressive JPEGs over libjpeg, for two savings TurboJPEG's API cannot make:
// - the whole-image coefficient arrays come from the caller's allocator (reused, already-touched pages)
//   instead of libjpeg's malloc calls, which page-faulted on every decode and left tens of megabytes in
//   glibc's per-thread heaps;
// - at scales where a component's inverse DCT reads only the DC coefficient (1/8 for full-resolution luma),
//   that component's AC scans are left out before decoding: most of a progressive file's entropy-coded bytes.
// The output is byte-identical to TurboJPEG's decode of the whole file (the tests check it). Anything unusual
// (a warning, an error, a layout the filter does not expect) returns 1 so the caller decodes with TurboJPEG.
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <setjmp.h>
#include <jpeglib.h>
#include <jerror.h>
#include "CJPEGIncremental.h"

#if JPEG_LIB_VERSION >= 70
#define TIP_DCT_ONLY_DC(comp) ((comp)->DCT_h_scaled_size == 1 && (comp)->DCT_v_scaled_size == 1)
#else
#define TIP_DCT_ONLY_DC(comp) ((comp)->DCT_scaled_size == 1)
#endif

typedef struct tip_barray {
    JBLOCKARRAY rows;  // NULL until realized
    JDIMENSION row_count;
    JDIMENSION blocks_per_row;
    boolean pre_zero;
    struct tip_barray *next;
} tip_barray;

typedef struct {
    struct jpeg_error_mgr pub;
    jmp_buf jump;
    int warnings;
} tip_oneshot_error;

typedef struct {
    struct jpeg_decompress_struct cinfo;
    tip_oneshot_error err;
    const tip_jpeg_large_allocator *allocator;
    tip_barray *arrays;  // requested in the image pool, realized or not
    void *memory;        // one block from the allocator for all the realized arrays
    size_t length;
    // libjpeg's own methods, called for everything that is not a coefficient array of the image pool.
    jvirt_barray_ptr (*request_virt_barray)(j_common_ptr, int, boolean, JDIMENSION, JDIMENSION, JDIMENSION);
    void (*realize_virt_arrays)(j_common_ptr);
    JBLOCKARRAY (*access_virt_barray)(j_common_ptr, jvirt_barray_ptr, JDIMENSION, JDIMENSION, boolean);
    void (*free_pool)(j_common_ptr, int);
    void (*self_destruct)(j_common_ptr);
} tip_oneshot;

static void oneshot_error_exit(j_common_ptr cinfo) {
    longjmp(((tip_oneshot_error *)cinfo->err)->jump, 1);
}

static void oneshot_emit_message(j_common_ptr cinfo, int level) {
    if (level < 0) ((tip_oneshot_error *)cinfo->err)->warnings++;
}

static void oneshot_output_message(j_common_ptr cinfo) { (void)cinfo; }

// MARK: - Coefficient arrays from the caller's allocator

static tip_barray *find_array(tip_oneshot *dec, jvirt_barray_ptr pointer) {
    for (tip_barray *a = dec->arrays; a; a = a->next) {
        if ((jvirt_barray_ptr)a == pointer) return a;
    }
    return NULL;
}

static void release_arrays(tip_oneshot *dec) {
    if (dec->memory) dec->allocator->release(dec->memory, dec->length);
    dec->memory = NULL;
    dec->arrays = NULL;  // the structs themselves live in the image pool
}

static jvirt_barray_ptr hook_request_virt_barray(j_common_ptr cinfo, int pool_id, boolean pre_zero, JDIMENSION blocks_per_row,
                                                 JDIMENSION row_count, JDIMENSION max_access) {
    tip_oneshot *dec = (tip_oneshot *)cinfo->client_data;
    if (pool_id != JPOOL_IMAGE) return dec->request_virt_barray(cinfo, pool_id, pre_zero, blocks_per_row, row_count, max_access);
    tip_barray *a = (tip_barray *)(*cinfo->mem->alloc_small)(cinfo, JPOOL_IMAGE, sizeof(tip_barray));
    memset(a, 0, sizeof *a);
    a->row_count = row_count;
    a->blocks_per_row = blocks_per_row;
    a->pre_zero = pre_zero;
    a->next = dec->arrays;
    dec->arrays = a;
    return (jvirt_barray_ptr)a;
}

static void hook_realize_virt_arrays(j_common_ptr cinfo) {
    tip_oneshot *dec = (tip_oneshot *)cinfo->client_data;
    dec->realize_virt_arrays(cinfo);
    if (dec->memory || !dec->arrays) return;
    // One block for every array (one reusable mapping per decode rather than one per component).
    size_t total = 0;
    for (tip_barray *a = dec->arrays; a; a = a->next) total += (size_t)a->blocks_per_row * sizeof(JBLOCK) * a->row_count;
    size_t length = 0;
    int zeroed = 0;
    dec->memory = dec->allocator->allocate(total ? total : sizeof(JBLOCK), &length, 1, &zeroed);
    if (!dec->memory) ERREXIT1(cinfo, JERR_OUT_OF_MEMORY, 11);
    dec->length = length;
    char *next = (char *)dec->memory;
    for (tip_barray *a = dec->arrays; a; a = a->next) {
        size_t row_bytes = (size_t)a->blocks_per_row * sizeof(JBLOCK);
        // Kept mappings hold the last image's coefficients: progressive decoding needs zeros (a new mapping
        // has them already).
        if (a->pre_zero && !zeroed) memset(next, 0, row_bytes * a->row_count);
        a->rows = (JBLOCKARRAY)(*cinfo->mem->alloc_small)(cinfo, JPOOL_IMAGE, sizeof(JBLOCKROW) * (a->row_count ? a->row_count : 1));
        for (JDIMENSION r = 0; r < a->row_count; r++) a->rows[r] = (JBLOCKROW)(next + r * row_bytes);
        next += row_bytes * a->row_count;
    }
}

static JBLOCKARRAY hook_access_virt_barray(j_common_ptr cinfo, jvirt_barray_ptr pointer, JDIMENSION start_row, JDIMENSION row_count,
                                           boolean writable) {
    tip_oneshot *dec = (tip_oneshot *)cinfo->client_data;
    tip_barray *a = find_array(dec, pointer);
    if (!a) return dec->access_virt_barray(cinfo, pointer, start_row, row_count, writable);
    if (!a->rows || start_row + row_count > a->row_count) ERREXIT(cinfo, JERR_BAD_VIRTUAL_ACCESS);
    return a->rows + start_row;
}

static void hook_free_pool(j_common_ptr cinfo, int pool_id) {
    tip_oneshot *dec = (tip_oneshot *)cinfo->client_data;
    if (pool_id == JPOOL_IMAGE) release_arrays(dec);
    dec->free_pool(cinfo, pool_id);
}

static void hook_self_destruct(j_common_ptr cinfo) {
    tip_oneshot *dec = (tip_oneshot *)cinfo->client_data;
    release_arrays(dec);
    dec->self_destruct(cinfo);
}

// MARK: - Leaving out AC scans

// The bytes of `data` without the AC scans (Ss > 0) whose single component is in `skip` (component ids), or
// 0 when the layout is not the expected marker / scan sequence. `out` has room for `size` bytes.
static size_t without_ac_scans(const uint8_t *data, size_t size, const int *skip, int skip_count, uint8_t *out) {
    if (size < 4 || data[0] != 0xFF || data[1] != 0xD8) return 0;
    memcpy(out, data, 2);
    size_t i = 2, o = 2;
    int skipped = 0;
    while (i + 1 < size) {
        if (data[i] != 0xFF) return 0;
        uint8_t marker = data[i + 1];
        if (marker == 0xFF) { i++; continue; }  // fill byte
        if (marker == 0xD9) {
            out[o++] = 0xFF;
            out[o++] = 0xD9;
            return skipped ? o : 0;
        }
        if (marker == 0x01 || (marker >= 0xD0 && marker <= 0xD7)) return 0;  // no length field expected here
        if (i + 4 > size) return 0;
        size_t end = i + 2 + ((size_t)data[i + 2] << 8 | data[i + 3]);
        if (end > size) return 0;
        if (marker != 0xDA) {
            memcpy(out + o, data + i, end - i);
            o += end - i;
            i = end;
            continue;
        }
        // SOS: Ns, then Ns (id, tables) pairs, then Ss; the entropy-coded data runs to the next marker
        // that is neither a stuffed 0xFF00 nor a restart marker.
        int count = data[i + 4];
        if (i + 5 + 2 * (size_t)count + 1 > end) return 0;
        int spectral_start = data[i + 5 + 2 * count];
        int drop = 0;
        if (spectral_start > 0 && count == 1) {
            for (int k = 0; k < skip_count; k++) drop |= skip[k] == data[i + 5];
        }
        size_t j = end;
        while (j + 1 < size && !(data[j] == 0xFF && data[j + 1] != 0 && !(data[j + 1] >= 0xD0 && data[j + 1] <= 0xD7))) j++;
        if (j + 1 >= size) return 0;
        if (drop) {
            skipped = 1;
        } else {
            memcpy(out + o, data + i, j - i);
            o += j - i;
        }
        i = j;
    }
    return 0;
}

// MARK: - Decoding

static J_COLOR_SPACE color_space(int out_space) {
    switch (out_space) {
    case TIP_JPEG_OUT_GRAY: return JCS_GRAYSCALE;
    case TIP_JPEG_OUT_CMYK: return JCS_CMYK;
    default: return JCS_EXT_RGBX;
    }
}

// Reads the header of `data` and sets the scale and output colour space (TurboJPEG's settings otherwise).
static void begin(tip_oneshot *dec, const uint8_t *data, size_t size, int scale_num, int scale_denom, int out_space) {
    jpeg_mem_src(&dec->cinfo, data, (unsigned long)size);
    jpeg_read_header(&dec->cinfo, TRUE);
    dec->cinfo.scale_num = (unsigned int)scale_num;
    dec->cinfo.scale_denom = (unsigned int)scale_denom;
    dec->cinfo.out_color_space = color_space(out_space);
}

int tip_jpeg_decode_progressive(const uint8_t *data, size_t size, int scale_num, int scale_denom, int out_space,
                                uint8_t *destination, size_t pitch, int width, int height,
                                const tip_jpeg_large_allocator *allocator, int *dc_only) {
    // Read again after a longjmp from libjpeg: volatile, so they are not cached in registers.
    tip_oneshot *volatile dec = (tip_oneshot *)calloc(1, sizeof(tip_oneshot));
    uint8_t *volatile filtered = NULL;  // from the allocator too: a copy of the file as large as the file
    volatile size_t filtered_length = 0;
    volatile int created = 0, result = 1;
    if (!dec) return 1;
    if (dc_only) *dc_only = 0;
    dec->allocator = allocator;
    dec->cinfo.err = jpeg_std_error(&dec->err.pub);
    dec->err.pub.error_exit = oneshot_error_exit;
    dec->err.pub.emit_message = oneshot_emit_message;
    dec->err.pub.output_message = oneshot_output_message;
    if (setjmp(dec->err.jump)) goto done;
    jpeg_create_decompress(&dec->cinfo);
    created = 1;
    dec->cinfo.client_data = dec;
    struct jpeg_memory_mgr *mem = dec->cinfo.mem;
    dec->request_virt_barray = mem->request_virt_barray;
    dec->realize_virt_arrays = mem->realize_virt_arrays;
    dec->access_virt_barray = mem->access_virt_barray;
    dec->free_pool = mem->free_pool;
    dec->self_destruct = mem->self_destruct;
    mem->request_virt_barray = hook_request_virt_barray;
    mem->realize_virt_arrays = hook_realize_virt_arrays;
    mem->access_virt_barray = hook_access_virt_barray;
    mem->free_pool = hook_free_pool;
    mem->self_destruct = hook_self_destruct;

    begin(dec, data, size, scale_num, scale_denom, out_space);
    if (!dec->cinfo.progressive_mode) goto done;
    jpeg_calc_output_dimensions(&dec->cinfo);
    // Components whose inverse DCT at this scale reads only DC: their AC scans change nothing in the output.
    int skip[MAX_COMPONENTS], skip_count = 0;
    for (int c = 0; c < dec->cinfo.num_components && c < MAX_COMPONENTS; c++) {
        jpeg_component_info *comp = &dec->cinfo.comp_info[c];
        if (TIP_DCT_ONLY_DC(comp)) skip[skip_count++] = comp->component_id;
    }
    size_t length = 0;
    int zeroed = 0;  // unused: the copy is written before it is read
    if (skip_count > 0 && (filtered = (uint8_t *)allocator->allocate(size, &length, 0, &zeroed)) != NULL) {
        filtered_length = length;
        size_t filtered_size = without_ac_scans(data, size, skip, skip_count, (uint8_t *)filtered);
        if (filtered_size > 0) {
            jpeg_abort_decompress(&dec->cinfo);
            begin(dec, (const uint8_t *)filtered, filtered_size, scale_num, scale_denom, out_space);
            jpeg_calc_output_dimensions(&dec->cinfo);
            // The same components must still be DC-only (they are, unless this libjpeg scales otherwise).
            int same = 1;
            for (int c = 0; c < dec->cinfo.num_components && c < MAX_COMPONENTS; c++) {
                jpeg_component_info *comp = &dec->cinfo.comp_info[c];
                for (int k = 0; k < skip_count; k++) {
                    if (skip[k] == comp->component_id && !TIP_DCT_ONLY_DC(comp)) same = 0;
                }
            }
            if (!same) goto done;
            // Smoothing would estimate the missing AC coefficients and, with none at all, adjust DC as well.
            dec->cinfo.do_block_smoothing = FALSE;
            if (dc_only) *dc_only = 1;
        }
    }
    jpeg_start_decompress(&dec->cinfo);
    if ((int)dec->cinfo.output_width != width || (int)dec->cinfo.output_height != height) goto done;
    while (dec->cinfo.output_scanline < dec->cinfo.output_height) {
        JSAMPROW row = destination + (size_t)dec->cinfo.output_scanline * pitch;
        if (jpeg_read_scanlines(&dec->cinfo, &row, 1) != 1) goto done;
    }
    jpeg_finish_decompress(&dec->cinfo);
    result = dec->err.warnings == 0 ? 0 : 1;
done:
    if (created) jpeg_destroy_decompress(&dec->cinfo);
    if (filtered) allocator->release((void *)filtered, filtered_length);
    free((void *)dec);
    return result;
}
