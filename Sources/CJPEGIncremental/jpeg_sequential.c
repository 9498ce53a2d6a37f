// One-shot decoding of complete sequential (baseline) JPEGs over libjpeg, with our entropy decoder in place of
// libjpeg's. libjpeg reads the headers, runs the inverse DCT, upsampling and colour conversion, and calls its
// entropy decoder once per MCU; that call is ours here (`decode_mcu`, set after jpeg_start_decompress). Ours
// keeps the bit reader in registers across a block, reads most codes with their value bits in 10-bit lookups
// of up to two symbols each (end of block and sixteen zeros included), tops up its bit buffer once per four
// lookups without a branch on how many bits are left (that branch, taken every few lookups as the codes' lengths
// fell, was 38% of the decoder's mispredicted branches; a C loop over the main job's 152 baseline files at their
// thumbnail scales took 0.91-0.92 of its time with it, 20 alternated pairs), and at scales where a component's
// inverse DCT reads only the DC coefficient, it reads past that component's AC coefficients without writing
// them (as libjpeg does).
// The pixels are TurboJPEG's, byte for byte: the coefficients are libjpeg's, and everything else is libjpeg's
// own code with TurboJPEG's settings. Anything our decoder does not take or that libjpeg would warn about (a
// code no table has, data cut short, restart markers out of step, bytes left over in an interval, a DC
// predictor past int, fill bytes inside the data) makes it decline, and the caller decodes with TurboJPEG.
#include <limits.h>
#include <setjmp.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <jpeglib.h>
#include <jerror.h>
#include <jpegint.h>
#include "CJPEGIncremental.h"
#include "jpeg_huffman.h"
#include "jpeg_output.h"
#include "jpeg_progressive_ac.h"

// An AC table's quick entries: one lookup reads up to two symbols with their value bits. The first symbol: bits
// 0-7 its code and value bits together (at most FAST_BITS), bits 8-15 the zig-zag positions it moves past (run + 1
// for a coefficient, 16 for sixteen zeros, ENDS for the end of the block), bits 16-31 its value. Bits 32-39: the
// bits of both symbols. Bits 40-47 and 48-63: the second symbol's advance and value, when its code and value bits
// fit in the lookup after the first's; else an advance of 0 and the first value again, so that writing it changes
// nothing. 0: decode the long way. Two codes a lookup shorten the chain of dependent lookups and shifts that
// bounds the decoding speed: a C loop decoding the main job's 152 baseline files at their thumbnail scales took
// 0.945-0.964 of its time with one code a lookup (medians of 12 and 20 alternated pairs).
typedef uint64_t ac_quick[1 << FAST_BITS];
#define ENDS 64

typedef struct {
    struct jpeg_decompress_struct cinfo;
    struct jpeg_error_mgr pub;
    jmp_buf jump;
    int warnings;
    // The scan's entropy-coded data, data[start ..< end), and the restart interval being read.
    const uint8_t *data;
    size_t end;
    size_t stop;           // the current interval's data ends here (a restart marker, or `end`)
    uint8_t stop_code;     // the marker at `stop` (0 at `end`)
    bit_reader bits;
    unsigned restarts_to_go;
    int expected_restart;  // the number (0...7) of the next restart marker
    size_t mcus, decoded;
    // The blocks of an MCU: their component (index in the scan) and tables.
    int blocks;
    int member[D_MAX_BLOCKS_IN_MCU];
    int keep_ac[D_MAX_BLOCKS_IN_MCU];
    const huffman_table *dc[D_MAX_BLOCKS_IN_MCU];
    const huffman_table *ac[D_MAX_BLOCKS_IN_MCU];
    const uint64_t *quick[D_MAX_BLOCKS_IN_MCU];
    int predictor[MAX_COMPS_IN_SCAN];
    huffman_table dc_tables[NUM_HUFF_TBLS], ac_tables[NUM_HUFF_TBLS];
    ac_quick quick_tables[NUM_HUFF_TBLS];
} tip_sequential;

static void sequential_error_exit(j_common_ptr cinfo) { longjmp(((tip_sequential *)cinfo->client_data)->jump, 1); }

static void sequential_emit_message(j_common_ptr cinfo, int level) {
    if (level < 0) ((tip_sequential *)cinfo->client_data)->warnings++;
}

static void sequential_output_message(j_common_ptr cinfo) { (void)cinfo; }

// Gives the file back to the caller (TurboJPEG decodes it).
static void decline(tip_sequential *dec) { longjmp(dec->jump, 1); }

// MARK: - Tables

// The quick entry of the symbol at the start of the lookup `index` (FAST_BITS bits): (value << 16) |
// (advance << 8) | bits, as the first symbol of an ac_quick entry; 0 when the symbol and its value bits are not
// all in the lookup.
static int32_t quick_symbol(const huffman_table *t, uint32_t index) {
    uint16_t entry = t->fast[index];
    if (!entry) return 0;
    int length = entry >> 8, symbol = entry & 0xFF, run = symbol >> 4, magnitude = symbol & 15;
    if (magnitude == 0) {
        // Sixteen zeros (ZRL); any other run with no value ends the block, as in libjpeg.
        return (run == 15 ? 16 : ENDS) << 8 | length;
    }
    if (length + magnitude > FAST_BITS) return 0;
    uint32_t bits = index >> (FAST_BITS - length - magnitude) & ((1u << magnitude) - 1);
    int value = bits < (1u << (magnitude - 1)) ? (int)bits - (1 << magnitude) + 1 : (int)bits;
    return (int32_t)((uint32_t)value << 16) | (run + 1) << 8 | (length + magnitude);
}

// The quick entries of AC table `t` (see ac_quick).
static void build_quick(uint64_t *quick, const huffman_table *t) {
    enum { mask = (1 << FAST_BITS) - 1 };
    int32_t single[mask + 1];
    for (uint32_t index = 0; index <= mask; index++) single[index] = quick_symbol(t, index);
    for (uint32_t index = 0; index <= mask; index++) {
        int32_t first = single[index];
        int length = first & 0xFF, advance = (first >> 8) & 0xFF;
        // Alone: the first symbol, then an advance of 0 and its value again.
        uint64_t entry = (uint64_t)(uint32_t)first | (uint64_t)length << 32 | (uint64_t)(uint16_t)(first >> 16) << 48;
        if (first && advance != ENDS) {
            // The bits after the first symbol are the next one's when its code and value bits fit too (the bits
            // shifted in from the right are not the data's, and a code that needs them does not fit).
            int32_t second = single[(index << length) & mask];
            int length2 = second & 0xFF;
            if (second && length + length2 <= FAST_BITS) {
                entry = (uint64_t)(uint32_t)first | (uint64_t)(length + length2) << 32 |
                        (uint64_t)((second >> 8) & 0xFF) << 40 | (uint64_t)(uint16_t)(second >> 16) << 48;
            }
        }
        quick[index] = first ? entry : 0;
    }
}

// Our table for libjpeg's `source` into `t` (once per table), 0 when it is missing or we refuse it.
static int table(huffman_table *t, const JHUFF_TBL *source, int dc) {
    if (t->defined) return 1;
    if (!source) return 0;
    int total = 0;
    for (int length = 1; length <= 16; length++) total += source->bits[length];
    if (total > 256) return 0;
    t->defined = tip_jpeg_build_huffman_table(t, &source->bits[1], source->huffval, total, dc);
    return t->defined;
}

// MARK: - Restart intervals

// Starts reading the interval at `from`.
static void open_interval(tip_sequential *dec, size_t from) {
    dec->stop = tip_jpeg_next_marker(dec->data, dec->end, from, &dec->stop_code);
    dec->bits = (bit_reader){dec->data + from, dec->data + dec->stop, 0, 0, 0};
    fill(&dec->bits);
    for (int c = 0; c < MAX_COMPS_IN_SCAN; c++) dec->predictor[c] = 0;
}

// Whether the interval just read ended where its data ends: no bit read past it (libjpeg would warn that it
// hit a marker and decode zeros), and no whole byte left over (libjpeg would warn of extraneous data).
static int interval_complete(const bit_reader *b) {
    if (b->phantom > b->count) return 0;
    return (b->count - b->phantom) + 8 * (b->end - b->p) < 8;
}

// Ends an interval and starts the next, at the restart marker that must come next.
static void next_interval(tip_sequential *dec) {
    if (!interval_complete(&dec->bits) || dec->stop >= dec->end ||
        dec->stop_code != 0xD0 + dec->expected_restart) {
        decline(dec);
    }
    size_t at = dec->stop;
    while (dec->data[at] == 0xFF) at++;
    dec->expected_restart = (dec->expected_restart + 1) & 7;
    open_interval(dec, at + 1);
}

// MARK: - Decoding an MCU

// Reads one block's AC coefficients (zig-zag positions 1...63) into `block` (zero on entry), or with `keep`
// unset only past them. Declines on a code the table lacks. A quick entry takes at most FAST_BITS bits, so four
// fit in the 56 a top-up leaves; a code read the long way (up to 31 bits with its value) checks for itself.
static inline __attribute__((always_inline)) void decode_ac(tip_sequential *dec, bit_reader *b, JCOEF *block,
                                                            const uint64_t *quick, const huffman_table *t,
                                                            int keep) {
    for (int k = 1; k < 64;) {
        // At least 56 bits, for four lookups of at most FAST_BITS each.
        refill(b);
        for (int lookup = 0; lookup < 4; lookup++) {
            uint64_t entry = quick[peek(b, FAST_BITS)];
            if (!entry) goto slow;
            k += (entry >> 8) & 0xFF;
            if (keep) block[tip_jpeg_natural_order[k - 1]] = (JCOEF)(entry >> 16);
            if (k >= 64) {
                drop(b, entry & 0xFF);  // the block ends: the next bits are the next block's
                return;
            }
            drop(b, (entry >> 32) & 0xFF);
            k += (entry >> 40) & 0xFF;
            if (keep) block[tip_jpeg_natural_order[k - 1]] = (JCOEF)(entry >> 48);
            if (k >= 64) return;
        }
        continue;
    slow:
        if (b->count < 32) fill(b);
        int symbol = decode_symbol(b, t);
        if (symbol < 0) decline(dec);
        int run = symbol >> 4, magnitude = symbol & 15;
        if (magnitude) {
            k += run;
            uint32_t bits = take_bits(b, magnitude);
            if (keep) block[tip_jpeg_natural_order[k]] = (JCOEF)extend(bits, magnitude);
            k++;
        } else if (run == 15) {
            k += 16;
        } else {
            return;
        }
    }
}

// libjpeg's entropy decoder entry: one MCU into `MCU_data` (its blocks zero on entry), T.81 F.2.2.
static boolean decode_mcu(j_decompress_ptr cinfo, JBLOCKROW *MCU_data) {
    tip_sequential *dec = (tip_sequential *)cinfo->client_data;
    if (!MCU_data || dec->decoded >= dec->mcus) decline(dec);
    if (cinfo->restart_interval) {
        if (dec->restarts_to_go == 0) {
            next_interval(dec);
            dec->restarts_to_go = cinfo->restart_interval;
        }
        dec->restarts_to_go--;
    }
    bit_reader b = dec->bits;
    for (int j = 0; j < dec->blocks; j++) {
        JCOEF *block = MCU_data[j][0];
        int c = dec->member[j], difference;
        if (b.count < 32) fill(&b);
        if (!dc_difference(&b, dec->dc[j], &difference)) decline(dec);
        long long predicted = (long long)dec->predictor[c] + difference;
        if (predicted > INT_MAX || predicted < INT_MIN) decline(dec);
        dec->predictor[c] = (int)predicted;
        block[0] = (JCOEF)predicted;
        if (dec->keep_ac[j]) {
            decode_ac(dec, &b, block, dec->quick[j], dec->ac[j], 1);
        } else {
            decode_ac(dec, &b, block, dec->quick[j], dec->ac[j], 0);
        }
    }
    dec->bits = b;
    // The last MCU: the scan's data must end with it.
    if (++dec->decoded == dec->mcus && (!interval_complete(&dec->bits) || dec->stop != dec->end)) decline(dec);
    return TRUE;
}

// Puts our decode_mcu in libjpeg's place for the scan just started, and moves libjpeg's source past the scan's
// data (our decoder reads it from `data` directly). 0 when the scan is not one we take.
static int hook(tip_sequential *dec, const uint8_t *data, size_t size) {
    j_decompress_ptr cinfo = &dec->cinfo;
    if (cinfo->blocks_in_MCU < 1 || cinfo->blocks_in_MCU > D_MAX_BLOCKS_IN_MCU) return 0;
    if (cinfo->comps_in_scan < 1 || cinfo->comps_in_scan > MAX_COMPS_IN_SCAN) return 0;
    if (cinfo->unread_marker != 0 || !cinfo->entropy || !cinfo->src) return 0;
    const uint8_t *next = cinfo->src->next_input_byte;
    if (next < data || next > data + size || (size_t)(data + size - next) != cinfo->src->bytes_in_buffer) return 0;
    size_t start = (size_t)(next - data);
    dec->blocks = cinfo->blocks_in_MCU;
    for (int j = 0; j < dec->blocks; j++) {
        int c = cinfo->MCU_membership[j];
        if (c < 0 || c >= cinfo->comps_in_scan) return 0;
        jpeg_component_info *comp = cinfo->cur_comp_info[c];
        int d = comp->dc_tbl_no, a = comp->ac_tbl_no;
        if (d < 0 || d >= NUM_HUFF_TBLS || a < 0 || a >= NUM_HUFF_TBLS) return 0;
        int fresh = !dec->ac_tables[a].defined;
        if (!table(&dec->dc_tables[d], cinfo->dc_huff_tbl_ptrs[d], 1)) return 0;
        if (!table(&dec->ac_tables[a], cinfo->ac_huff_tbl_ptrs[a], 0)) return 0;
        if (fresh) build_quick(dec->quick_tables[a], &dec->ac_tables[a]);
        dec->member[j] = c;
        dec->dc[j] = &dec->dc_tables[d];
        dec->ac[j] = &dec->ac_tables[a];
        dec->quick[j] = dec->quick_tables[a];
        // libjpeg's own rule: the AC coefficients matter unless the inverse DCT is 1x1 (or the component unused).
        dec->keep_ac[j] = comp->component_needed && comp->DCT_scaled_size > 1;
    }
    dec->data = data;
    // Fill bytes inside the data (a run of 0xFF before a stuffed zero, which libjpeg reads as one 0xFF data byte, as
    // our reader does): libjpeg-turbo's fast path takes the second 0xFF for a marker and decodes the MCU again on
    // its slow path over the blocks it already wrote, so TurboJPEG keeps coefficients that are not the file's. We
    // decline. Fill bytes before a restart marker are fine.
    int fill_bytes;
    dec->end = tip_jpeg_entropy_end_fill(data, size, start, &fill_bytes);
    if (fill_bytes) return 0;
    dec->mcus = (size_t)cinfo->MCUs_per_row * cinfo->MCU_rows_in_scan;
    dec->decoded = 0;
    dec->restarts_to_go = cinfo->restart_interval;
    dec->expected_restart = 0;
    open_interval(dec, start);
    cinfo->src->next_input_byte = data + dec->end;
    cinfo->src->bytes_in_buffer = size - dec->end;
    cinfo->entropy->decode_mcu = decode_mcu;
    return 1;
}

// MARK: - Decoding

int tip_jpeg_decode_sequential(const uint8_t *data, size_t size, int scale_num, int scale_denom, int out_space,
                               uint8_t *destination, size_t pitch, int width, int height) {
    // Read again after a longjmp from libjpeg or from our decoder: volatile, so not cached in registers.
    tip_sequential *volatile dec = (tip_sequential *)malloc(sizeof(tip_sequential));
    volatile int created = 0, result = 1;
    if (!dec || size < 4) goto done;
    dec->warnings = 0;
    for (int t = 0; t < NUM_HUFF_TBLS; t++) dec->dc_tables[t].defined = dec->ac_tables[t].defined = 0;
    dec->cinfo.err = jpeg_std_error(&dec->pub);
    dec->pub.error_exit = sequential_error_exit;
    dec->pub.emit_message = sequential_emit_message;
    dec->pub.output_message = sequential_output_message;
    dec->cinfo.client_data = dec;  // kept by jpeg_create_decompress; its own errors reach our handler through it
    if (setjmp(dec->jump)) goto done;
    jpeg_create_decompress(&dec->cinfo);
    created = 1;
    jpeg_mem_src(&dec->cinfo, data, (unsigned long)size);
    jpeg_read_header(&dec->cinfo, TRUE);
    // Sequential, Huffman-coded, 8-bit, every component in the one scan (libjpeg's single-pass decoding).
    if (dec->cinfo.progressive_mode || dec->cinfo.arith_code || dec->cinfo.data_precision != 8) goto done;
    if (dec->cinfo.comps_in_scan != dec->cinfo.num_components) goto done;
    dec->cinfo.scale_num = (unsigned int)scale_num;
    dec->cinfo.scale_denom = (unsigned int)scale_denom;
    dec->cinfo.out_color_space = tip_jpeg_out_color_space(out_space);
    jpeg_start_decompress(&dec->cinfo);
    if ((int)dec->cinfo.output_width != width || (int)dec->cinfo.output_height != height) goto done;
    if (dec->warnings != 0 || !hook(dec, data, size)) goto done;
    while (dec->cinfo.output_scanline < dec->cinfo.output_height) {
        JSAMPROW rows[16];
        JDIMENSION first = dec->cinfo.output_scanline, count = dec->cinfo.output_height - first;
        if (count > 16) count = 16;
        for (JDIMENSION i = 0; i < count; i++) rows[i] = destination + (size_t)(first + i) * pitch;
        if (jpeg_read_scanlines(&dec->cinfo, rows, count) == 0) goto done;
    }
    jpeg_finish_decompress(&dec->cinfo);
    result = dec->warnings == 0 ? 0 : 1;
done:
    if (created) jpeg_destroy_decompress(&dec->cinfo);
    free((void *)dec);
    return result;
}
