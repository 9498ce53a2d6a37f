// The scans of a progressive JPEG, decoded into libjpeg's coefficient arrays (ITU-T T.81, G.1.2.1 to
// G.1.2.3). The AC scans are most of a progressive file's bytes and, through libjpeg's per-coefficient loops,
// most of its decoding time (the refinement scans above all); the DC scans, one or two codes a block, cost
// libjpeg a function call and a restart check per MCU. This decoder differs from libjpeg's in how, never in
// what: a scan runs in one loop with the bit buffer in registers; a 10-bit table decodes most codes, and in
// first scans the code and its value bits together; end-of-band runs skip whole blocks; and a 64-bit mask per
// block of the AC coefficients already set (zig-zag order) lets a refinement scan reach them, and the zero
// ones it counts, without reading the others; a block's correction bits are gathered as it is read and applied
// at its end (with AVX-512, in two masked adds). The coefficients are libjpeg's, bit for bit (the tests compare
// them on every file they decode), and anything libjpeg would warn about makes it decline instead. At a reduced
// scale, the coefficients the inverse DCT never reads do not get their refinement bits (`used`): the pixels are
// still libjpeg's.
// The arrays of the planes whose AC scans are decoded need not be zero on entry: a block is cleared just before
// its first nonzero AC coefficient is written (its mask still 0), while the walk has it in the cache, and the
// end of the walk clears the blocks that never got one. A separate pass zeroing the whole arrays first cost as
// much as the DC scans, and its lines were out of the cache again by the time the AC scans came to them.
#include <stdlib.h>
#include <string.h>
#if defined(__x86_64__)
#include <cpuid.h>
#include <immintrin.h>
#endif
#include "jpeg_progressive_ac.h"
#include "CJPEGIncremental.h"
#include "jpeg_huffman.h"

// The scan decoders used with PDEP are compiled for the instructions that come with it (BMI1, BMI2, POPCNT;
// fast_pdep checks all three): the bit reader's variable shifts become SHLX/SHRX, free of flags and of the CL
// register, and the bit tricks ANDN, BLSR and TZCNT, about 9% fewer instructions in the scans.
#if defined(__x86_64__)
#define TIP_BMI2 __attribute__((target("bmi,bmi2,popcnt")))
#define TIP_AVX512 __attribute__((target("bmi,bmi2,popcnt,avx512f,avx512bw,avx512bitalg")))
#else
#define TIP_BMI2
#endif
#define MAX_PLANES 4
#define MAX_BLOCKS_IN_MCU 10  // libjpeg's D_MAX_BLOCKS_IN_MCU: an interleaved scan with more is an error

// Clears a block before its first nonzero AC coefficient (see the file comment).
static inline void clear_block(JCOEF *block) { memset(block, 0, sizeof(JBLOCK)); }

// See jpeg_huffman.h.
const uint8_t tip_jpeg_natural_order[128] = {
     0,  1,  8, 16,  9,  2,  3, 10, 17, 24, 32, 25, 18, 11,  4,  5, 12, 19, 26, 33, 40, 48, 41, 34, 27, 20, 13,
     6,  7, 14, 21, 28, 35, 42, 49, 56, 57, 50, 43, 36, 29, 22, 15, 23, 30, 37, 44, 51, 58, 59, 52, 45, 38, 31,
    39, 46, 53, 60, 61, 54, 47, 55, 62, 63, 63, 63, 63, 63, 63, 63, 63, 63, 63, 63, 63, 63, 63, 63, 63, 63, 63,
    63, 63, 63, 63, 63, 63, 63, 63, 63, 63, 63, 63, 63, 63, 63, 63, 63, 63, 63, 63, 63, 63, 63, 63, 63, 63, 63,
    63, 63, 63, 63, 63, 63, 63, 63, 63, 63, 63, 63, 63, 63, 63, 63, 63, 63, 63, 63,
};

// MARK: - Markers and entropy-coded data

size_t tip_jpeg_entropy_end(const uint8_t *data, size_t size, size_t from) {
    int fill_bytes;
    return tip_jpeg_entropy_end_fill(data, size, from, &fill_bytes);
}

size_t tip_jpeg_entropy_end_fill(const uint8_t *data, size_t size, size_t from, int *fill_bytes) {
    *fill_bytes = 0;
    size_t i = from;
    while (i < size) {
        const uint8_t *ff = memchr(data + i, 0xFF, size - i);
        if (!ff) return size;
        size_t run = (size_t)(ff - data), j = run;
        while (j < size && data[j] == 0xFF) j++;  // fill bytes
        if (j >= size) return size;
        uint8_t next = data[j];
        if (next != 0x00 && !(next >= 0xD0 && next <= 0xD7)) return run;
        if (next == 0x00 && j - run > 1) *fill_bytes = 1;
        i = j + 1;
    }
    return size;
}

// See jpeg_huffman.h.
size_t tip_jpeg_next_marker(const uint8_t *data, size_t end, size_t from, uint8_t *code) {
    size_t i = from;
    *code = 0;
    while (i < end) {
        const uint8_t *ff = memchr(data + i, 0xFF, end - i);
        if (!ff) return end;
        size_t run = (size_t)(ff - data), j = run;
        while (j < end && data[j] == 0xFF) j++;
        if (j >= end) return end;
        if (data[j] != 0x00) {
            *code = data[j];
            return run;
        }
        i = j + 1;
    }
    return end;
}

uint64_t tip_jpeg_zigzag_positions(uint8_t rows, uint8_t columns) {
    uint64_t positions = 0;
    for (int k = 0; k < 64; k++) {
        int natural = tip_jpeg_natural_order[k];
        if ((rows >> (natural / 8) & 1) && (columns >> (natural % 8) & 1)) positions |= 1ULL << k;
    }
    return positions;
}

// MARK: - Huffman tables

// See jpeg_huffman.h.
int tip_jpeg_build_huffman_table(huffman_table *t, const uint8_t *counts, const uint8_t *symbols, int total, int dc) {
    memset(t->fast, 0, sizeof t->fast);
    memset(t->fast_first, 0, sizeof t->fast_first);
    memcpy(t->symbols, symbols, (size_t)total);
    int32_t code = 0;
    int k = 0;
    for (int length = 1; length <= 16; length++) {
        t->offset[length] = k - code;
        for (int i = 0; i < counts[length - 1]; i++, k++, code++) {
            // The all-ones code or past it (an over-subscribed table): libjpeg refuses the table. Checked before
            // the code indexes the lookup tables, which it would overrun.
            if (code >= ((int32_t)1 << length) - 1) return 0;
            if (length > FAST_BITS) continue;
            int spread = FAST_BITS - length;
            uint8_t symbol = symbols[k];
            int run = symbol >> 4, magnitude = symbol & 15;
            for (int low = 0; low < (1 << spread); low++) {
                int index = (int)(code << spread) | low;
                t->fast[index] = (uint16_t)(length << 8 | symbol);
                if ((magnitude > 0 || dc) && length + magnitude <= FAST_BITS) {
                    uint32_t bits = (uint32_t)index >> (spread - magnitude) & ((1u << magnitude) - 1);
                    int value = magnitude ? extend(bits, magnitude) : 0;
                    t->fast_first[index] = (int32_t)((uint32_t)value << 8) | run << 4 | (length + magnitude);
                }
            }
        }
        t->maxcode[length] = counts[length - 1] ? code - 1 : -1;
        code <<= 1;
    }
    if (dc) {
        for (int i = 0; i < total; i++) {
            if (symbols[i] > 15) return 0;  // a DC magnitude past 15
        }
    }
    return 1;
}

// MARK: - Scans

typedef struct {
    const uint8_t *data;
    int Ss, Se, Ah, Al;
    const huffman_table *table;
    tip_ac_plane *plane;
    int eobrun;
} ac_scan;

// First scan (Ah == 0) over `blocks` blocks from block `index`. 0 on a bad code or a run past the band.
static inline __attribute__((always_inline)) int decode_first(ac_scan *scan, bit_reader *b, size_t index,
                                                              size_t blocks) {
    const huffman_table *t = scan->table;
    tip_ac_plane *plane = scan->plane;
    const int Ss = scan->Ss, Se = scan->Se, Al = scan->Al;
    const size_t width = (size_t)plane->width_in_blocks;
    size_t end = index + blocks;
    int eobrun = scan->eobrun;
    while (index < end) {
        if (eobrun > 0) {
            size_t skip = (size_t)eobrun < end - index ? (size_t)eobrun : end - index;
            index += skip;
            eobrun -= (int)skip;
            continue;
        }
        JCOEF *block = plane->rows[index / width][index % width];
        uint64_t mask = plane->nonzero[index];
        if (mask == 0 && !plane->keep_blocks) clear_block(block);
        for (int k = Ss; k <= Se;) {
            if (b->count < 32) fill(b);
            int32_t quick = t->fast_first[peek(b, FAST_BITS)];
            if (quick) {
                drop(b, quick & 15);
                k += (quick >> 4) & 15;
                if (k > Se) return 0;
                JCOEF value = (JCOEF)((unsigned)(quick >> 8) << Al);
                block[tip_jpeg_natural_order[k]] = value;
                mask |= (uint64_t)(value != 0) << k;
                k++;
                continue;
            }
            int symbol = decode_symbol(b, t);
            if (symbol < 0) return 0;
            int run = symbol >> 4, magnitude = symbol & 15;
            if (magnitude) {
                k += run;
                if (k > Se) return 0;
                JCOEF value = (JCOEF)((unsigned)extend(take_bits(b, magnitude), magnitude) << Al);
                block[tip_jpeg_natural_order[k]] = value;
                mask |= (uint64_t)(value != 0) << k;
                k++;
            } else if (run == 15) {
                k += 16;
            } else {
                eobrun = (1 << run) + (int)take_bits(b, run) - 1;  // this block ends the first of the run
                break;
            }
        }
        plane->nonzero[index] = mask;
        index++;
    }
    scan->eobrun = eobrun;
    return 1;
}

// MARK: - Selecting a set bit

// Whether PDEP (BMI2) is there and fast: from Haswell on at Intel, from Zen 3 on at AMD (family 19h). Zen 1
// and 2 run it in microcode, in up to hundreds of cycles. BMI1 and POPCNT, which every such processor has, are
// checked too: the decoders used with PDEP are compiled for them (TIP_BMI2).
static int fast_pdep(void) {
#if defined(__x86_64__)
    unsigned a, b, c, d;
    if (!__get_cpuid_count(7, 0, &a, &b, &c, &d) || !(b & (1u << 8)) || !(b & (1u << 3))) return 0;  // BMI2, BMI1
    if (!__get_cpuid(1, &a, &b, &c, &d) || !(c & (1u << 23))) return 0;  // POPCNT
    unsigned words[3];  // the vendor string: EBX, EDX, ECX
    if (!__get_cpuid(0, &a, &words[0], &words[2], &words[1])) return 0;
    char vendor[13] = {0};
    memcpy(vendor, words, 12);
    if (strcmp(vendor, "AuthenticAMD") != 0) return strcmp(vendor, "GenuineIntel") == 0;
    if (!__get_cpuid(1, &a, &b, &c, &d)) return 0;
    unsigned family = (a >> 8) & 15;
    if (family == 15) family += (a >> 20) & 255;
    return family >= 0x19;
#else
    return 0;
#endif
}

// Whether the processor and the OS have what apply_corrections_avx512 uses: AVX-512 F and BW, BITALG (for
// VPSHUFBITQMB), and the OS saving the opmask and ZMM registers (XCR0 bits 1, 2, 5, 6 and 7).
static int has_avx512_bitalg(void) {
#if defined(__x86_64__)
    unsigned a, b, c, d;
    if (!__get_cpuid(1, &a, &b, &c, &d) || !(c & (1u << 27))) return 0;  // OSXSAVE
    if (!__get_cpuid_count(7, 0, &a, &b, &c, &d)) return 0;
    if (!(b & (1u << 16)) || !(b & (1u << 30)) || !(c & (1u << 12))) return 0;  // AVX512F, AVX512BW, BITALG
    unsigned lo, hi;
    __asm__("xgetbv" : "=a"(lo), "=d"(hi) : "c"(0));
    return (lo & 0xE6) == 0xE6;
#else
    return 0;
#endif
}

#if defined(__x86_64__)
// PDEP: the low bits of `source` placed, in order, on the set bits of `mask`. Inline assembly, so the file builds
// for any x86-64; only called once fast_pdep said yes.
static inline uint64_t pdep64(uint64_t source, uint64_t mask) {
    uint64_t deposited;
    __asm__("pdepq %2, %1, %0" : "=r"(deposited) : "r"(source), "rm"(mask));
    return deposited;
}
#endif

// `mask` with all but its (n + 1)th lowest set bit cleared by its lowest ones, n < 64: its lowest set bit is
// the one wanted, and it is 0 when `mask` has at most n bits. With PDEP (`pdep`: checked by the caller), one
// instruction in place of a loop whose end the processor mispredicts.
static inline __attribute__((always_inline)) uint64_t select_bit(uint64_t mask, int n, int pdep) {
#if defined(__x86_64__)
    if (pdep) return pdep64(1ULL << n, mask);
#endif
    (void)pdep;
    for (int i = 0; i < n && mask; i++) mask &= mask - 1;
    return mask;
}

// A correction bit of 1 for the coefficient `c`: adds p1 to its magnitude unless that bit is set already.
// Without branches.
static inline void refine(JCOEF *c, int p1) {
    int value = *c, sign = value >> 31;  // 0 or -1
    int apply = -((value & p1) == 0);
    *c = (JCOEF)(value + (((p1 ^ sign) - sign) & apply));
}

// A block's correction bits as a refinement scan reads them: one for each coefficient set before the scan, in
// zig-zag order, in runs between the codes. With PDEP, `bits` holds them in the order read (the first one
// highest), `count` how many and `positions` the coefficients they belong to, and they are placed once the block
// is done; without it, `ones` gets the positions of those that are 1 as they are read.
typedef struct {
    uint64_t bits, positions, ones;
    int count;
} corrections;

// Reads the correction bits of the coefficients set in `positions` (all past those read before in the block).
// Without branches on their values, which are as good as random. With PDEP (`pdep`: checked by the caller), nor
// on how many there are (none, often): more than 32 (rare) take two reads. Without it, a bit at a time (a C loop
// over the main job's progressive files took 1.08 of this one's time with the PDEP version's reads and a loop to
// place the bits).
static inline __attribute__((always_inline)) void read_corrections(bit_reader *b, corrections *c,
                                                                   uint64_t positions, int pdep) {
    if (pdep) {
        int n = __builtin_popcountll(positions);
        c->positions |= positions;
        c->count += n;
        if (__builtin_expect(n > 32, 0)) {
            if (b->count < 32) fill(b);
            c->bits = c->bits << 32 | peek(b, 32);
            drop(b, 32);
            n -= 32;
        }
        if (b->count < 32) fill(b);
        c->bits = c->bits << n | (b->buffer >> 32) >> (32 - n);  // n <= 32 bits; none when n is 0
        drop(b, n);
        return;
    }
    while (positions) {
        if (b->count == 0) fill(b);
        int k = __builtin_ctzll(positions);
        positions &= positions - 1;
        c->ones |= (b->buffer >> 63) << k;
        drop(b, 1);
    }
}

// The positions of a block's correction bits that are 1. With PDEP (`pdep`: checked by the caller), one
// instruction places them.
static inline __attribute__((always_inline)) uint64_t correction_ones(const corrections *c, int pdep) {
#if defined(__x86_64__)
    if (pdep) return c->count ? pdep64(__builtin_bitreverse64(c->bits) >> (64 - c->count), c->positions) : 0;
#endif
    (void)pdep;
    return c->ones;
}

#if defined(__x86_64__)
// The zig-zag position of each natural-order coefficient (the inverse of tip_jpeg_natural_order).
static const uint8_t zigzag_of_natural[64] __attribute__((aligned(64))) = {
     0,  1,  5,  6, 14, 15, 27, 28,  2,  4,  7, 13, 16, 26, 29, 42,  3,  8, 12, 17, 25, 30, 41, 43,
     9, 11, 18, 24, 31, 40, 44, 53, 10, 19, 23, 32, 39, 45, 52, 54, 20, 22, 33, 38, 46, 51, 55, 60,
    21, 34, 37, 47, 50, 56, 59, 61, 35, 36, 48, 49, 57, 58, 62, 63,
};

// apply_corrections with AVX-512: VPSHUFBITQMB turns the zig-zag bits into a mask in natural order, and two masked
// adds over 32 coefficients each apply them, with no branch on which bits are set.
static inline TIP_AVX512 void apply_corrections_avx512(JCOEF *block, uint64_t ones, int p1) {
    __mmask64 natural = _mm512_bitshuffle_epi64_mask(_mm512_set1_epi64((long long)ones),
                                                     _mm512_load_si512((const void *)zigzag_of_natural));
    const __m512i plus = _mm512_set1_epi16((short)p1), minus = _mm512_set1_epi16((short)-p1);
    for (int half = 0; half < 2; half++) {
        __m512i v = _mm512_loadu_si512((const void *)(block + 32 * half));
        __mmask32 wanted = (__mmask32)(natural >> (32 * half));
        __mmask32 unset = _mm512_mask_testn_epi16_mask(wanted, v, plus);  // that bit not set yet
        __m512i step = _mm512_mask_mov_epi16(plus, _mm512_movepi16_mask(v), minus);
        _mm512_storeu_si512((void *)(block + 32 * half), _mm512_mask_add_epi16(v, unset, v, step));
    }
}
#endif

// Applies a block's correction bits that are 1 (`ones`, zig-zag positions of coefficients set before the scan):
// each adds p1 to its coefficient's magnitude unless that bit is set already. A refinement scan gives every set
// coefficient one bit and never corrects a coefficient it set itself, so the bits of a whole block can wait for
// its end and be applied at once. With AVX-512 (`simd`: checked by the caller), without a loop.
static inline __attribute__((always_inline)) void apply_corrections(JCOEF *block, uint64_t ones, int p1, int simd) {
#if defined(__x86_64__)
    if (simd) {
        if (ones) apply_corrections_avx512(block, ones, p1);
        return;
    }
#endif
    (void)simd;
    while (ones) {
        refine(&block[tip_jpeg_natural_order[__builtin_ctzll(ones)]], p1);
        ones &= ones - 1;
    }
}

// The zig-zag positions from `k` on, as a mask (none when k is 64).
static inline uint64_t from(int k) { return k >= 64 ? 0 : ~0ULL << k; }

// Refinement scan (Ah > 0) over `blocks` blocks from block `index`. 0 on a bad code or a coefficient past the
// band.
static inline __attribute__((always_inline)) int decode_refine(
    ac_scan *scan, bit_reader *b, size_t index, size_t blocks, int pdep, int simd) {
    const huffman_table *t = scan->table;
    tip_ac_plane *plane = scan->plane;
    const int Ss = scan->Ss, Se = scan->Se;
    const int p1 = 1 << scan->Al, m1 = -(1 << scan->Al);
    const uint64_t band = from(Ss) & (~0ULL >> (63 - Se));
    const size_t width = (size_t)plane->width_in_blocks;
    size_t end = index + blocks;
    int eobrun = scan->eobrun;
    size_t row = index / width, column = index % width;
    for (; index < end; index++) {
        JCOEF *block = plane->rows[row][column];
        if (++column == width) {
            column = 0;
            row++;
        }
        uint64_t mask = plane->nonzero[index];
        corrections read = {0, 0, 0, 0};
        int k = Ss;
        if (eobrun == 0) {
            while (k <= Se) {
                if (b->count < 32) fill(b);
                int symbol = decode_symbol(b, t);
                if (symbol < 0) return 0;
                int run = symbol >> 4, magnitude = symbol & 15, value = 0;
                if (magnitude) {
                    if (magnitude != 1) return 0;  // libjpeg warns and reads it as 1
                    value = take_bits(b, 1) ? p1 : m1;
                } else if (run != 15) {
                    eobrun = (1 << run) + (int)take_bits(b, run);
                    break;
                }
                // The coefficient lands on the (run + 1)th zero one from k (a ZRL passes 16 of them); the set
                // ones on the way get their correction bits.
                uint64_t ahead = ~0ULL << k;  // k <= Se <= 63 here
                uint64_t zeros = select_bit(~mask & band & ahead, run, pdep);
                if (!zeros) {
                    if (magnitude) return 0;
                    read_corrections(b, &read, mask & band & ahead, pdep);
                    k = Se + 1;
                    break;
                }
                int target = __builtin_ctzll(zeros);
                read_corrections(b, &read, mask & ahead & ((1ULL << target) - 1), pdep);
                if (magnitude) {
                    if (mask == 0 && !plane->keep_blocks) clear_block(block);
                    block[tip_jpeg_natural_order[target]] = (JCOEF)value;
                    mask |= 1ULL << target;
                }
                k = target + 1;
            }
        }
        if (eobrun > 0) {
            read_corrections(b, &read, mask & band & from(k), pdep);
            eobrun--;
        }
        apply_corrections(block, correction_ones(&read, pdep) & plane->used, p1, simd);
        plane->nonzero[index] = mask;
    }
    scan->eobrun = eobrun;
    return 1;
}

// Decodes the scan whose entropy-coded data is [start, end), in restart intervals of `restart` blocks (0: one
// interval). 0 when it must be declined.
static inline __attribute__((always_inline)) int decode_scan(
    ac_scan *scan, size_t start, size_t end, int restart, int pdep, int simd) {
    tip_ac_plane *plane = scan->plane;
    size_t total = (size_t)plane->width_in_blocks * (size_t)plane->height_in_blocks;
    size_t interval = restart > 0 ? (size_t)restart : total;
    size_t position = start;
    int expected = 0;
    for (size_t index = 0; index < total; index += interval) {
        size_t blocks = total - index < interval ? total - index : interval;
        uint8_t code = 0;
        size_t stop = tip_jpeg_next_marker(scan->data, end, position, &code);
        int last = index + blocks >= total;
        // Between intervals, the next restart marker in sequence; after the last, nothing until the scan's end.
        if (last ? stop != end : !(code == 0xD0 + expected)) return 0;
        bit_reader b = {scan->data + position, scan->data + stop, 0, 0, 0};
        fill(&b);
        scan->eobrun = 0;
        int ok = scan->Ah == 0 ? decode_first(scan, &b, index, blocks)
                               : decode_refine(scan, &b, index, blocks, pdep, simd);
        if (!ok || b.phantom > b.count) return 0;
        if (!last) {
            while (scan->data[stop] == 0xFF) stop++;
            position = stop + 1;
            expected = (expected + 1) & 7;
        }
    }
    return 1;
}

// The scan decoder: plain; with PDEP (compiled for BMI1, BMI2 and POPCNT); and with PDEP and AVX-512 for the
// refinement scans' corrections (apply_corrections_avx512). On the 124 progressive files of the main job's corpus
// decoded at their thumbnail scales (a C loop, `farm-bench`, 20 alternated pairs), gathering the correction bits
// of a block and placing them at its end took 0.90-0.91 of the time of placing and applying them at each code
// with PDEP, and 0.87-0.88 with AVX-512's corrections.
static int decode_scan_plain(ac_scan *scan, size_t start, size_t end, int restart) {
    return decode_scan(scan, start, end, restart, 0, 0);
}

TIP_BMI2 static int decode_scan_pdep(ac_scan *scan, size_t start, size_t end, int restart) {
    return decode_scan(scan, start, end, restart, 1, 0);
}

#if defined(__x86_64__)
TIP_AVX512 static int decode_scan_avx512(ac_scan *scan, size_t start, size_t end, int restart) {
    return decode_scan(scan, start, end, restart, 1, 1);
}
#endif

// Whether the scans use PDEP, and AVX-512 with it: -1 until the first decode asks (racing first calls store the
// same value).
static int use_pdep = -1, use_avx512 = -1;

// A setting above: `use` 1 sets it to what `available` says, 0 clears it, -1 keeps it (the first call finds it
// out). Returns it.
static int instruction_setting(int *setting, int use, int (*available)(void)) {
    if (use >= 0) {
        __atomic_store_n(setting, use && available(), __ATOMIC_RELAXED);
    } else if (__atomic_load_n(setting, __ATOMIC_RELAXED) < 0) {
        __atomic_store_n(setting, available(), __ATOMIC_RELAXED);
    }
    return __atomic_load_n(setting, __ATOMIC_RELAXED);
}

int tip_jpeg_ac_use_pdep(int use) { return instruction_setting(&use_pdep, use, fast_pdep); }

int tip_jpeg_ac_use_avx512(int use) { return instruction_setting(&use_avx512, use, has_avx512_bitalg); }

typedef int (*scan_decoder_fn)(ac_scan *, size_t, size_t, int);

// The scan decoder the processor and the settings above allow.
static scan_decoder_fn scan_decoder(void) {
    if (!tip_jpeg_ac_use_pdep(-1)) return decode_scan_plain;
#if defined(__x86_64__)
    if (tip_jpeg_ac_use_avx512(-1)) return decode_scan_avx512;
#endif
    return decode_scan_pdep;
}

int tip_jpeg_decode_ac_scan(const uint8_t *data, size_t end, tip_ac_plane *plane, int Ss, int Se, int Ah, int Al,
                            const uint8_t *counts, const uint8_t *symbols, int restart) {
    if (Ss < 1 || Ss > Se || Se > 63 || (Ah != 0 && Al != Ah - 1) || Al > 13 || restart < 0) return 0;
    if (plane->width_in_blocks < 1 || plane->height_in_blocks < 1) return 0;
    int total = 0;
    for (int l = 0; l < 16; l++) total += counts[l];
    if (total > 256) return 0;
    huffman_table *table = (huffman_table *)malloc(sizeof(huffman_table));
    if (!table) return 0;
    int ok = tip_jpeg_build_huffman_table(table, counts, symbols, total, 0);
    if (ok) {
        ac_scan scan = {data, Ss, Se, Ah, Al, table, plane, 0};
        ok = scan_decoder()(&scan, 0, end, restart);
    }
    free(table);
    return ok;
}

// MARK: - DC scans

// One component of a DC scan, and its DC predictor.
typedef struct {
    tip_ac_plane *plane;
    const huffman_table *table;  // first scans
    int h, v;                    // its blocks in an MCU: its sampling factors when interleaved, else 1 x 1
    int predictor;
} dc_member;

typedef struct {
    const uint8_t *data;
    int Ah, Al;
    int count;
    dc_member members[MAX_PLANES];
    size_t mcus_per_row, mcus;
} dc_scan;

// The blocks of an MCU are listed once (their member and offset from the MCU's corner) and each member's
// corner moves along the MCU rows. 0 on a bad code, or a predictor past int (libjpeg's JERR_BAD_DCT_COEF).
static inline __attribute__((always_inline)) int decode_dc_mcus(dc_scan *scan, bit_reader *b, size_t index,
                                                                size_t count) {
    const int Al = scan->Al, first = scan->Ah == 0;
    int member[MAX_BLOCKS_IN_MCU], blocks = 0;
    size_t offset[MAX_BLOCKS_IN_MCU];
    JCOEF *corner[MAX_PLANES];
    int predictor[MAX_PLANES];
    size_t mcu_row = index / scan->mcus_per_row, mcu_column = index % scan->mcus_per_row;
    for (int c = 0; c < scan->count; c++) {
        const dc_member *m = &scan->members[c];
        size_t stride = (size_t)m->plane->array_width;
        for (int y = 0; y < m->v; y++) {
            for (int x = 0; x < m->h; x++) {
                member[blocks] = c;
                offset[blocks++] = (size_t)y * stride + (size_t)x;
            }
        }
        corner[c] = m->plane->dc + mcu_row * (size_t)m->v * stride + mcu_column * (size_t)m->h;
        predictor[c] = m->predictor;
    }
    for (; count > 0; count--) {
        if (first) {
            for (int j = 0; j < blocks; j++) {
                int c = member[j], difference;
                if (b->count < 32) fill(b);
                if (!dc_difference(b, scan->members[c].table, &difference)) return 0;
                long long predicted = (long long)predictor[c] + difference;
                if (predicted > 0x7FFFFFFF || predicted < -0x7FFFFFFF - 1) return 0;
                predictor[c] = (int)predicted;
                corner[c][offset[j]] = (JCOEF)((unsigned)predicted << Al);
            }
        } else {
            if (b->count < 32) fill(b);  // at most 10 bits an MCU
            for (int j = 0; j < blocks; j++) {
                JCOEF *coefficient = &corner[member[j]][offset[j]];
                *coefficient = (JCOEF)(*coefficient | (int)(b->buffer >> 63) << Al);
                drop(b, 1);
            }
        }
        if (++mcu_column < scan->mcus_per_row) {
            for (int c = 0; c < scan->count; c++) corner[c] += scan->members[c].h;
        } else {
            mcu_column = 0;
            mcu_row++;
            for (int c = 0; c < scan->count; c++) {
                const dc_member *m = &scan->members[c];
                corner[c] = m->plane->dc + mcu_row * (size_t)m->v * (size_t)m->plane->array_width;
            }
        }
    }
    for (int c = 0; c < scan->count; c++) scan->members[c].predictor = predictor[c];
    return 1;
}

// Decodes the DC scan whose entropy-coded data is [start, end), in restart intervals of `restart` MCUs (0:
// one interval). 0 when it must be declined.
static inline __attribute__((always_inline)) int decode_dc_scan(dc_scan *scan, size_t start, size_t end,
                                                                int restart) {
    size_t interval = restart > 0 ? (size_t)restart : scan->mcus;
    size_t position = start;
    int expected = 0;
    for (size_t index = 0; index < scan->mcus; index += interval) {
        size_t count = scan->mcus - index < interval ? scan->mcus - index : interval;
        uint8_t code = 0;
        size_t stop = tip_jpeg_next_marker(scan->data, end, position, &code);
        int last = index + count >= scan->mcus;
        if (last ? stop != end : !(code == 0xD0 + expected)) return 0;
        bit_reader b = {scan->data + position, scan->data + stop, 0, 0, 0};
        fill(&b);
        for (int c = 0; c < scan->count; c++) scan->members[c].predictor = 0;
        if (!decode_dc_mcus(scan, &b, index, count) || b.phantom > b.count) return 0;
        if (!last) {
            while (scan->data[stop] == 0xFF) stop++;
            position = stop + 1;
            expected = (expected + 1) & 7;
        }
    }
    return 1;
}

// The DC scan decoder, for processors without PDEP and for those with it (compiled for BMI1, BMI2 and POPCNT).
static int decode_dc_scan_plain(dc_scan *scan, size_t start, size_t end, int restart) {
    return decode_dc_scan(scan, start, end, restart);
}

TIP_BMI2 static int decode_dc_scan_bmi2(dc_scan *scan, size_t start, size_t end, int restart) {
    return decode_dc_scan(scan, start, end, restart);
}

// MARK: - The walk over the file

static int segment_length(const uint8_t *data, size_t size, size_t at, size_t *end) {
    if (at + 4 > size) return 0;
    size_t length = (size_t)data[at + 2] << 8 | data[at + 3];
    if (length < 2 || at + 2 + length > size) return 0;
    *end = at + 2 + length;
    return 1;
}

// DHT: every table of the segment [at + 4, end), into `dc` and `ac`. 0 when libjpeg would refuse the segment.
static int read_tables(const uint8_t *data, size_t at, size_t end, huffman_table *dc, huffman_table *ac) {
    size_t i = at + 4;
    while (i < end) {
        if (i + 17 > end) return 0;
        int index = data[i];
        int total = 0;
        for (int l = 0; l < 16; l++) total += data[i + 1 + l];
        if (total > 256 || i + 17 + (size_t)total > end) return 0;
        int is_ac = index & 0x10, number = index & ~0x10;
        if (number < 0 || number >= 4) return 0;
        // A table libjpeg would refuse is an error only once a scan uses it.
        huffman_table *t = is_ac ? &ac[number] : &dc[number];
        t->defined = tip_jpeg_build_huffman_table(t, data + i + 1, data + i + 17, total, !is_ac);
        i += 17 + (size_t)total;
    }
    return i == end;
}

int tip_jpeg_decode_scans(const uint8_t *data, size_t size, tip_ac_plane *planes, int plane_count, int mcus_per_row,
                          int mcu_rows) {
    if (plane_count < 1 || plane_count > MAX_PLANES || size < 4 || data[0] != 0xFF || data[1] != 0xD8) return 1;
    if (mcus_per_row < 1 || mcu_rows < 1) return 1;
    int has_pdep = tip_jpeg_ac_use_pdep(-1);
    scan_decoder_fn decode_ac = scan_decoder();
    huffman_table dc_tables[4], tables[4];  // about 52 KB
    for (int i = 0; i < 4; i++) dc_tables[i].defined = tables[i].defined = 0;
    // libjpeg's progression bookkeeping (coef_bits): the last Al of each coefficient, -1 before any scan.
    int bits[MAX_PLANES][64];
    memset(bits, 0xFF, sizeof bits);
    int restart = 0, scans = 0;
    size_t i = 2;
    for (;;) {
        if (i >= size || data[i] != 0xFF) return 1;  // garbage between segments: libjpeg warns
        while (i + 1 < size && data[i + 1] == 0xFF) i++;
        if (i + 1 >= size) return 1;
        uint8_t marker = data[i + 1];
        if (marker == 0xD9) break;
        size_t end;
        if (!segment_length(data, size, i, &end)) return 1;
        switch (marker) {
        case 0xC4:
            if (!read_tables(data, i, end, dc_tables, tables)) return 1;
            break;
        case 0xCC:  // arithmetic conditioning
            return 1;
        case 0xDD:
            if (end - i != 6) return 1;
            restart = data[i + 4] << 8 | data[i + 5];
            break;
        case 0xDA: {
            int count = data[i + 4];
            if (count < 1 || count > 4 || end - i != 2 + 6 + 2 * (size_t)count) return 1;
            const uint8_t *tail = data + i + 5 + 2 * count;
            int Ss = tail[0], Se = tail[1], Ah = tail[2] >> 4, Al = tail[2] & 15;
            int is_dc = Ss == 0;
            if ((is_dc ? Se != 0 : (Ss > Se || Se > 63 || count != 1)) || (Ah != 0 && Al != Ah - 1) || Al > 13) return 1;
            tip_ac_plane *plane = NULL;
            dc_scan dc = {data, Ah, Al, count, {{0}}, 0, 0};
            int blocks_in_mcu = 0;
            for (int c = 0; c < count; c++) {
                int id = data[i + 5 + 2 * c], index = -1;
                for (int p = 0; p < plane_count && index < 0; p++) {
                    if (planes[p].component_id == id) index = p;
                }
                if (index < 0) return 1;
                for (int d = 0; d < c; d++) {
                    if (data[i + 5 + 2 * d] == id) return 1;  // the same component twice
                }
                if (!is_dc && bits[index][0] < 0) return 1;  // AC before DC
                for (int k = Ss; k <= Se; k++) {
                    if (Ah != (bits[index][k] < 0 ? 0 : bits[index][k])) return 1;
                    bits[index][k] = Al;
                }
                plane = &planes[index];
                int h = count > 1 ? plane->h_samp : 1, v = count > 1 ? plane->v_samp : 1;
                int table = data[i + 6 + 2 * c] >> 4;
                if (is_dc && Ah == 0 && (table >= 4 || !dc_tables[table].defined)) return 1;
                dc.members[c] = (dc_member){plane, is_dc && Ah == 0 ? &dc_tables[table] : NULL, h, v, 0};
                blocks_in_mcu += h * v;
                // An interleaved scan's MCUs cover whole sampling units, padding blocks included.
                if (count > 1 && ((size_t)mcus_per_row * (size_t)h > (size_t)plane->array_width ||
                                  (size_t)mcu_rows * (size_t)v > (size_t)plane->array_height)) {
                    return 1;
                }
            }
            if (blocks_in_mcu > MAX_BLOCKS_IN_MCU) return 1;
            size_t data_end = tip_jpeg_entropy_end(data, size, end);
            if (data_end >= size) return 1;
            if (is_dc) {
                dc.mcus_per_row = count > 1 ? (size_t)mcus_per_row : (size_t)plane->width_in_blocks;
                dc.mcus = count > 1 ? (size_t)mcus_per_row * (size_t)mcu_rows
                                    : (size_t)plane->width_in_blocks * (size_t)plane->height_in_blocks;
                int (*decode_dc)(dc_scan *, size_t, size_t, int) =
                    has_pdep ? decode_dc_scan_bmi2 : decode_dc_scan_plain;
                if (dc.mcus > 0 && !decode_dc(&dc, end, data_end, restart)) return 1;
            } else {
                // libjpeg builds an AC scan's table whether or not its coefficients are read at the output
                // scale, and a table it refuses is a fatal error: so it is for a left-out plane too.
                int table = data[i + 6] & 15;
                if (table >= 4 || !tables[table].defined) return 1;
                if (plane->decode) {
                    ac_scan scan = {data, Ss, Se, Ah, Al, &tables[table], plane, 0};
                    if (!decode_ac(&scan, end, data_end, restart)) return 1;
                }
            }
            scans++;
            end = data_end;
            break;
        }
        default:
            // Other segments with a length. libjpeg reads the ones before the first scan (the frame, the
            // quantization tables, application data and comments) and refuses what it must there; after it,
            // this walk takes only application data, comments and DNL (which libjpeg skips). A quantization
            // table defined after the first scan would be latched by the components scanned later: declined.
            if (scans > 0 && !((marker >= 0xE0 && marker <= 0xEF) || marker == 0xFE || marker == 0xDC)) return 1;
            if ((marker >= 0xC0 && marker <= 0xCF) && marker != 0xC2) return 1;
            if (marker < 0xC0 || (marker >= 0xD0 && marker <= 0xD8)) return 1;
            break;
        }
        i = end;
    }
    // Every coefficient of every plane complete (left-out planes included: libjpeg's smoothing is on for all
    // components once one is incomplete, and may change the DC of a plane without AC): the caller decodes with
    // smoothing off, which is then what libjpeg would do.
    for (int p = 0; p < plane_count; p++) {
        for (int k = 0; k < 64; k++) {
            if (bits[p][k] != 0) return 1;
        }
    }
    // The DC coefficients into the arrays, padding blocks included (zero where no scan reached). A decoded
    // plane's blocks without a nonzero AC coefficient (padding blocks among them) are cleared first.
    for (int p = 0; p < plane_count; p++) {
        const tip_ac_plane *plane = &planes[p];
        const JCOEF *dc = plane->dc;
        for (int r = 0; r < plane->array_height; r++) {
            JBLOCKROW row = plane->rows[r];
            const uint64_t *nonzero = plane->decode && r < plane->height_in_blocks
                                          ? plane->nonzero + (size_t)r * (size_t)plane->width_in_blocks
                                          : NULL;
            for (int c = 0; c < plane->array_width; c++) {
                int has_ac = nonzero && c < plane->width_in_blocks && nonzero[c] != 0;
                if (plane->decode && !has_ac) clear_block(row[c]);
                row[c][0] = *dc++;
            }
        }
    }
    return 0;
}
