// One-shot decoding of complete progressive JPEGs over libjpeg, for savings TurboJPEG's API cannot make:
// - the whole-image coefficient arrays come from the caller's allocator (reused, already-touched pages)
//   instead of libjpeg's malloc calls, which page-faulted on every decode and left tens of megabytes in
//   glibc's per-thread heaps;
// - the scans are decoded by our own decoder (jpeg_progressive_ac.c): libjpeg reads the file's header and a
//   stand-in scan without data (so that it sets up its arrays and output as for the file), then produces the
//   pixels from the coefficients ours put in its arrays;
// - at scales where a component's inverse DCT reads only the DC coefficient (1/8 for full-resolution luma),
//   that component's AC scans are not decoded at all, and its array keeps only the DC coefficients.
// The output is byte-identical to TurboJPEG's decode of the whole file (the tests and a differential fuzzer
// check it). A file our decoder does not take (an incomplete progression, which libjpeg smooths; arithmetic
// coding; a quantization table defined after the first scan; anything libjpeg would warn about) is decoded by
// libjpeg whole, as TurboJPEG would; a warning or an error returns 1 so the caller decodes with TurboJPEG.
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <setjmp.h>
#include <jpeglib.h>
#include <jerror.h>
#include "CJPEGIncremental.h"
#include "jpeg_output.h"
#include "jpeg_progressive_ac.h"

// A component's inverse DCT size at the output scale (0 when it differs across and down).
#if JPEG_LIB_VERSION >= 70
#define TIP_DCT_SIZE(comp) \
    ((comp)->DCT_h_scaled_size == (comp)->DCT_v_scaled_size ? (comp)->DCT_h_scaled_size : 0)
#else
#define TIP_DCT_SIZE(comp) ((comp)->DCT_scaled_size)
#endif

typedef struct tip_barray {
    JBLOCKARRAY rows;  // NULL until realized
    JDIMENSION row_count;
    JDIMENSION blocks_per_row;
    boolean pre_zero;
    int index;  // in the order requested (libjpeg requests one per component, in frame order)
    struct tip_barray *next;
} tip_barray;

typedef struct {
    struct jpeg_error_mgr pub;
    jmp_buf jump;
    int warnings;
    // Reading the stand-in stream: its scan has no data, so its "hit marker" warning is expected, and the arrays
    // realized now are filled by our decoder, which clears their blocks itself.
    int stand_in;
} tip_oneshot_error;

typedef struct {
    struct jpeg_decompress_struct cinfo;
    tip_oneshot_error err;
    const tip_jpeg_large_allocator *allocator;
    tip_barray *arrays;  // requested in the image pool, realized or not (newest first)
    tip_barray *by_request[MAX_COMPONENTS];  // the first MAX_COMPONENTS of them, in the order requested
    int requested;
    unsigned dc_only;    // arrays (bit per request index) of components whose output reads DC alone: striped
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
    tip_oneshot_error *err = (tip_oneshot_error *)cinfo->err;
    if (level < 0 && !(err->stand_in && err->pub.msg_code == JWRN_HIT_MARKER)) err->warnings++;
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
    dec->requested = 0;
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
    a->index = dec->requested;
    dec->arrays = a;
    if (dec->requested < MAX_COMPONENTS) dec->by_request[dec->requested] = a;
    dec->requested++;
    return (jvirt_barray_ptr)a;
}

// A component whose inverse DCT reads only DC (1x1, at 1/8) uses one coefficient of each block, and only
// coefficient 0 of its blocks is ever written (by the DC scans) or read (by jpeg_idct_1x1). Its array is
// striped: the blocks of up to 64 block rows overlap, row r starting 2 bytes after row r - 1, so each block's
// coefficient 0 has its own two bytes and the array costs 2 bytes a block instead of 128 (a 2048x1536 luma:
// 98 KB instead of 6.3 MB, which stays in the cache while the DC scans go over it again and again).
#define DC_STRIPE_ROWS DCTSIZE2

static int is_dc_only(const tip_oneshot *dec, const tip_barray *a) {
    return a->index < MAX_COMPONENTS && (dec->dc_only >> a->index & 1);
}

// The bytes of one stripe of a striped array: its rows' blocks, plus one block so that the last row's last
// block lies whole inside it.
static size_t dc_stripe_bytes(const tip_barray *a) {
    return ((size_t)a->blocks_per_row + 1) * sizeof(JBLOCK);
}

static size_t array_bytes(const tip_oneshot *dec, const tip_barray *a) {
    if (is_dc_only(dec, a)) return ((size_t)a->row_count + DC_STRIPE_ROWS - 1) / DC_STRIPE_ROWS * dc_stripe_bytes(a);
    return (size_t)a->blocks_per_row * sizeof(JBLOCK) * a->row_count;
}

static void hook_realize_virt_arrays(j_common_ptr cinfo) {
    tip_oneshot *dec = (tip_oneshot *)cinfo->client_data;
    dec->realize_virt_arrays(cinfo);
    if (dec->memory || !dec->arrays) return;
    // One block for every array (one reusable mapping per decode rather than one per component).
    size_t total = 0;
    for (tip_barray *a = dec->arrays; a; a = a->next) total += array_bytes(dec, a);
    size_t length = 0;
    int zeroed = 0;
    dec->memory = dec->allocator->allocate(total ? total : sizeof(JBLOCK), &length, 1, &zeroed);
    if (!dec->memory) ERREXIT1(cinfo, JERR_OUT_OF_MEMORY, 11);
    dec->length = length;
    char *next = (char *)dec->memory;
    for (tip_barray *a = dec->arrays; a; a = a->next) {
        size_t row_bytes = (size_t)a->blocks_per_row * sizeof(JBLOCK), bytes = array_bytes(dec, a);
        int striped = is_dc_only(dec, a);
        // Kept mappings hold the last image's coefficients: libjpeg's progressive decoding needs zeros (a new
        // mapping has them already). Our decoder does not: it clears each block as it first writes it and the
        // blocks it never wrote at the end, and sets coefficient 0 of every block of a striped array.
        if (a->pre_zero && !zeroed && !striped && !dec->err.stand_in) memset(next, 0, bytes);
        a->rows = (JBLOCKARRAY)(*cinfo->mem->alloc_small)(cinfo, JPOOL_IMAGE, sizeof(JBLOCKROW) * (a->row_count ? a->row_count : 1));
        for (JDIMENSION r = 0; r < a->row_count; r++) {
            size_t offset = striped ? r / DC_STRIPE_ROWS * dc_stripe_bytes(a) + r % DC_STRIPE_ROWS * sizeof(JCOEF)
                                    : r * row_bytes;
            a->rows[r] = (JBLOCKROW)(next + offset);
        }
        next += bytes;
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

// MARK: - The stream libjpeg reads

// The bytes of a DHT segment defining DC table 0 with one code, "0" for a difference of 0 (the stand-in scan
// needs a table libjpeg accepts, whatever the file's are).
static const uint8_t stand_in_table[] = {0xFF, 0xC4, 0x00, 0x14, 0x00, 1, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0};

// What libjpeg reads in place of `data`: its segments up to the first scan (restart intervals left out), then
// a first DC scan of its component with the fewest blocks, with no data at all, then EOI. libjpeg sets up its
// arrays and output for the frame as for the whole file; in the scan its entropy decoder meets EOI at once,
// warns once that it hit a marker (expected: see `stand_in`) and leaves every block as it is, at a call per
// block of that component. Returns the stream from malloc (the caller frees it) and its size in `*length`, or
// NULL when the layout is not the expected marker sequence or memory runs out.
static uint8_t *stand_in_stream(const struct jpeg_decompress_struct *cinfo, const uint8_t *data, size_t size,
                                size_t *length) {
    if (size < 4 || data[0] != 0xFF || data[1] != 0xD8) return NULL;
    // The header: the segments before the first scan.
    size_t header = 2;
    for (;;) {
        if (header + 1 >= size || data[header] != 0xFF) return NULL;
        uint8_t marker = data[header + 1];
        if (marker == 0xFF) { header++; continue; }  // fill byte
        if (marker == 0xDA) break;
        if (marker == 0x01 || (marker >= 0xD0 && marker <= 0xD9)) return NULL;  // no length field expected here
        if (header + 4 > size) return NULL;
        size_t end = header + 2 + ((size_t)data[header + 2] << 8 | data[header + 3]);
        if (end > size || end - header < 4) return NULL;
        header = end;
    }
    int best = 0;
    for (int c = 1; c < cinfo->num_components; c++) {
        const jpeg_component_info *x = &cinfo->comp_info[c], *y = &cinfo->comp_info[best];
        if ((size_t)x->width_in_blocks * x->height_in_blocks < (size_t)y->width_in_blocks * y->height_in_blocks) {
            best = c;
        }
    }
    const uint8_t scan[10] = {0xFF, 0xDA, 0x00, 0x08, 1, (uint8_t)cinfo->comp_info[best].component_id, 0x00, 0, 0, 0};
    const uint8_t eoi[2] = {0xFF, 0xD9};
    uint8_t *out = (uint8_t *)malloc(header + sizeof stand_in_table + sizeof scan + sizeof eoi);
    if (!out) return NULL;
    // The header again, its segments checked above, without fill bytes and restart intervals.
    memcpy(out, data, 2);
    size_t o = 2;
    for (size_t i = 2; i < header;) {
        if (data[i + 1] == 0xFF) { i++; continue; }
        size_t end = i + 2 + ((size_t)data[i + 2] << 8 | data[i + 3]);
        if (data[i + 1] != 0xDD) {
            memcpy(out + o, data + i, end - i);
            o += end - i;
        }
        i = end;
    }
    memcpy(out + o, stand_in_table, sizeof stand_in_table);
    o += sizeof stand_in_table;
    memcpy(out + o, scan, sizeof scan);
    o += sizeof scan;
    memcpy(out + o, eoi, sizeof eoi);
    *length = o + sizeof eoi;
    return out;
}

// Each component's quantization table, latched now as libjpeg latches it at the component's first scan:
// libjpeg latches only the components of the scans it reads, and keeps a table already latched. Our decoder
// declines a file that defines a table after its first scan, so the tables are the header's. 0 when a
// component's table is missing (libjpeg's JERR_NO_QUANT_TABLE).
static int latch_quant_tables(j_decompress_ptr cinfo) {
    for (int c = 0; c < cinfo->num_components; c++) {
        jpeg_component_info *comp = &cinfo->comp_info[c];
        int q = comp->quant_tbl_no;
        if (q < 0 || q >= NUM_QUANT_TBLS || !cinfo->quant_tbl_ptrs[q]) return 0;
        JQUANT_TBL *table = (JQUANT_TBL *)(*cinfo->mem->alloc_small)((j_common_ptr)cinfo, JPOOL_IMAGE, sizeof(JQUANT_TBL));
        memcpy(table, cinfo->quant_tbl_ptrs[q], sizeof(JQUANT_TBL));
        comp->quant_table = table;
    }
    return 1;
}

// MARK: - Our decoder

// Decodes the scans of `data` into the arrays libjpeg realized for `dec` (one per component, in frame order),
// the coefficients of each component that its `used` leaves out not kept (the AC scans of a component that
// reads DC alone not decoded at all). 0 when done; 1 when the arrays are not the ones expected or our decoder
// declines (nothing it wrote is then used).
static int decode_scans(tip_oneshot *dec, const uint8_t *data, size_t size, const uint64_t *used) {
    struct jpeg_decompress_struct *cinfo = &dec->cinfo;
    int count = cinfo->num_components;
    if (count > MAX_COMPONENTS || dec->requested != count) return 1;
    tip_ac_plane planes[MAX_COMPONENTS];
    size_t blocks = 0, dc_count = 0;
    for (int c = 0; c < count; c++) {
        jpeg_component_info *comp = &cinfo->comp_info[c];
        tip_barray *a = dec->by_request[c];
        if (!a->rows || a->blocks_per_row < comp->width_in_blocks || a->row_count < comp->height_in_blocks) return 1;
        planes[c] = (tip_ac_plane){a->rows,
                                   comp->component_id,
                                   (int)comp->width_in_blocks,
                                   (int)comp->height_in_blocks,
                                   comp->h_samp_factor,
                                   comp->v_samp_factor,
                                   (int)a->blocks_per_row,
                                   (int)a->row_count,
                                   used[c] != 1,
                                   NULL,
                                   NULL,
                                   used[c],
                                   0};
        if (planes[c].decode) blocks += (size_t)comp->width_in_blocks * comp->height_in_blocks;
        dc_count += (size_t)a->blocks_per_row * a->row_count;
    }
    // One zeroed block: the masks of the planes whose AC scans are decoded, then every plane's DC coefficients.
    size_t length = 0;
    int zeroed = 0;
    size_t bytes = blocks * sizeof(uint64_t) + dc_count * sizeof(JCOEF);
    uint64_t *masks = (uint64_t *)dec->allocator->allocate(bytes ? bytes : 1, &length, 1, &zeroed);
    if (!masks) return 1;
    if (!zeroed) memset(masks, 0, bytes);
    uint64_t *next = masks;
    for (int c = 0; c < count; c++) {
        if (!planes[c].decode) continue;  // its masks are never read
        planes[c].nonzero = next;
        next += (size_t)planes[c].width_in_blocks * planes[c].height_in_blocks;
    }
    JCOEF *dc = (JCOEF *)next;
    for (int c = 0; c < count; c++) {
        planes[c].dc = dc;
        dc += (size_t)planes[c].array_width * planes[c].array_height;
    }
    int unit_width = cinfo->max_h_samp_factor * DCTSIZE, unit_height = cinfo->max_v_samp_factor * DCTSIZE;
    int mcus_per_row = (int)((cinfo->image_width + (JDIMENSION)unit_width - 1) / (JDIMENSION)unit_width);
    int mcu_rows = (int)((cinfo->image_height + (JDIMENSION)unit_height - 1) / (JDIMENSION)unit_height);
    int status = tip_jpeg_decode_scans(data, size, planes, count, mcus_per_row, mcu_rows);
    dec->allocator->release(masks, length);
    return status;
}

// MARK: - Decoding

// Reads the header of `data` and sets the scale and output colour space (TurboJPEG's settings otherwise).
static void begin(tip_oneshot *dec, const uint8_t *data, size_t size, int scale_num, int scale_denom, int out_space) {
    jpeg_mem_src(&dec->cinfo, data, (unsigned long)size);
    jpeg_read_header(&dec->cinfo, TRUE);
    dec->cinfo.scale_num = (unsigned int)scale_num;
    dec->cinfo.scale_denom = (unsigned int)scale_denom;
    dec->cinfo.out_color_space = tip_jpeg_out_color_space(out_space);
}

// A decoder whose image-pool coefficient arrays come from `allocator`, or NULL. libjpeg's errors jump to
// `dec->err.jump`, which the caller sets before calling jpeg_create_decompress (see create below).
static tip_oneshot *new_decoder(const tip_jpeg_large_allocator *allocator) {
    tip_oneshot *dec = (tip_oneshot *)calloc(1, sizeof(tip_oneshot));
    if (!dec) return NULL;
    dec->allocator = allocator;
    dec->cinfo.err = jpeg_std_error(&dec->err.pub);
    dec->err.pub.error_exit = oneshot_error_exit;
    dec->err.pub.emit_message = oneshot_emit_message;
    dec->err.pub.output_message = oneshot_output_message;
    return dec;
}

// jpeg_create_decompress, then our memory hooks (call under setjmp).
static void create(tip_oneshot *dec) {
    jpeg_create_decompress(&dec->cinfo);
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
}

// The coefficients (bits at zig-zag positions) that the inverse DCT of `comp` at the output scale reads: DC
// alone at 1x1; libjpeg-turbo's reduced transforms (jidctred.c, and its SIMD versions of them) leave out rows
// and columns 2, 4 and 6 at 2x2 and row and column 4 at 4x4; the others read every coefficient.
static uint64_t coefficients_read(const jpeg_component_info *comp) {
    switch (TIP_DCT_SIZE(comp)) {
    case 1: return 1;
    case 2: return tip_jpeg_zigzag_positions(0xAB, 0xAB);
    case 4: return tip_jpeg_zigzag_positions(0xEF, 0xEF);
    default: return ~0ULL;
    }
}

// Which coefficients the inverse DCT of each component of the frame just read reads at the output scale (after
// jpeg_calc_output_dimensions). Returns the components that read DC alone, and so need no AC scan (bit c:
// component c).
static unsigned components(tip_oneshot *dec, uint64_t *used) {
    unsigned dc_only = 0;
    for (int c = 0; c < dec->cinfo.num_components && c < MAX_COMPONENTS; c++) {
        used[c] = coefficients_read(&dec->cinfo.comp_info[c]);
        dc_only |= (unsigned)(used[c] == 1) << c;
    }
    return dc_only;
}

int tip_jpeg_decode_progressive(const uint8_t *data, size_t size, int scale_num, int scale_denom, int out_space,
                                uint8_t *destination, size_t pitch, int width, int height,
                                const tip_jpeg_large_allocator *allocator, int *path) {
    // Read again after a longjmp from libjpeg: volatile, so they are not cached in registers.
    tip_oneshot *volatile dec = new_decoder(allocator);
    uint8_t *volatile stand_in = NULL;  // the stream libjpeg reads, from malloc
    volatile int created = 0, result = 1, how = 0;
    if (path) *path = 0;
    if (!dec) return 1;
    if (setjmp(dec->err.jump)) goto done;
    create(dec);
    created = 1;

    begin(dec, data, size, scale_num, scale_denom, out_space);
    if (!dec->cinfo.progressive_mode) goto done;
    jpeg_calc_output_dimensions(&dec->cinfo);
    uint64_t used[MAX_COMPONENTS];
    unsigned dc_only = components(dec, used);
    int count = dec->cinfo.num_components < MAX_COMPONENTS ? dec->cinfo.num_components : MAX_COMPONENTS;

    // libjpeg reads the header and a stand-in scan, ours every scan; smoothing stays off (libjpeg never sees
    // the coefficients arrive, and in a complete file there is nothing to smooth: our decoder declines the
    // others).
    size_t stand_in_size = 0;
    if (!dec->cinfo.arith_code && dec->cinfo.num_components <= MAX_COMPONENTS) {
        stand_in = stand_in_stream(&dec->cinfo, data, size, &stand_in_size);
    }
    if (stand_in) {
        jpeg_abort_decompress(&dec->cinfo);
        begin(dec, (const uint8_t *)stand_in, stand_in_size, scale_num, scale_denom, out_space);
        if (latch_quant_tables(&dec->cinfo)) {
            dec->cinfo.do_block_smoothing = FALSE;
            // The components that read DC alone get striped arrays: nothing writes or reads their AC
            // coefficients (our decoder skips their AC scans). A decline below starts over with whole arrays.
            dec->dc_only = dc_only;
            dec->err.stand_in = 1;
            jpeg_start_decompress(&dec->cinfo);
            dec->err.stand_in = 0;
            dec->dc_only = 0;
            uint64_t same_used[MAX_COMPONENTS];
            components(dec, same_used);
            if ((int)dec->cinfo.output_width != width || (int)dec->cinfo.output_height != height) goto done;
            if (dec->err.warnings == 0 && memcmp(used, same_used, sizeof(uint64_t) * (size_t)count) == 0 &&
                decode_scans(dec, data, size, used) == 0) {
                how = TIP_JPEG_PROGRESSIVE_OWN_AC | (dc_only ? TIP_JPEG_PROGRESSIVE_DC_ONLY : 0);
                goto output;
            }
        }
        // Declined: libjpeg decodes the whole file, smoothing as TurboJPEG does.
        jpeg_abort_decompress(&dec->cinfo);
        dec->err.warnings = 0;
        begin(dec, data, size, scale_num, scale_denom, out_space);
    }
    jpeg_start_decompress(&dec->cinfo);
    if ((int)dec->cinfo.output_width != width || (int)dec->cinfo.output_height != height) goto done;
output:
    while (dec->cinfo.output_scanline < dec->cinfo.output_height) {
        JSAMPROW row = destination + (size_t)dec->cinfo.output_scanline * pitch;
        if (jpeg_read_scanlines(&dec->cinfo, &row, 1) != 1) goto done;
    }
    jpeg_finish_decompress(&dec->cinfo);
    result = dec->err.warnings == 0 ? 0 : 1;
    if (result == 0 && path) *path = how;
done:
    if (created) jpeg_destroy_decompress(&dec->cinfo);
    free((void *)stand_in);
    free((void *)dec);
    return result;
}

// MARK: - Checking our decoder against libjpeg

// Reads every coefficient of `data` into arrays from `allocator`: all of them through libjpeg, or with
// `ours` set, through our decoder (libjpeg reading the stand-in stream, kept in `*scratch` for the caller
// to free). Returns 0 when read, 1 on a libjpeg warning or error, 2 when our decoder declined.
static int read_coefficients(tip_oneshot *dec, const uint8_t *data, size_t size, int ours, uint8_t **scratch) {
    if (setjmp(dec->err.jump)) return 1;
    create(dec);
    jpeg_mem_src(&dec->cinfo, data, (unsigned long)size);
    jpeg_read_header(&dec->cinfo, TRUE);
    if (!dec->cinfo.progressive_mode) return 1;
    uint64_t used[MAX_COMPONENTS];
    for (int c = 0; c < MAX_COMPONENTS; c++) used[c] = ~0ULL;  // every AC scan and coefficient, whatever the scale
    if (ours) {
        if (dec->cinfo.arith_code || dec->cinfo.num_components > MAX_COMPONENTS) return 2;
        size_t stand_in_size = 0;
        *scratch = stand_in_stream(&dec->cinfo, data, size, &stand_in_size);
        if (!*scratch) return 2;
        jpeg_abort_decompress(&dec->cinfo);
        jpeg_mem_src(&dec->cinfo, *scratch, (unsigned long)stand_in_size);
        jpeg_read_header(&dec->cinfo, TRUE);
        if (!latch_quant_tables(&dec->cinfo)) return 2;
    }
    dec->err.stand_in = ours;
    jpeg_read_coefficients(&dec->cinfo);
    dec->err.stand_in = 0;
    if (dec->err.warnings) return 1;
    if (ours && decode_scans(dec, data, size, used) != 0) return 2;
    return 0;
}

int tip_jpeg_progressive_ac_check(const uint8_t *data, size_t size, const tip_jpeg_large_allocator *allocator) {
    tip_oneshot *theirs = new_decoder(allocator), *ours = new_decoder(allocator);
    uint8_t *scratch = NULL;
    int result = 1;
    if (theirs && ours) {
        int a = read_coefficients(theirs, data, size, 0, NULL);
        int b = a == 0 ? read_coefficients(ours, data, size, 1, &scratch) : 1;
        result = a != 0 ? 1 : b != 0 ? 2 : 0;
        if (result == 0) {
            // Every array, padding blocks included, byte for byte.
            if (theirs->requested != ours->requested || theirs->requested > MAX_COMPONENTS) result = -1;
            for (int c = 0; result == 0 && c < theirs->requested; c++) {
                tip_barray *x = theirs->by_request[c], *y = ours->by_request[c];
                size_t bytes = (size_t)x->blocks_per_row * sizeof(JBLOCK) * x->row_count;
                if (x->blocks_per_row != y->blocks_per_row || x->row_count != y->row_count ||
                    (bytes && memcmp(x->rows[0], y->rows[0], bytes) != 0)) {
                    result = -1;
                }
            }
        }
    }
    // jpeg_destroy_decompress is safe on a decoder whose jpeg_create_decompress never ran (cinfo->mem is NULL).
    if (theirs) jpeg_destroy_decompress(&theirs->cinfo);
    if (ours) jpeg_destroy_decompress(&ours->cinfo);
    free(theirs);
    free(ours);
    free(scratch);
    return result;
}
