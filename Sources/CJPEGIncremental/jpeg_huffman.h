// The Huffman decoding shared by our scan decoders (jpeg_progressive_ac.c for progressive files, jpeg_sequential.c
// for sequential ones): a bit reader over one restart interval's entropy-coded data, and lookup tables built
// from a DHT table. Private to CJPEGIncremental.
#ifndef TIP_JPEG_HUFFMAN_H
#define TIP_JPEG_HUFFMAN_H

#include <stddef.h>
#include <stdint.h>
#include <string.h>

#define FAST_BITS 10

// The bits of one restart interval's data [p, end), where every run of 0xFF is followed by a stuffed zero.
// `buffer` holds `count` bits from its top, the rest zero or (after refill) the first bits of the byte at `p`,
// which the next read puts there again. Past the end it supplies zero bits and counts them in
// `phantom`: a decode that consumed any of them read past its data (libjpeg's "hit marker" warning).
typedef struct {
    const uint8_t *p, *end;
    uint64_t buffer;
    int count;
    int phantom;
} bit_reader;

static inline uint64_t load_be64(const uint8_t *p) {
    uint64_t x;
    memcpy(&x, p, 8);
    return __builtin_bswap64(x);
}

// Whether no byte of `x` is 0xFF (no zero byte in its complement): 8 bytes of data with no marker or stuffing.
static inline int no_ff_byte(uint64_t x) {
    uint64_t inverted = ~x;
    return ((inverted - 0x0101010101010101ULL) & ~inverted & 0x8080808080808080ULL) == 0;
}

// Brings `count` to at least 57.
static inline void fill(bit_reader *b) {
    if (b->end - b->p >= 8) {
        uint64_t x = load_be64(b->p);
        // No byte of x is 0xFF: take the whole bytes that fit.
        if (no_ff_byte(x)) {
            int take = (64 - b->count) >> 3;
            x &= ~0ULL << (64 - 8 * take);
            b->buffer |= x >> b->count;
            b->p += take;
            b->count += 8 * take;
            return;
        }
    }
    while (b->count <= 56) {
        if (b->p >= b->end) {
            b->phantom += 64 - b->count;
            b->count = 64;
            return;
        }
        uint64_t c = *b->p++;
        if (c == 0xFF) {
            while (*b->p == 0xFF) b->p++;  // more fill bytes; the stuffed zero follows inside the data
            b->p++;
        }
        b->buffer |= c << (56 - b->count);
        b->count += 8;
    }
}

// Tops the buffer up to at least 56 bits whatever `count` is, without a branch on how many bits are left (full,
// it is left alone): where the next 8 bytes hold no 0xFF, they are read at once and the buffer takes what fits
// (the bits past `count` are then those of the next byte, which a later read puts there again); else as fill
// does.
static inline void refill(bit_reader *b) {
    if (b->count < 64 && b->end - b->p >= 8) {
        uint64_t x = load_be64(b->p);
        if (no_ff_byte(x)) {
            b->buffer |= x >> b->count;
            b->p += (63 - b->count) >> 3;
            b->count |= 56;
            return;
        }
    }
    if (b->count <= 56) fill(b);
}

static inline uint32_t peek(const bit_reader *b, int n) { return (uint32_t)(b->buffer >> (64 - n)); }

static inline void drop(bit_reader *b, int n) {
    b->buffer <<= n;
    b->count -= n;
}

static inline uint32_t take_bits(bit_reader *b, int n) {
    if (n == 0) return 0;
    uint32_t v = peek(b, n);
    drop(b, n);
    return v;
}

// The value of `n` magnitude bits `v` (T.81 F.2.2.1, EXTEND).
static inline int extend(uint32_t v, int n) { return v < (1u << (n - 1)) ? (int)v - (1 << n) + 1 : (int)v; }

typedef struct {
    uint16_t fast[1 << FAST_BITS];     // (length << 8) | symbol for codes of at most FAST_BITS bits; 0: longer
    int32_t fast_first[1 << FAST_BITS]; // first scans: (value << 8) | (run << 4) | bits, code and value bits
                                        // together within FAST_BITS (in a DC table, a difference of 0 too);
                                        // 0: decode the long way
    int32_t maxcode[17];               // the largest code of each length, -1 when none
    int32_t offset[17];                // index in `symbols` of a code of each length, less the code
    uint8_t symbols[256];
    int defined;
} huffman_table;

// Zig-zag index to natural (row-major) index, then 64 entries of 63: a run that passes the last coefficient
// writes that one, as libjpeg's own table makes it do, and so does the sequential decoder's end of block, whose
// advance of 64 writes its value of 0 there (no coefficient was written there yet).
extern const uint8_t tip_jpeg_natural_order[128];

// Builds `t` from a DHT table's counts per length (1...16) and symbols, as a DC table (`dc`: symbols are
// magnitudes) or an AC one; 0 when libjpeg would refuse it.
int tip_jpeg_build_huffman_table(huffman_table *t, const uint8_t *counts, const uint8_t *symbols, int total, int dc);

// The next marker at or after `from` inside [from, end): the offset of its first 0xFF (or `end`), and its code.
size_t tip_jpeg_next_marker(const uint8_t *data, size_t end, size_t from, uint8_t *code);

// The next symbol, or -1 for a code the table lacks. Needs 16 bits in the buffer.
static inline int decode_symbol(bit_reader *b, const huffman_table *t) {
    uint16_t entry = t->fast[peek(b, FAST_BITS)];
    if (entry) {
        drop(b, entry >> 8);
        return entry & 0xFF;
    }
    for (int length = FAST_BITS + 1; length <= 16; length++) {
        int32_t code = (int32_t)peek(b, length);
        if (code <= t->maxcode[length]) {
            drop(b, length);
            return t->symbols[code + t->offset[length]];
        }
    }
    return -1;
}

// The next DC difference (T.81 F.2.2.1). Needs 32 bits in the buffer. 0 on a bad code.
static inline __attribute__((always_inline)) int dc_difference(bit_reader *b, const huffman_table *t,
                                                               int *difference) {
    int32_t quick = t->fast_first[peek(b, FAST_BITS)];
    if (quick) {
        drop(b, quick & 15);
        *difference = quick >> 8;
        return 1;
    }
    int magnitude = decode_symbol(b, t);
    if (magnitude < 0) return 0;
    *difference = magnitude ? extend(take_bits(b, magnitude), magnitude) : 0;
    return 1;
}

// `count` MCUs from MCU `index` of a DC scan (T.81 G.1.2.1), into the planes' `dc` arrays: a first scan

#endif
