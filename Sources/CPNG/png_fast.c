// One-shot decode of a complete, non-interlaced, 8-bit PNG already in memory: the chunks are walked
// here, the zlib stream is inflated in one libdeflate call and the rows are unfiltered and converted
// straight into the caller's canvas. Anything this path is not sure to decode exactly as the libpng
// reader would (including every kind of damage) is refused, so the caller falls back to libpng.
#include "CPNG.h"
#include <libdeflate.h>
#include <stdlib.h>
#include <string.h>
#if defined(__linux__)
#include <sys/mman.h>
#endif
#if defined(__SSE2__)
#include <emmintrin.h>
#endif

enum { COLOR_GRAY = 0, COLOR_RGB = 2, COLOR_PALETTE = 3, COLOR_GRAY_ALPHA = 4, COLOR_RGBA = 6 };

#define CHUNK(a, b, c, d) (((uint32_t)(a) << 24) | ((uint32_t)(b) << 16) | ((uint32_t)(c) << 8) | (uint32_t)(d))
#define CHUNK_IHDR CHUNK('I', 'H', 'D', 'R')
#define CHUNK_PLTE CHUNK('P', 'L', 'T', 'E')
#define CHUNK_IDAT CHUNK('I', 'D', 'A', 'T')
#define CHUNK_IEND CHUNK('I', 'E', 'N', 'D')
#define CHUNK_TRNS CHUNK('t', 'R', 'N', 'S')

// The libpng reader's limit for chunks other than IDAT (png_set_chunk_malloc_max in png_reader.c).
#define ANCILLARY_LIMIT (8u * 1024u * 1024u)

static inline uint32_t load_be32(const uint8_t *p) {
    return ((uint32_t)p[0] << 24) | ((uint32_t)p[1] << 16) | ((uint32_t)p[2] << 8) | (uint32_t)p[3];
}

static inline int is_letter(uint8_t c) {
    return (c >= 'A' && c <= 'Z') || (c >= 'a' && c <= 'z');
}

// Whether the CRC stored after a chunk's data matches its type and data.
static int crc_matches(const uint8_t *chunk, uint32_t length) {
    uint32_t crc = libdeflate_crc32(0, chunk + 4, (size_t)length + 4);
    return crc == load_be32(chunk + 8 + length);
}

// Exact round(value * alpha / 255) for value, alpha in 0...255 (the same formula as png_reader.c).
static inline uint8_t mul255(unsigned value, unsigned alpha) {
    unsigned t = value * alpha + 128;
    return (uint8_t)((t + (t >> 8)) >> 8);
}

// MARK: - Unfiltering (in place; `prev` is the previous unfiltered row, zeros for the first)

static void unfilter_sub(uint8_t *row, size_t n, size_t bpp) {
    for (size_t i = bpp; i < n; i++) row[i] = (uint8_t)(row[i] + row[i - bpp]);
}

static void unfilter_up(uint8_t *restrict row, const uint8_t *restrict prev, size_t n) {
    for (size_t i = 0; i < n; i++) row[i] = (uint8_t)(row[i] + prev[i]);
}

static void unfilter_average(uint8_t *restrict row, const uint8_t *restrict prev, size_t n, size_t bpp) {
    for (size_t i = 0; i < bpp; i++) row[i] = (uint8_t)(row[i] + (prev[i] >> 1));
    for (size_t i = bpp; i < n; i++) row[i] = (uint8_t)(row[i] + ((row[i - bpp] + prev[i]) >> 1));
}

static inline uint8_t paeth_predictor(int a, int b, int c) {
    int pa = abs(b - c), pb = abs(a - c), pc = abs(a + b - 2 * c);
    if (pa <= pb && pa <= pc) return (uint8_t)a;
    return (uint8_t)(pb <= pc ? b : c);
}

static void unfilter_paeth_scalar(uint8_t *restrict row, const uint8_t *restrict prev, size_t n, size_t bpp) {
    for (size_t i = 0; i < bpp; i++) row[i] = (uint8_t)(row[i] + prev[i]);
    for (size_t i = bpp; i < n; i++) row[i] = (uint8_t)(row[i] + paeth_predictor(row[i - bpp], prev[i], prev[i - bpp]));
}

#if defined(__SSE2__)
static inline __m128i load4(const uint8_t *p) {
    int32_t v;
    memcpy(&v, p, 4);
    return _mm_cvtsi32_si128(v);
}

static inline __m128i abs16(__m128i v) {
    return _mm_max_epi16(v, _mm_sub_epi16(_mm_setzero_si128(), v));
}

// Paeth for 3 or 4 bytes per pixel, one pixel per step in 16-bit lanes. Each step reads
// and writes 4 bytes; for 3-byte pixels the fourth lane's prediction is masked to zero, so the byte
// after the pixel is written back unchanged. The next pixel is loaded before the current one is
// stored (the loads would otherwise wait on partly overlapping stores). The caller guarantees 8
// readable and 1 writable byte past the row, and 4 readable bytes past `prev`.
static inline __attribute__((always_inline))
void unfilter_paeth_sse2(uint8_t *restrict row, const uint8_t *restrict prev, size_t n, const size_t bpp) {
    const __m128i zero = _mm_setzero_si128();
    const __m128i mask = bpp == 3 ? _mm_set_epi32(0, 0, 0x0000FFFF, -1) : _mm_set_epi32(0, 0, -1, -1);
    __m128i a = zero, c = zero;
    __m128i x = load4(row);
    for (size_t i = 0; i < n; i += bpp) {
        __m128i b = _mm_unpacklo_epi8(load4(prev + i), zero);
        __m128i bc = _mm_sub_epi16(b, c), ac = _mm_sub_epi16(a, c);
        __m128i pa = abs16(bc), pb = abs16(ac), pc = abs16(_mm_add_epi16(bc, ac));
        __m128i smallest = _mm_min_epi16(_mm_min_epi16(pa, pb), pc);
        __m128i use_a = _mm_cmpeq_epi16(pa, smallest);
        __m128i use_b = _mm_cmpeq_epi16(pb, smallest);
        __m128i b_or_c = _mm_or_si128(_mm_and_si128(use_b, b), _mm_andnot_si128(use_b, c));
        __m128i pred = _mm_and_si128(_mm_or_si128(_mm_and_si128(use_a, a), _mm_andnot_si128(use_a, b_or_c)), mask);
        c = b;
        __m128i out = _mm_add_epi8(x, _mm_packus_epi16(pred, pred));
        x = load4(row + i + bpp);
        int32_t v = _mm_cvtsi128_si32(out);
        memcpy(row + i, &v, 4);
        a = _mm_unpacklo_epi8(out, zero);
    }
}

// Average in the byte domain: floor((a + b) / 2) = pavgb(a, b) - ((a ^ b) & 1), both terms masked
// off the fourth byte for 3-byte pixels (same access pattern and guarantees as unfilter_paeth_sse2).
static inline __attribute__((always_inline))
void unfilter_average_bytes_sse2(uint8_t *restrict row, const uint8_t *restrict prev, size_t n, const size_t bpp) {
    const __m128i mask = bpp == 3 ? _mm_cvtsi32_si128(0x00FFFFFF) : _mm_cvtsi32_si128(-1);
    const __m128i ones = bpp == 3 ? _mm_cvtsi32_si128(0x00010101) : _mm_cvtsi32_si128(0x01010101);
    __m128i a = _mm_setzero_si128();
    __m128i x = load4(row);
    for (size_t i = 0; i < n; i += bpp) {
        __m128i b = load4(prev + i);
        __m128i pred = _mm_sub_epi8(_mm_and_si128(_mm_avg_epu8(a, b), mask), _mm_and_si128(_mm_xor_si128(a, b), ones));
        __m128i out = _mm_add_epi8(x, pred);
        x = load4(row + i + bpp);
        int32_t v = _mm_cvtsi128_si32(out);
        memcpy(row + i, &v, 4);
        a = out;
    }
}

static void unfilter_paeth3_sse2(uint8_t *restrict row, const uint8_t *restrict prev, size_t n) { unfilter_paeth_sse2(row, prev, n, 3); }
static void unfilter_paeth4_sse2(uint8_t *restrict row, const uint8_t *restrict prev, size_t n) { unfilter_paeth_sse2(row, prev, n, 4); }
static void unfilter_average3_sse2(uint8_t *restrict row, const uint8_t *restrict prev, size_t n) { unfilter_average_bytes_sse2(row, prev, n, 3); }
static void unfilter_average4_sse2(uint8_t *restrict row, const uint8_t *restrict prev, size_t n) { unfilter_average_bytes_sse2(row, prev, n, 4); }
#endif

static int unfilter_row(uint8_t filter, uint8_t *restrict row, const uint8_t *restrict prev, size_t n, size_t bpp) {
    switch (filter) {
    case 0: return 1;
    case 1: unfilter_sub(row, n, bpp); return 1;
    case 2: unfilter_up(row, prev, n); return 1;
    case 3:
#if defined(__SSE2__)
        if (bpp == 3) { unfilter_average3_sse2(row, prev, n); return 1; }
        if (bpp == 4) { unfilter_average4_sse2(row, prev, n); return 1; }
#endif
        unfilter_average(row, prev, n, bpp);
        return 1;
    case 4:
#if defined(__SSE2__)
        if (bpp == 3) { unfilter_paeth3_sse2(row, prev, n); return 1; }
        if (bpp == 4) { unfilter_paeth4_sse2(row, prev, n); return 1; }
#endif
        unfilter_paeth_scalar(row, prev, n, bpp);
        return 1;
    default: return 0;
    }
}

// MARK: - Conversion into canvas rows

// RGB to R, G, B, 0xFF. Reads one byte past the row (the caller guarantees it is readable).
static void convert_rgb_to_rgbx(const uint8_t *restrict src, uint8_t *restrict dst, uint32_t width) {
    for (uint32_t x = 0; x < width; x++) {
        uint32_t v;
        memcpy(&v, src + (size_t)x * 3, 4);
        v |= 0xFF000000u;  // little-endian: the fourth byte
        memcpy(dst + (size_t)x * 4, &v, 4);
    }
}

static void convert_rgba_premultiplied(const uint8_t *restrict src, uint8_t *restrict dst, uint32_t width) {
    uint32_t x = 0;
#if defined(__SSE2__)
    const __m128i zero = _mm_setzero_si128();
    const __m128i alpha_lanes = _mm_set_epi32((int)0xFF000000u, (int)0xFF000000u, (int)0xFF000000u, (int)0xFF000000u);
    // Multiplier 255 in each pixel's alpha lane leaves alpha unchanged: round(a * 255 / 255) = a.
    const __m128i alpha_keep = _mm_set_epi16(255, 0, 0, 0, 255, 0, 0, 0);
    const __m128i rgb_mask = _mm_set_epi16(0, -1, -1, -1, 0, -1, -1, -1);
    const __m128i rounding = _mm_set1_epi16(128);
    for (; x + 4 <= width; x += 4) {
        __m128i p = _mm_loadu_si128((const __m128i *)(const void *)(src + (size_t)x * 4));
        if (_mm_movemask_epi8(_mm_cmpeq_epi8(_mm_and_si128(p, alpha_lanes), alpha_lanes)) == 0xFFFF) {
            _mm_storeu_si128((__m128i *)(void *)(dst + (size_t)x * 4), p);
            continue;
        }
        __m128i lo = _mm_unpacklo_epi8(p, zero), hi = _mm_unpackhi_epi8(p, zero);
        __m128i alo = _mm_shufflehi_epi16(_mm_shufflelo_epi16(lo, 0xFF), 0xFF);
        __m128i ahi = _mm_shufflehi_epi16(_mm_shufflelo_epi16(hi, 0xFF), 0xFF);
        alo = _mm_or_si128(_mm_and_si128(alo, rgb_mask), alpha_keep);
        ahi = _mm_or_si128(_mm_and_si128(ahi, rgb_mask), alpha_keep);
        __m128i tlo = _mm_add_epi16(_mm_mullo_epi16(lo, alo), rounding);
        __m128i thi = _mm_add_epi16(_mm_mullo_epi16(hi, ahi), rounding);
        tlo = _mm_srli_epi16(_mm_add_epi16(tlo, _mm_srli_epi16(tlo, 8)), 8);
        thi = _mm_srli_epi16(_mm_add_epi16(thi, _mm_srli_epi16(thi, 8)), 8);
        _mm_storeu_si128((__m128i *)(void *)(dst + (size_t)x * 4), _mm_packus_epi16(tlo, thi));
    }
#endif
    for (; x < width; x++) {
        const uint8_t *s = src + (size_t)x * 4;
        uint8_t *d = dst + (size_t)x * 4;
        unsigned alpha = s[3];
        d[0] = mul255(s[0], alpha);
        d[1] = mul255(s[1], alpha);
        d[2] = mul255(s[2], alpha);
        d[3] = (uint8_t)alpha;
    }
}

static void convert_gray_alpha(const uint8_t *restrict src, uint8_t *restrict dst, uint32_t width) {
    for (uint32_t x = 0; x < width; x++) {
        unsigned gray = src[2 * (size_t)x], alpha = src[2 * (size_t)x + 1];
        uint8_t v = mul255(gray, alpha);
        uint8_t *d = dst + (size_t)x * 4;
        d[0] = v; d[1] = v; d[2] = v; d[3] = (uint8_t)alpha;
    }
}

static void convert_gray_keyed(const uint8_t *restrict src, uint8_t *restrict dst, uint32_t width, uint8_t key) {
    for (uint32_t x = 0; x < width; x++) {
        uint32_t g = src[x];
        uint32_t v = g == key ? 0 : (g | (g << 8) | (g << 16) | 0xFF000000u);
        memcpy(dst + (size_t)x * 4, &v, 4);
    }
}

static void convert_rgb_keyed(const uint8_t *restrict src, uint8_t *restrict dst, uint32_t width, uint32_t key) {
    for (uint32_t x = 0; x < width; x++) {
        const uint8_t *s = src + (size_t)x * 3;
        uint32_t rgb = (uint32_t)s[0] | ((uint32_t)s[1] << 8) | ((uint32_t)s[2] << 16);
        uint32_t v = rgb == key ? 0 : (rgb | 0xFF000000u);
        memcpy(dst + (size_t)x * 4, &v, 4);
    }
}

// Returns 0 when an index has no palette entry (libpng's handling of those is left to libpng).
static int convert_palette(const uint8_t *restrict src, uint8_t *restrict dst, uint32_t width,
                           const uint32_t *restrict table, const uint8_t *restrict valid) {
    unsigned ok = 1;
    for (uint32_t x = 0; x < width; x++) {
        uint8_t index = src[x];
        ok &= valid[index];
        memcpy(dst + (size_t)x * 4, &table[index], 4);
    }
    return (int)ok;
}

// MARK: - The decode

typedef struct {
    uint8_t color_type;
    uint32_t palette_count;
    uint8_t palette[256 * 3];
    uint32_t trns_count;  // palette: entries; gray / RGB: 1 when a key colour is set
    uint8_t trns[256];
    uint32_t key;  // gray value, or R | G << 8 | B << 16
    size_t idat_total;
    uint32_t idat_chunks;
    size_t first_idat;  // offset of the first IDAT's data
} scan_result;

// Walks every chunk up to IEND; 0 when the layout is one this path decodes exactly as libpng would.
static int scan(const uint8_t *data, size_t size, uint32_t width, uint32_t height, scan_result *out) {
    static const uint8_t signature[8] = {0x89, 0x50, 0x4E, 0x47, 0x0D, 0x0A, 0x1A, 0x0A};
    if (size < 8 + 25 || memcmp(data, signature, 8) != 0) return TIP_PNG_FAST_UNSUPPORTED;
    const uint8_t *ihdr = data + 8;
    if (load_be32(ihdr) != 13 || load_be32(ihdr + 4) != CHUNK_IHDR || !crc_matches(ihdr, 13)) return TIP_PNG_FAST_UNSUPPORTED;
    if (load_be32(ihdr + 8) != width || load_be32(ihdr + 12) != height) return TIP_PNG_FAST_UNSUPPORTED;
    uint8_t depth = ihdr[16], color = ihdr[17];
    if (depth != 8 || ihdr[18] != 0 || ihdr[19] != 0 || ihdr[20] != 0) return TIP_PNG_FAST_UNSUPPORTED;
    if (color != COLOR_GRAY && color != COLOR_RGB && color != COLOR_PALETTE && color != COLOR_GRAY_ALPHA && color != COLOR_RGBA) {
        return TIP_PNG_FAST_UNSUPPORTED;
    }
    out->color_type = color;
    size_t channels = color == COLOR_RGBA ? 4 : color == COLOR_RGB ? 3 : color == COLOR_GRAY_ALPHA ? 2 : 1;
    // libpng refuses an IDAT chunk longer than the whole image could need (png_check_chunk_length).
    size_t row_factor = (size_t)width * channels + 1;
    size_t idat_limit = (size_t)height > 0xFFFFFFFFu / row_factor ? 0x7FFFFFFFu : (size_t)height * row_factor;
    size_t factor_cap = row_factor > 32566 ? 32566 : row_factor;
    idat_limit += 6 + 5 * (idat_limit / factor_cap + 1);
    if (idat_limit > 0x7FFFFFFFu) idat_limit = 0x7FFFFFFFu;
    if (idat_limit < ANCILLARY_LIMIT) idat_limit = ANCILLARY_LIMIT;

    int idat_state = 0;  // 0 before, 1 inside the IDAT run, 2 after it
    int have_palette = 0, have_trns = 0;
    size_t pos = 8 + 25;
    for (;;) {
        if (size - pos < 12) return TIP_PNG_FAST_UNSUPPORTED;
        const uint8_t *chunk = data + pos;
        uint32_t length = load_be32(chunk);
        if (length > 0x7FFFFFFFu || size - pos - 12 < length) return TIP_PNG_FAST_UNSUPPORTED;
        if (!is_letter(chunk[4]) || !is_letter(chunk[5]) || !is_letter(chunk[6]) || !is_letter(chunk[7])) return TIP_PNG_FAST_UNSUPPORTED;
        uint32_t type = load_be32(chunk + 4);
        if (type == CHUNK_IDAT) {
            if (idat_state == 2 || length == 0 || length > idat_limit || !crc_matches(chunk, length)) return TIP_PNG_FAST_UNSUPPORTED;
            if (idat_state == 0) {
                if (color == COLOR_PALETTE && !have_palette) return TIP_PNG_FAST_UNSUPPORTED;
                out->first_idat = pos + 8;
            }
            idat_state = 1;
            out->idat_total += length;
            out->idat_chunks++;
        } else {
            if (idat_state == 1) idat_state = 2;
            if (type == CHUNK_IEND) {
                if (idat_state == 0 || length != 0 || !crc_matches(chunk, 0)) return TIP_PNG_FAST_UNSUPPORTED;
                return TIP_PNG_FAST_OK;
            } else if (type == CHUNK_PLTE) {
                if (idat_state != 0 || have_palette || (color != COLOR_RGB && color != COLOR_PALETTE && color != COLOR_RGBA)) return TIP_PNG_FAST_UNSUPPORTED;
                if (length == 0 || length % 3 != 0 || length > 256 * 3 || !crc_matches(chunk, length)) return TIP_PNG_FAST_UNSUPPORTED;
                have_palette = 1;
                out->palette_count = length / 3;
                memcpy(out->palette, chunk + 8, length);
            } else if (type == CHUNK_TRNS) {
                if (idat_state != 0 || have_trns || !crc_matches(chunk, length)) return TIP_PNG_FAST_UNSUPPORTED;
                const uint8_t *p = chunk + 8;
                if (color == COLOR_PALETTE) {
                    if (!have_palette || length == 0 || length > out->palette_count) return TIP_PNG_FAST_UNSUPPORTED;
                    memcpy(out->trns, p, length);
                    out->trns_count = length;
                } else if (color == COLOR_GRAY) {
                    if (length != 2 || p[0] != 0) return TIP_PNG_FAST_UNSUPPORTED;
                    out->key = p[1];
                    out->trns_count = 1;
                } else if (color == COLOR_RGB) {
                    if (length != 6 || p[0] != 0 || p[2] != 0 || p[4] != 0) return TIP_PNG_FAST_UNSUPPORTED;
                    out->key = (uint32_t)p[1] | ((uint32_t)p[3] << 8) | ((uint32_t)p[5] << 16);
                    out->trns_count = 1;
                } else {
                    return TIP_PNG_FAST_UNSUPPORTED;
                }
                have_trns = 1;
            } else if ((chunk[4] & 0x20) == 0) {
                // Another critical chunk (a second IHDR, or one libpng does not know): libpng fails.
                return TIP_PNG_FAST_UNSUPPORTED;
            } else if (length > ANCILLARY_LIMIT) {
                return TIP_PNG_FAST_UNSUPPORTED;
            }
            // Other ancillary chunks are skipped unread, as the libpng reader skips them.
        }
        pos += 12 + (size_t)length;
    }
}

// The inflated rows are written whole at once: from 256 KiB to 16 MiB they come from the caller's scratch
// allocator (TIP's pool of kept mappings, warm from the decode before) or else get a mapping whose pages are
// provided in one call (MAP_POPULATE) instead of a page fault per 4 KiB as libdeflate first writes them (14% of
// a warm main job's page faults, from its 24 PNGs). Larger sizes, which a hostile header can announce for a
// stream that stops early, stay with malloc and cost only the pages written.
#define RAW_MAPPED_MIN ((size_t)256 << 10)
#define RAW_MAPPED_MAX ((size_t)16 << 20)

// Where the inflated rows live: `kind` says how to give them back (0 malloc, 1 own mapping, 2 scratch).
typedef struct {
    uint8_t *pointer;
    size_t length;
    int kind;
} raw_buffer;

static raw_buffer raw_allocate(size_t size, const tip_png_scratch_allocator *scratch) {
    raw_buffer raw = {NULL, size, 0};
    if (size >= RAW_MAPPED_MIN && size <= RAW_MAPPED_MAX) {
        if (scratch != NULL) {
            size_t length = 0;
            void *pointer = scratch->allocate(size, &length);
            if (pointer != NULL && length >= size) {
                raw = (raw_buffer){(uint8_t *)pointer, length, 2};
                return raw;
            }
            if (pointer != NULL) scratch->release(pointer, length);
        }
#if defined(__linux__) && defined(MAP_POPULATE)
        void *pointer = mmap(NULL, size, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS | MAP_POPULATE, -1, 0);
        if (pointer != MAP_FAILED) {
            raw = (raw_buffer){(uint8_t *)pointer, size, 1};
            return raw;
        }
#endif
    }
    raw.pointer = (uint8_t *)malloc(size);
    return raw;
}

static void raw_free(raw_buffer raw, const tip_png_scratch_allocator *scratch) {
    if (raw.pointer == NULL) return;
    switch (raw.kind) {
    case 2:
        scratch->release(raw.pointer, raw.length);
        return;
#if defined(__linux__)
    case 1:
        munmap(raw.pointer, raw.length);
        return;
#endif
    default:
        free(raw.pointer);
    }
}

int tip_png_fast_decode(const uint8_t *data, size_t size, uint32_t width, uint32_t height, int output_format,
                        uint8_t *canvas, size_t stride, const tip_png_scratch_allocator *scratch) {
    if (data == NULL || canvas == NULL || width == 0 || height == 0) return TIP_PNG_FAST_UNSUPPORTED;
    scan_result info;
    memset(&info, 0, sizeof(info));
    int status = scan(data, size, width, height, &info);
    if (status != TIP_PNG_FAST_OK) return status;

    uint8_t color = info.color_type;
    int expected_format;
    if (color == COLOR_GRAY_ALPHA || color == COLOR_RGBA || info.trns_count > 0) expected_format = TIP_PNG_OUTPUT_RGBA8_PREMULTIPLIED;
    else expected_format = color == COLOR_GRAY ? TIP_PNG_OUTPUT_GRAY8 : TIP_PNG_OUTPUT_RGBX8;
    if (output_format != expected_format) return TIP_PNG_FAST_UNSUPPORTED;
    size_t channels = color == COLOR_RGBA ? 4 : color == COLOR_RGB ? 3 : color == COLOR_GRAY_ALPHA ? 2 : 1;
    size_t rowbytes = (size_t)width * channels;
    if (stride < (size_t)width * (output_format == TIP_PNG_OUTPUT_GRAY8 ? 1 : 4)) return TIP_PNG_FAST_UNSUPPORTED;
    size_t raw_size;
    if (__builtin_mul_overflow((size_t)height, rowbytes + 1, &raw_size) || raw_size > SIZE_MAX - 16) {
        return TIP_PNG_FAST_UNSUPPORTED;
    }

    // libpng's zlib inflates with the window the stream header declares and fails on distances
    // beyond it, which libdeflate does not check. A window at least as large as the whole output
    // cannot be exceeded (libpng's encoder picks such windows for small images); other streams with
    // a small window are left to libpng.
    const uint8_t *stream = data + info.first_idat;
    unsigned window_log = (unsigned)(stream[0] >> 4) + 8;
    if (window_log < 15 && raw_size > ((size_t)1 << window_log)) return TIP_PNG_FAST_UNSUPPORTED;

    uint8_t *joined = NULL;
    if (info.idat_chunks > 1) {
        joined = (uint8_t *)malloc(info.idat_total);
        if (joined == NULL) return TIP_PNG_FAST_UNSUPPORTED;
        size_t pos = info.first_idat - 8, filled = 0;
        while (filled < info.idat_total) {
            uint32_t length = load_be32(data + pos);
            memcpy(joined + filled, data + pos + 8, length);
            filled += length;
            pos += 12 + (size_t)length;
        }
        stream = joined;
    }

    // 16 spare bytes (zeroed) let the row loops read and write a few bytes past the last row.
    raw_buffer buffer = raw_allocate(raw_size + 16, scratch);
    uint8_t *raw = buffer.pointer;
    uint8_t *zero_row = (uint8_t *)calloc(1, rowbytes + 16);
    struct libdeflate_decompressor *inflater = libdeflate_alloc_decompressor();
    status = TIP_PNG_FAST_UNSUPPORTED;
    if (raw == NULL || zero_row == NULL || inflater == NULL) goto done;
    memset(raw + raw_size, 0, 16);
    size_t consumed = 0, produced = 0;
    enum libdeflate_result result = libdeflate_zlib_decompress_ex(inflater, stream, info.idat_total, raw, raw_size,
                                                                  &consumed, &produced);
    libdeflate_free_decompressor(inflater);
    inflater = NULL;
    free(joined);
    joined = NULL;
    // The stream must fill every row exactly and end with the last IDAT byte.
    if (result != LIBDEFLATE_SUCCESS || produced != raw_size || consumed != info.idat_total) goto done;

    uint32_t table[256];
    uint8_t valid[256];
    if (color == COLOR_PALETTE) {
        for (uint32_t i = 0; i < 256; i++) {
            valid[i] = i < info.palette_count;
            uint32_t r = 0, g = 0, b = 0, a = 255;
            if (i < info.palette_count) {
                r = info.palette[3 * i]; g = info.palette[3 * i + 1]; b = info.palette[3 * i + 2];
            }
            if (i < info.trns_count) a = info.trns[i];
            if (info.trns_count > 0) {
                r = mul255(r, a); g = mul255(g, a); b = mul255(b, a);
            }
            table[i] = r | (g << 8) | (b << 16) | (a << 24);
        }
    }

    const uint8_t *prev = zero_row;
    for (uint32_t y = 0; y < height; y++) {
        uint8_t *line = raw + (size_t)y * (rowbytes + 1);
        uint8_t *row = line + 1;
        if (!unfilter_row(line[0], row, prev, rowbytes, channels)) goto done;
        uint8_t *dst = canvas + (size_t)y * stride;
        switch (color) {
        case COLOR_GRAY:
            if (info.trns_count > 0) convert_gray_keyed(row, dst, width, (uint8_t)info.key);
            else memcpy(dst, row, rowbytes);
            break;
        case COLOR_RGB:
            if (info.trns_count > 0) convert_rgb_keyed(row, dst, width, info.key);
            else convert_rgb_to_rgbx(row, dst, width);
            break;
        case COLOR_PALETTE:
            if (!convert_palette(row, dst, width, table, valid)) goto done;
            break;
        case COLOR_GRAY_ALPHA:
            convert_gray_alpha(row, dst, width);
            break;
        default:
            convert_rgba_premultiplied(row, dst, width);
            break;
        }
        prev = row;
    }
    status = TIP_PNG_FAST_OK;

done:
    if (inflater != NULL) libdeflate_free_decompressor(inflater);
    free(joined);
    raw_free(buffer, scratch);
    free(zero_row);
    return status;
}
