// Incremental JPEG decoding over libjpeg: a suspending source fed with appended bytes, with every
// libjpeg call wrapped in setjmp inside the C entry point that makes it (longjmp never leaves C).
// The AC scans of a progressive JPEG whose data has entirely arrived are decoded by TIP's own scan decoder
// (jpeg_progressive_ac.c) straight into libjpeg's coefficient arrays, and libjpeg is told the scan is done: its
// bookkeeping (coef_bits, scan numbers, markers) and its output passes stay its own. Should ours decline a scan
// (anything libjpeg would warn about), it may have written part of it, so the decode starts over on libjpeg
// alone from the bytes kept so far, and ends where it was.
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <setjmp.h>
#include <jpeglib.h>
#include <jerror.h>
// Installed with libjpeg-turbo; used only to read/flip inputctl->eoi_reached around one output pass.
#include <jpegint.h>
#include "CJPEGIncremental.h"
#include "jpeg_output.h"
#include "jpeg_progressive_ac.h"

int tip_jpeg_lib_version(void) { return JPEG_LIB_VERSION; }

typedef struct {
    struct jpeg_error_mgr pub;
    jmp_buf jump;
    char message[JMSG_LENGTH_MAX];
    int has_message;
    int premature;  // a scan's data stopped at a marker (a file cut short, then closed with an EOI) or is damaged
    void (*std_emit_message)(j_common_ptr, int);
} tip_error_mgr;

struct tip_jpeg_inc {
    struct jpeg_decompress_struct cinfo;
    tip_error_mgr err;
    struct jpeg_source_mgr src;
    int created;          // jpeg_create_decompress succeeded
    int failed;           // a libjpeg error happened: only destroy is allowed
    // Queued input: buf[0 ..< len]; libjpeg's source points into it.
    uint8_t *buf;
    size_t cap;
    long long appended;   // total bytes appended
    size_t skip_pending;  // bytes libjpeg asked to skip beyond what was queued
    int eof;              // no more bytes will come
    int fake_eoi_used;    // the source had to invent an EOI
    // Decode state.
    int header_ready;
    int start_pending;    // jpeg_start_decompress suspended
    int started;
    int progressive;
    int completed_scans;
    int scan_done;        // the current input scan is complete (next SOS not read yet)
    int held;             // stopped at a scan boundary with the next scan incomplete
    size_t held_scan_pos; // while held at entropy data: bytes already searched for its end
    int bufpost;          // an output pass was finished but jpeg_finish_output suspended
    int input_complete;
    int last_render_smoothing;  // whether the last progressive render allowed block smoothing
    // Sequential output rows.
    uint8_t *rows;
    size_t row_bytes;
    // TIP's AC scan decoder (see the top of the file).
    int keep_all;         // buf keeps every byte appended (from offset 0), for a start over on libjpeg alone
    size_t stored;        // with keep_all: the bytes in buf
    int own_allowed;      // AC scans may go to our decoder: until switched off, a warning, or a start over
    int own_scans;        // scans our decoder decoded
    int restarts;         // starts over on libjpeg alone
    unsigned scanned;     // components (bit per index) in a completed scan
    int scale_num, scale_denom, out_space;  // as started, for a start over
    jvirt_barray_ptr arrays[MAX_COMPONENTS];  // libjpeg's coefficient arrays (one per component, in order)
    int array_count;
    int component_own[MAX_COMPONENTS];  // every AC scan of the component so far was ours: its masks are right
    uint64_t *nonzero[MAX_COMPONENTS];  // its blocks' masks of the AC coefficients set (zig-zag positions)
    jvirt_barray_ptr (*request_virt_barray)(j_common_ptr, int, boolean, JDIMENSION, JDIMENSION, JDIMENSION);
};

static const JOCTET tip_fake_eoi[2] = { 0xFF, JPEG_EOI };

static void tip_error_exit(j_common_ptr cinfo) {
    tip_error_mgr *err = (tip_error_mgr *)cinfo->err;
    (*cinfo->err->format_message)(cinfo, err->message);
    err->has_message = 1;
    longjmp(err->jump, 1);
}

static void tip_output_message(j_common_ptr cinfo) {
    tip_error_mgr *err = (tip_error_mgr *)cinfo->err;
    if (!err->has_message) {
        (*cinfo->err->format_message)(cinfo, err->message);
        err->has_message = 1;
    }
}

// Notes the warnings that mean the image data stopped early or is damaged (a code no table has, restart
// markers out of step: blocks were lost), then counts the warning as libjpeg does. Extraneous bytes before a
// marker, common in files that are otherwise whole, lose no pixels.
static void tip_emit_message(j_common_ptr cinfo, int msg_level) {
    tip_error_mgr *err = (tip_error_mgr *)cinfo->err;
    int code = err->pub.msg_code;
    if (msg_level < 0 && (code == JWRN_HIT_MARKER || code == JWRN_JPEG_EOF || code == JWRN_HUFF_BAD_CODE ||
                          code == JWRN_ARITH_BAD_CODE || code == JWRN_MUST_RESYNC)) {
        err->premature = 1;
    }
    err->std_emit_message(cinfo, msg_level);
}

static void tip_init_source(j_decompress_ptr cinfo) { (void)cinfo; }

static boolean tip_fill_input_buffer(j_decompress_ptr cinfo) {
    tip_jpeg_inc *dec = (tip_jpeg_inc *)cinfo->client_data;
    if (!dec->eof) return FALSE;  // suspend until more bytes arrive
    WARNMS(cinfo, JWRN_JPEG_EOF);
    dec->fake_eoi_used = 1;
    cinfo->src->next_input_byte = tip_fake_eoi;
    cinfo->src->bytes_in_buffer = 2;
    return TRUE;
}

static void tip_skip_input_data(j_decompress_ptr cinfo, long num_bytes) {
    tip_jpeg_inc *dec = (tip_jpeg_inc *)cinfo->client_data;
    if (num_bytes <= 0) return;
    size_t n = (size_t)num_bytes;
    if (n <= cinfo->src->bytes_in_buffer) {
        cinfo->src->next_input_byte += n;
        cinfo->src->bytes_in_buffer -= n;
    } else {
        dec->skip_pending += n - cinfo->src->bytes_in_buffer;
        cinfo->src->next_input_byte += cinfo->src->bytes_in_buffer;
        cinfo->src->bytes_in_buffer = 0;
    }
}

static void tip_term_source(j_decompress_ptr cinfo) { (void)cinfo; }

// Notes the whole-image coefficient arrays that libjpeg's coefficient controller asks for, one per component in
// order (nothing else asks for one when decompressing).
static jvirt_barray_ptr tip_request_virt_barray(j_common_ptr cinfo, int pool_id, boolean pre_zero, JDIMENSION blocks_per_row,
                                                JDIMENSION row_count, JDIMENSION max_access) {
    tip_jpeg_inc *dec = (tip_jpeg_inc *)cinfo->client_data;
    jvirt_barray_ptr array = dec->request_virt_barray(cinfo, pool_id, pre_zero, blocks_per_row, row_count, max_access);
    if (dec->array_count < MAX_COMPONENTS) dec->arrays[dec->array_count] = array;
    dec->array_count++;
    return array;
}

// jpeg_create_decompress and our source and hooks (call under setjmp).
static void tip_create_cinfo(tip_jpeg_inc *dec) {
    jpeg_create_decompress(&dec->cinfo);
    dec->created = 1;
    dec->cinfo.client_data = dec;
    dec->request_virt_barray = dec->cinfo.mem->request_virt_barray;
    dec->cinfo.mem->request_virt_barray = tip_request_virt_barray;
    dec->src.init_source = tip_init_source;
    dec->src.fill_input_buffer = tip_fill_input_buffer;
    dec->src.skip_input_data = tip_skip_input_data;
    dec->src.resync_to_restart = jpeg_resync_to_restart;
    dec->src.term_source = tip_term_source;
    dec->src.next_input_byte = NULL;
    dec->src.bytes_in_buffer = 0;
    dec->cinfo.src = &dec->src;
    jpeg_save_markers(&dec->cinfo, JPEG_APP0 + 1, 0xFFFF);
}

tip_jpeg_inc *tip_jpeg_inc_create(void) {
    tip_jpeg_inc *dec = (tip_jpeg_inc *)calloc(1, sizeof(tip_jpeg_inc));
    if (!dec) return NULL;
    dec->cinfo.err = jpeg_std_error(&dec->err.pub);
    dec->err.pub.error_exit = tip_error_exit;
    dec->err.pub.output_message = tip_output_message;
    dec->err.std_emit_message = dec->err.pub.emit_message;
    dec->err.pub.emit_message = tip_emit_message;
    dec->keep_all = 1;
    dec->own_allowed = 1;
    if (setjmp(dec->err.jump)) {
        if (dec->created) jpeg_destroy_decompress(&dec->cinfo);
        free(dec);
        return NULL;
    }
    tip_create_cinfo(dec);
    return dec;
}

void tip_jpeg_inc_set_own_scans(tip_jpeg_inc *dec, int on) {
    if (dec->started) return;
    dec->own_allowed = on ? 1 : 0;
}

static void tip_free_masks(tip_jpeg_inc *dec) {
    for (int i = 0; i < MAX_COMPONENTS; i++) {
        free(dec->nonzero[i]);
        dec->nonzero[i] = NULL;
    }
}

void tip_jpeg_inc_destroy(tip_jpeg_inc *dec) {
    if (!dec) return;
    if (dec->created) {
        if (setjmp(dec->err.jump) == 0) {
            jpeg_destroy_decompress(&dec->cinfo);
        }
    }
    free(dec->rows);
    free(dec->buf);
    tip_free_masks(dec);
    free(dec);
}

int tip_jpeg_inc_append(tip_jpeg_inc *dec, const void *bytes, size_t count) {
    if (dec->failed || dec->eof) return -1;
    const uint8_t *in = (const uint8_t *)bytes;
    dec->appended += (long long)count;
    size_t skip = 0;
    if (dec->skip_pending > 0) {
        skip = dec->skip_pending < count ? dec->skip_pending : count;
        dec->skip_pending -= skip;
    }
    if (!dec->keep_all) {
        in += skip;
        count -= skip;
        skip = 0;
    }
    if (count == 0) return 0;
    size_t pending = dec->src.bytes_in_buffer;
    // Without keep_all, the unconsumed bytes move to the front of the buffer; with it, every byte stays where
    // it is (the skipped ones too, consumed at once: bytes are skipped only once the buffer ran dry).
    size_t start = 0;
    if (dec->keep_all) {
        start = dec->stored - pending;
    } else if (pending > 0 && dec->src.next_input_byte != dec->buf) {
        memmove(dec->buf, dec->src.next_input_byte, pending);
    }
    size_t used = start + pending;
    if (used + count < used) return -1;
    if (used + count > dec->cap) {
        size_t cap = dec->cap ? dec->cap : 65536;
        while (cap < used + count) {
            if (cap > ((size_t)-1) / 2) return -1;
            cap *= 2;
        }
        uint8_t *grown = (uint8_t *)realloc(dec->buf, cap);
        if (!grown) return -1;
        dec->buf = grown;
        dec->cap = cap;
    }
    memcpy(dec->buf + used, in, count);
    dec->stored = used + count;
    dec->src.next_input_byte = dec->buf + start + skip;
    dec->src.bytes_in_buffer = pending + count - skip;
    return 0;
}

void tip_jpeg_inc_set_eof(tip_jpeg_inc *dec) { dec->eof = 1; }

int tip_jpeg_inc_read_header(tip_jpeg_inc *dec) {
    if (dec->failed) return -1;
    if (dec->header_ready) return 1;
    if (setjmp(dec->err.jump)) {
        dec->failed = 1;
        return -1;
    }
    int r = jpeg_read_header(&dec->cinfo, TRUE);
    if (r == JPEG_SUSPENDED) return 0;
    if (r != JPEG_HEADER_OK) {
        // A tables-only datastream: no image.
        snprintf(dec->err.message, sizeof dec->err.message, "no image in the JPEG data");
        dec->err.has_message = 1;
        dec->failed = 1;
        return -1;
    }
    dec->header_ready = 1;
    return 1;
}

int tip_jpeg_inc_exif(tip_jpeg_inc *dec, const uint8_t **data, size_t *length) {
    if (!dec->header_ready) return 0;
    for (jpeg_saved_marker_ptr m = dec->cinfo.marker_list; m; m = m->next) {
        if (m->marker == JPEG_APP0 + 1 && m->data_length >= 6 && memcmp(m->data, "Exif\0\0", 6) == 0) {
            *data = m->data + 6;
            *length = m->data_length - 6;
            return 1;
        }
    }
    return 0;
}

static int tip_allocate_rows(tip_jpeg_inc *dec) {
    struct jpeg_decompress_struct *c = &dec->cinfo;
    dec->row_bytes = (size_t)c->output_width * (size_t)c->output_components;
    size_t total = dec->row_bytes * (size_t)c->output_height;
    if (dec->row_bytes == 0 || total / dec->row_bytes != (size_t)c->output_height) return -1;
    dec->rows = (uint8_t *)malloc(total ? total : 1);
    return dec->rows ? 0 : -1;
}

// libjpeg's arithmetic decoder cannot suspend (JERR_CANT_SUSPEND when its data runs out): an arithmetic-coded
// file is decoded once every byte is there, in one go.
static int tip_waits_for_eof(const tip_jpeg_inc *dec) { return dec->cinfo.arith_code && !dec->eof; }

static int tip_finish_start(tip_jpeg_inc *dec) {
    // Called inside a setjmp scope.
    if (!jpeg_start_decompress(&dec->cinfo)) return 0;
    dec->start_pending = 0;
    dec->started = 1;
    for (int i = 0; i < MAX_COMPONENTS; i++) dec->component_own[i] = dec->own_allowed;
    if (!dec->progressive && tip_allocate_rows(dec) != 0) {
        snprintf(dec->err.message, sizeof dec->err.message, "out of memory for %u rows", dec->cinfo.output_height);
        dec->err.has_message = 1;
        dec->failed = 1;
        return -1;
    }
    return 1;
}

// Sets the scale and output colour space as started (at the start, and again after a start over).
static void tip_set_output(tip_jpeg_inc *dec) {
    struct jpeg_decompress_struct *c = &dec->cinfo;
    c->scale_num = (unsigned int)dec->scale_num;
    c->scale_denom = (unsigned int)dec->scale_denom;
    c->out_color_space = tip_jpeg_out_color_space(dec->out_space);
    c->buffered_image = dec->progressive ? TRUE : FALSE;
}

int tip_jpeg_inc_start(tip_jpeg_inc *dec, int scale_num, int scale_denom, int out_space) {
    if (dec->failed || !dec->header_ready) return -1;
    if (dec->started) return 1;
    if (setjmp(dec->err.jump)) {
        dec->failed = 1;
        return -1;
    }
    struct jpeg_decompress_struct *c = &dec->cinfo;
    if (!dec->start_pending) {
        dec->scale_num = scale_num;
        dec->scale_denom = scale_denom;
        dec->out_space = out_space;
        dec->progressive = c->progressive_mode ? 1 : 0;
        tip_set_output(dec);
        dec->start_pending = 1;
        // Our decoder takes Huffman-coded progressive scans only; other decodes need no bytes kept.
        if (!dec->progressive || c->arith_code) dec->own_allowed = 0;
        if (!dec->own_allowed) dec->keep_all = 0;
    }
    if (tip_waits_for_eof(dec)) return 0;
    return tip_finish_start(dec);
}

// Searches entropy-coded data from *pos for a terminating marker (not a stuffed zero or RSTn);
// on failure *pos is where a later search (with more bytes) may resume.
static int tip_entropy_end_present(const uint8_t *b, size_t n, size_t *pos) {
    size_t p = *pos;
    while (p + 1 < n) {
        const uint8_t *ff = (const uint8_t *)memchr(b + p, 0xFF, n - 1 - p);
        if (!ff) { p = n - 1; break; }
        p = (size_t)(ff - b);
        uint8_t c = b[p + 1];
        if (c == 0x00 || (c >= 0xD0 && c <= 0xD7)) p += 2;
        else if (c == 0xFF) p++;
        else { *pos = p; return 1; }
    }
    *pos = p;
    return 0;
}

// Parses a marker segment sequence; returns 1 when a whole scan (SOS header plus entropy data up
// to a terminating marker) or the EOI is present.
static int tip_scan_present(const uint8_t *b, size_t n, size_t p, int marker, int in_entropy) {
    if (in_entropy) goto entropy;
    for (;;) {
        if (marker == 0) {
            while (p < n && b[p] != 0xFF) p++;
            while (p < n && b[p] == 0xFF) p++;
            if (p >= n) return 0;
            marker = b[p++];
            if (marker == 0) continue;
        }
        if (marker == JPEG_EOI) return 1;
        if ((marker >= 0xD0 && marker <= 0xD7) || marker == 0x01) {
            marker = 0;
            continue;
        }
        if (p + 2 > n) return 0;
        size_t len = ((size_t)b[p] << 8) | b[p + 1];
        if (len < 2) return 1;  // corrupt: let libjpeg report it
        if (p + len > n) return 0;
        p += len;
        if (marker == 0xDA) break;
        marker = 0;
    }
entropy:
    return tip_entropy_end_present(b, n, &p);
}

int tip_jpeg_next_scan_available(const uint8_t *bytes, size_t count, int pending_marker) {
    return tip_scan_present(bytes, count, 0, pending_marker, 0);
}

// No more AC scans for our decoder: the bytes need not be kept for a start over any longer (the next append
// moves the unconsumed ones to the front and lets the rest go).
static void tip_stop_own_scans(tip_jpeg_inc *dec) {
    dec->own_allowed = 0;
    dec->keep_all = 0;
}

// The rows of a component's coefficient array, as libjpeg's memory manager keeps it: the whole array in memory
// (there is no backing store), its row pointers in one array. A writable access to the last row first zeroes
// the rows no scan has reached yet, as libjpeg's own access would.
static JBLOCKARRAY tip_coefficient_rows(j_decompress_ptr c, jvirt_barray_ptr array, const jpeg_component_info *comp) {
    JDIMENSION v = (JDIMENSION)comp->v_samp_factor;
    JDIMENSION rows = (comp->height_in_blocks + v - 1) / v * v;
    JBLOCKARRAY last = (*c->mem->access_virt_barray)((j_common_ptr)c, array, rows - 1, 1, TRUE);
    return last - (rows - 1);
}

/* Called before libjpeg would consume data of the current scan. Decodes it with our decoder when it is an AC
 * scan whose data has entirely arrived, of a component all of whose AC scans so far were ours (so libjpeg has not
 * begun this one), and libjpeg has not warned: then moves the source past its data and tells libjpeg the scan is
 * done, as its coefficient controller would. Returns 1 when done; 0 when libjpeg is to decode it (that
 * component's AC scans stay with libjpeg from then on); -1 when our decoder declined it partway (the arrays are
 * then in doubt: the caller starts over). Under setjmp. */
static int tip_own_scan(tip_jpeg_inc *dec) {
    struct jpeg_decompress_struct *c = &dec->cinfo;
    if (!dec->own_allowed || c->Ss == 0 || c->comps_in_scan != 1) return 0;
    jpeg_component_info *comp = c->cur_comp_info[0];
    int ci = comp->component_index;
    if (ci < 0 || ci >= MAX_COMPONENTS || dec->array_count != c->num_components) return 0;
    int ours = dec->component_own[ci];
    dec->component_own[ci] = 0;  // until it proves ours below
    if (!ours) return 0;
    if (dec->err.pub.num_warnings != 0) {
        tip_stop_own_scans(dec);
        return 0;
    }
    JHUFF_TBL *table = comp->ac_tbl_no >= 0 && comp->ac_tbl_no < NUM_HUFF_TBLS ? c->ac_huff_tbl_ptrs[comp->ac_tbl_no] : NULL;
    if (!table || c->src->bytes_in_buffer == 0) return 0;
    const uint8_t *data = c->src->next_input_byte;
    size_t end = tip_jpeg_entropy_end(data, c->src->bytes_in_buffer, 0);
    if (end >= c->src->bytes_in_buffer) return 0;  // its end has not arrived
    size_t blocks = (size_t)comp->width_in_blocks * comp->height_in_blocks;
    if (!dec->nonzero[ci]) {
        dec->nonzero[ci] = (uint64_t *)calloc(blocks ? blocks : 1, sizeof(uint64_t));
        if (!dec->nonzero[ci]) return 0;
    }
    tip_ac_plane plane = {tip_coefficient_rows(c, dec->arrays[ci], comp),
                          comp->component_id,
                          (int)comp->width_in_blocks,
                          (int)comp->height_in_blocks,
                          1,
                          1,
                          (int)comp->width_in_blocks,
                          (int)comp->height_in_blocks,
                          1,
                          dec->nonzero[ci],
                          NULL,
                          ~0ULL,
                          1};
    if (!tip_jpeg_decode_ac_scan(data, end, &plane, c->Ss, c->Se, c->Ah, c->Al, table->bits + 1, table->huffval,
                                 (int)c->restart_interval)) {
        return -1;
    }
    c->src->next_input_byte += end;
    c->src->bytes_in_buffer -= end;
    c->input_iMCU_row = c->total_iMCU_rows;
    (*c->inputctl->finish_input_pass)(c);
    dec->component_own[ci] = 1;
    dec->own_scans++;
    return 1;
}

/* Starts the decode over on libjpeg alone from every byte kept so far, after our decoder declined a scan it had
 * partly written; the caller's loop then consumes up to where it was. Returns 0, or -1 when the start fails.
 * Under setjmp. */
static int tip_start_over(tip_jpeg_inc *dec) {
    struct jpeg_decompress_struct *c = &dec->cinfo;
    jpeg_destroy_decompress(c);
    dec->created = 0;
    tip_free_masks(dec);
    dec->array_count = 0;
    dec->own_allowed = 0;
    dec->restarts++;
    tip_create_cinfo(dec);
    dec->src.next_input_byte = dec->buf;
    dec->src.bytes_in_buffer = dec->stored;
    dec->keep_all = 0;
    dec->skip_pending = 0;
    dec->fake_eoi_used = 0;
    dec->err.premature = 0;
    dec->header_ready = dec->start_pending = dec->started = 0;
    dec->completed_scans = dec->scan_done = dec->held = dec->bufpost = dec->input_complete = 0;
    dec->scanned = 0;
    dec->held_scan_pos = 0;
    if (jpeg_read_header(c, TRUE) != JPEG_HEADER_OK) return -1;
    dec->header_ready = 1;
    tip_set_output(dec);
    dec->start_pending = 1;
    return tip_finish_start(dec) == 1 ? 0 : -1;
}

// The components of the current scan (bit per component index).
static unsigned tip_scan_components(j_decompress_ptr c) {
    unsigned bits = 0;
    for (int i = 0; i < c->comps_in_scan && i < MAX_COMPS_IN_SCAN; i++) {
        int ci = c->cur_comp_info[i]->component_index;
        if (ci >= 0 && ci < 32) bits |= 1u << ci;
    }
    return bits;
}

// Whether every component has some data: a completed scan, or rows of the scan being consumed.
static int tip_every_component_has_data(tip_jpeg_inc *dec) {
    struct jpeg_decompress_struct *c = &dec->cinfo;
    unsigned have = dec->scanned;
    if (!dec->scan_done && c->input_iMCU_row > 0) have |= tip_scan_components(c);
    for (int ci = 0; ci < c->num_components && ci < 32; ci++) {
        if (!(have >> ci & 1)) return 0;
    }
    return 1;
}

static int tip_consume_progressive(tip_jpeg_inc *dec, int hold) {
    struct jpeg_decompress_struct *c = &dec->cinfo;
    for (;;) {
        if (dec->input_complete) return 0;
        if (dec->held) {
            if (hold && !dec->eof) {
                // Resume only once the next scan is entirely queued (or the input ends).
                int present;
                if (!dec->scan_done) {
                    // SOS already read: we sit at its entropy data, searched incrementally.
                    present = tip_entropy_end_present(dec->src.next_input_byte, dec->src.bytes_in_buffer, &dec->held_scan_pos);
                } else {
                    present = tip_scan_present(dec->src.next_input_byte, dec->src.bytes_in_buffer, 0, c->unread_marker, 0);
                }
                if (!present) {
                    if (dec->scan_done) {
                        // Read the markers up to the next SOS; they do not touch the coefficients.
                        int r = jpeg_consume_input(c);
                        if (r == JPEG_REACHED_SOS) {
                            dec->scan_done = 0;
                            dec->held_scan_pos = 0;
                            continue;  // check the entropy data that is already queued
                        }
                        if (r == JPEG_REACHED_EOI) dec->input_complete = 1;
                    }
                    return 0;
                }
            }
            dec->held = 0;
        }
        // Scan data next (libjpeg's rows of the scan not all consumed): ours, or libjpeg's from here on.
        int own = c->input_iMCU_row < c->total_iMCU_rows ? tip_own_scan(dec) : 0;
        if (own < 0) {
            if (tip_start_over(dec) != 0) return -1;
            continue;
        }
        if (!own && dec->own_allowed) {
            int any = 0;
            for (int i = 0; i < c->num_components && i < MAX_COMPONENTS; i++) any |= dec->component_own[i];
            if (!any) tip_stop_own_scans(dec);  // libjpeg has taken scans of every component
        }
        int r = own ? JPEG_SCAN_COMPLETED : jpeg_consume_input(c);
        switch (r) {
        case JPEG_SUSPENDED:
            return 0;
        case JPEG_REACHED_EOI:
            dec->input_complete = 1;
            dec->scan_done = 0;
            return 0;
        case JPEG_REACHED_SOS:
            dec->scan_done = 0;
            break;
        case JPEG_SCAN_COMPLETED:
            dec->scanned |= tip_scan_components(c);
            dec->completed_scans++;
            dec->scan_done = 1;
            if (hold && !dec->eof) {
                dec->held = 1;
                dec->held_scan_pos = 0;
            }
            break;
        default:
            break;
        }
    }
}

static int tip_consume_sequential(tip_jpeg_inc *dec) {
    struct jpeg_decompress_struct *c = &dec->cinfo;
    while (c->output_scanline < c->output_height) {
        JSAMPROW ptrs[16];
        JDIMENSION want = c->output_height - c->output_scanline;
        if (want > 16) want = 16;
        for (JDIMENSION i = 0; i < want; i++) ptrs[i] = dec->rows + (size_t)(c->output_scanline + i) * dec->row_bytes;
        JDIMENSION got = jpeg_read_scanlines(c, ptrs, want);
        if (got == 0) return 0;
    }
    if (!dec->input_complete && jpeg_finish_decompress(c)) dec->input_complete = 1;
    return 0;
}

int tip_jpeg_inc_consume(tip_jpeg_inc *dec, int hold_at_scan_end) {
    if (dec->failed) return -1;
    if (setjmp(dec->err.jump)) {
        dec->failed = 1;
        return -1;
    }
    if (!dec->header_ready) {
        int r = jpeg_read_header(&dec->cinfo, TRUE);
        if (r == JPEG_HEADER_OK) dec->header_ready = 1;
        return 0;
    }
    if (!dec->started) {
        if (!dec->start_pending || tip_waits_for_eof(dec)) return 0;
        int r = tip_finish_start(dec);
        if (r <= 0) return r;
    }
    if (dec->progressive) return tip_consume_progressive(dec, hold_at_scan_end);
    return tip_consume_sequential(dec);
}

/* Whether a scan's render uses libjpeg's block smoothing (its estimate of the AC coefficients not received yet,
 * which softens the 8x8 blocks of early scans). At scales where a block covers at least 3x3 output pixels, always
 * (libjpeg's own choice: a render then equals a decode of the bytes so far). Where a block covers 2x2 pixels or
 * fewer (DCT scales 1/4 and 1/8, thumbnails), only while the luma has no AC data at all: carnival.pjpg at 1/4,
 * the DC scan's render comes 1.2 dB closer to the final image with it, but once the first AC scan has arrived it
 * moves a render by at most half a dB, as often away from the final image as towards it, for 4-5 ms of a render's
 * 6; at 1/8 the luma shows DC only, which the first scan gives exactly, so it only blurs. */
static boolean tip_wants_block_smoothing(j_decompress_ptr c) {
    if (c->min_DCT_scaled_size > 2) return TRUE;
    if (c->coef_bits == NULL || c->min_DCT_scaled_size <= 1) return FALSE;
    return c->coef_bits[0][1] < 0 ? TRUE : FALSE;
}

int tip_jpeg_inc_render_progressive(tip_jpeg_inc *dec, int scan_number, uint8_t *dst, size_t pitch) {
    if (dec->failed || !dec->started || !dec->progressive) return -1;
    struct jpeg_decompress_struct *c = &dec->cinfo;
    if (setjmp(dec->err.jump)) {
        dec->failed = 1;
        return -1;
    }
    if (dec->bufpost) {
        if (!jpeg_finish_output(c)) return -2;  // cannot start a new pass yet
        dec->bufpost = 0;
    }
    // Before every component has data (a file whose components have DC scans of their own), libjpeg's output
    // pass reads memory it never set for those without (valgrind shows it; renders of one state differed from
    // run to run): nothing to show until then.
    if (!dec->input_complete && !tip_every_component_has_data(dec)) return -2;
    if (scan_number <= 0) {
        if (dec->input_complete || dec->scan_done) scan_number = c->input_scan_number;
        else scan_number = c->input_scan_number > 1 ? c->input_scan_number - 1 : 1;
    }
    // When the current scan is complete but the next marker has not arrived, tell the output pass
    // that the input has ended, like a decode of the data up to here would see: otherwise block
    // smoothing after a DC scan waits for rows that do not exist and the pass suspends. Restored
    // right after the pass; no input is consumed meanwhile.
    int pretend_eoi = dec->scan_done && !dec->input_complete && !c->inputctl->eoi_reached;
    if (pretend_eoi) c->inputctl->eoi_reached = TRUE;
    c->do_block_smoothing = tip_wants_block_smoothing(c);
    dec->last_render_smoothing = c->do_block_smoothing ? 1 : 0;
    jpeg_start_output(c, scan_number);
    int produced = 0;
    while (c->output_scanline < c->output_height) {
        JSAMPROW ptrs[16];
        JDIMENSION want = c->output_height - c->output_scanline;
        if (want > 16) want = 16;
        for (JDIMENSION i = 0; i < want; i++) ptrs[i] = dst + (size_t)(c->output_scanline + i) * pitch;
        JDIMENSION got = jpeg_read_scanlines(c, ptrs, want);
        if (got == 0) break;  // the pass caught up with the input
    }
    produced = (int)c->output_scanline;
    if (!jpeg_finish_output(c)) dec->bufpost = 1;
    if (pretend_eoi) c->inputctl->eoi_reached = FALSE;
    return produced;
}

int tip_jpeg_inc_copy_rows(tip_jpeg_inc *dec, uint8_t *dst, size_t pitch) {
    if (dec->failed || !dec->started || dec->progressive || !dec->rows) return 0;
    int n = (int)dec->cinfo.output_scanline;
    for (int y = 0; y < n; y++) memcpy(dst + (size_t)y * pitch, dec->rows + (size_t)y * dec->row_bytes, dec->row_bytes);
    return n;
}

void tip_jpeg_inc_get_info(tip_jpeg_inc *dec, tip_jpeg_inc_info *info) {
    memset(info, 0, sizeof *info);
    struct jpeg_decompress_struct *c = &dec->cinfo;
    info->header_ready = dec->header_ready;
    info->started = dec->started;
    if (dec->header_ready) {
        info->image_width = (int)c->image_width;
        info->image_height = (int)c->image_height;
        info->num_components = c->num_components;
        info->jpeg_color_space = (int)c->jpeg_color_space;
        info->saw_adobe_marker = c->saw_Adobe_marker ? 1 : 0;
        info->progressive = c->progressive_mode ? 1 : 0;
    }
    if (dec->started) {
        info->output_width = (int)c->output_width;
        info->output_height = (int)c->output_height;
        info->output_components = c->output_components;
        info->input_scan_number = c->input_scan_number;
        info->rows_decoded = dec->progressive ? 0 : (int)c->output_scanline;
    }
    info->completed_scans = dec->completed_scans;
    info->last_render_smoothing = dec->last_render_smoothing;
    info->own_scans = dec->own_scans;
    info->restarts = dec->restarts;
    info->input_complete = dec->input_complete;
    info->warnings = (int)dec->err.pub.num_warnings + dec->fake_eoi_used;
    info->truncated = dec->fake_eoi_used || dec->err.premature;
    info->consumed = dec->fake_eoi_used ? dec->appended + 1 : dec->appended - (long long)dec->src.bytes_in_buffer - (long long)dec->skip_pending;
}

const char *tip_jpeg_inc_error_message(tip_jpeg_inc *dec) {
    return dec->err.has_message ? dec->err.message : "unknown libjpeg error";
}
