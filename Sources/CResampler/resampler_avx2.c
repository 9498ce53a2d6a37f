// AVX2 passes of the resampler (see CResampler.h). Each function carries target("avx2"), so the file
// builds with the baseline x86-64 flags and the caller picks these paths only after
// tip_resampler_has_avx2(). Other architectures get stubs that are never selected.

#include "CResampler.h"

#include <stdlib.h>
#include <string.h>

#if defined(__x86_64__) || defined(__i386__)
#include <immintrin.h>

#define AVX2 __attribute__((target("avx2")))

enum { PRECISION = 14, HALF = 1 << (PRECISION - 1) };

int tip_resampler_has_avx2(void) {
    __builtin_cpu_init();
    return __builtin_cpu_supports("avx2") ? 1 : 0;
}

// Clamps colour channels to their pixel's alpha (byte 3 of each 4-byte pixel), or sets alpha to 255.
AVX2 static inline __m128i finish128(__m128i bytes, int finish) {
    if (finish == TIP_RESAMPLER_FINISH_PREMULTIPLIED) {
        const __m128i alpha = _mm_setr_epi8(3, 3, 3, 3, 7, 7, 7, 7, 11, 11, 11, 11, 15, 15, 15, 15);
        return _mm_min_epu8(bytes, _mm_shuffle_epi8(bytes, alpha));
    }
    if (finish == TIP_RESAMPLER_FINISH_OPAQUE) return _mm_or_si128(bytes, _mm_set1_epi32((int)0xFF000000u));
    return bytes;
}

AVX2 static inline __m256i finish256(__m256i bytes, int finish) {
    if (finish == TIP_RESAMPLER_FINISH_PREMULTIPLIED) {
        const __m256i alpha = _mm256_setr_epi8(3, 3, 3, 3, 7, 7, 7, 7, 11, 11, 11, 11, 15, 15, 15, 15,
                                               3, 3, 3, 3, 7, 7, 7, 7, 11, 11, 11, 11, 15, 15, 15, 15);
        return _mm256_min_epu8(bytes, _mm256_shuffle_epi8(bytes, alpha));
    }
    if (finish == TIP_RESAMPLER_FINISH_OPAQUE) return _mm256_or_si256(bytes, _mm256_set1_epi32((int)0xFF000000u));
    return bytes;
}

// Horizontal pass. For a destination pixel whose taps start at source pixel s, the 16 bytes of pixels
// s ..< s+4 are loaded into both halves of a register and shuffled into 16-bit lanes
// (r[s], r[s+1], g[s], g[s+1], b[s], b[s+1], a[s], a[s+1] | the same for s+2, s+3), so that one
// multiply-add (vpmaddwd) against 32 bytes of pair weights sums 4 taps of all 4 channels. The halves are
// added at the end.

// One destination pixel's four channel sums, rounded and scaled down (32-bit lanes). Inlined into loops
// whose `quad_count` is a constant, so the tap loop unrolls.
AVX2 static inline __attribute__((always_inline)) __m128i pixel_sum(const uint8_t *row, int start, const int32_t *words,
                                                                    int quad_count) {
    const __m256i spread = _mm256_setr_epi8(0, -1, 4, -1, 1, -1, 5, -1, 2, -1, 6, -1, 3, -1, 7, -1,
                                            8, -1, 12, -1, 9, -1, 13, -1, 10, -1, 14, -1, 11, -1, 15, -1);
    const uint8_t *p = row + (size_t)start * 4;
    // Pairs 2j and 2j+1 of the coordinate: 32 contiguous bytes of ResamplerWeights.pairWeights.
    __m256i pixels = _mm256_shuffle_epi8(_mm256_broadcastsi128_si256(_mm_loadu_si128((const __m128i *)p)), spread);
    __m256i acc = _mm256_madd_epi16(pixels, _mm256_loadu_si256((const __m256i *)words));
    for (int j = 1; j < quad_count; j++) {
        pixels = _mm256_shuffle_epi8(_mm256_broadcastsi128_si256(_mm_loadu_si128((const __m128i *)(p + 16 * j))), spread);
        acc = _mm256_add_epi32(acc, _mm256_madd_epi16(pixels, _mm256_loadu_si256((const __m256i *)(words + 8 * j))));
    }
    __m128i sum = _mm_add_epi32(_mm256_castsi256_si128(acc), _mm256_extracti128_si256(acc, 1));
    return _mm_srai_epi32(_mm_add_epi32(sum, _mm_set1_epi32(HALF)), PRECISION);
}

// The destination pixels of one source row (`row` readable for 4 * quad_count pixels past the last start).
AVX2 static inline __attribute__((always_inline)) void filter_row(const uint8_t *row, uint8_t *d, const tip_resampler_axis *axis,
                                                                  int finish, int quad_count) {
    const int width = axis->count;
    const ptrdiff_t word_stride = 4 * axis->pair_stride;
    int x = 0;
    for (; x + 4 <= width; x += 4) {
        const int32_t *w = axis->pair_words + x * word_stride;
        __m128i s0 = pixel_sum(row, axis->starts[x], w, quad_count);
        __m128i s1 = pixel_sum(row, axis->starts[x + 1], w + word_stride, quad_count);
        __m128i s2 = pixel_sum(row, axis->starts[x + 2], w + 2 * word_stride, quad_count);
        __m128i s3 = pixel_sum(row, axis->starts[x + 3], w + 3 * word_stride, quad_count);
        __m128i bytes = _mm_packus_epi16(_mm_packs_epi32(s0, s1), _mm_packs_epi32(s2, s3));
        _mm_storeu_si128((__m128i *)(d + (size_t)x * 4), finish128(bytes, finish));
    }
    for (; x < width; x++) {
        __m128i s = pixel_sum(row, axis->starts[x], axis->pair_words + x * word_stride, quad_count);
        __m128i bytes = finish128(_mm_packus_epi16(_mm_packs_epi32(s, s), _mm_packs_epi32(s, s)), finish);
        int32_t pixel = _mm_cvtsi128_si32(bytes);
        memcpy(d + (size_t)x * 4, &pixel, 4);
    }
}

// filter_row with the tap loop unrolled for the common kernels (a mild reduction has 5-9 taps).
AVX2 static void filter_row_dispatch(const uint8_t *row, uint8_t *d, const tip_resampler_axis *axis, int finish) {
    switch ((axis->max_taps + 3) / 4) {
    case 1: filter_row(row, d, axis, finish, 1); break;
    case 2: filter_row(row, d, axis, finish, 2); break;
    case 3: filter_row(row, d, axis, finish, 3); break;
    case 4: filter_row(row, d, axis, finish, 4); break;
    default: filter_row(row, d, axis, finish, (axis->max_taps + 3) / 4); break;
    }
}

AVX2 int tip_resample_horizontal4_avx2(const uint8_t *source, ptrdiff_t source_stride, uint8_t *destination,
                                       ptrdiff_t destination_stride, int row_start, int row_end,
                                       const tip_resampler_axis *axis, int finish) {
    const int source_count = axis->source_count;
    const int quad_count = (axis->max_taps + 3) / 4;
    // Each row is read through a copy followed by zero pixels: taps read up to 4 * quad_count pixels past a
    // coordinate's start (their weights are zero past its taps), which may lie past the row's end.
    const size_t bytes = (((size_t)source_count + 4 * (size_t)quad_count + 4) * 4 + 63) & ~(size_t)63;
    uint8_t *row = aligned_alloc(64, bytes);  // aligned_alloc wants a multiple of the alignment
    if (!row) return -1;
    memset(row, 0, bytes);
    for (int y = row_start; y < row_end; y++) {
        memcpy(row, source + (ptrdiff_t)y * source_stride, (size_t)source_count * 4);
        filter_row_dispatch(row, destination + (ptrdiff_t)y * destination_stride, axis, finish);
    }
    free(row);
    return 0;
}

// Vertical pass: 32 bytes of a destination row at a time; the bytes of two source rows are interleaved and
// widened to 16 bits, so one multiply-add applies a pair of taps to 8 bytes at once.
// One destination row of the vertical pass: `span` bytes (a multiple of 32) from `taps` source rows
// starting at `first`, with the pair words of that row.
AVX2 static inline void vertical_row(const uint8_t *first, ptrdiff_t source_stride, int taps, const int32_t *words,
                                     uint8_t *d, ptrdiff_t span, int finish) {
    const __m256i zero = _mm256_setzero_si256();
    const __m256i half = _mm256_set1_epi32(HALF);
    for (ptrdiff_t x = 0; x < span; x += 32) {
        __m256i a0 = half, a1 = half, a2 = half, a3 = half;
        const uint8_t *r = first + x;
        int k = 0;
        for (; 2 * k + 2 <= taps; k++, r += 2 * source_stride) {
            __m256i w = _mm256_set1_epi32(words[4 * k]);
            __m256i upper = _mm256_load_si256((const __m256i *)r);
            __m256i lower = _mm256_load_si256((const __m256i *)(r + source_stride));
            __m256i low = _mm256_unpacklo_epi8(upper, lower), high = _mm256_unpackhi_epi8(upper, lower);
            a0 = _mm256_add_epi32(a0, _mm256_madd_epi16(_mm256_unpacklo_epi8(low, zero), w));
            a1 = _mm256_add_epi32(a1, _mm256_madd_epi16(_mm256_unpackhi_epi8(low, zero), w));
            a2 = _mm256_add_epi32(a2, _mm256_madd_epi16(_mm256_unpacklo_epi8(high, zero), w));
            a3 = _mm256_add_epi32(a3, _mm256_madd_epi16(_mm256_unpackhi_epi8(high, zero), w));
        }
        if (taps & 1) {
            // The pair's second weight is zero: the last row alone, widened.
            __m256i w = _mm256_set1_epi32(words[4 * k]);
            __m256i last = _mm256_load_si256((const __m256i *)r);
            __m256i low = _mm256_unpacklo_epi8(last, zero), high = _mm256_unpackhi_epi8(last, zero);
            a0 = _mm256_add_epi32(a0, _mm256_madd_epi16(_mm256_unpacklo_epi16(low, zero), w));
            a1 = _mm256_add_epi32(a1, _mm256_madd_epi16(_mm256_unpackhi_epi16(low, zero), w));
            a2 = _mm256_add_epi32(a2, _mm256_madd_epi16(_mm256_unpacklo_epi16(high, zero), w));
            a3 = _mm256_add_epi32(a3, _mm256_madd_epi16(_mm256_unpackhi_epi16(high, zero), w));
        }
        __m256i p01 = _mm256_packs_epi32(_mm256_srai_epi32(a0, PRECISION), _mm256_srai_epi32(a1, PRECISION));
        __m256i p23 = _mm256_packs_epi32(_mm256_srai_epi32(a2, PRECISION), _mm256_srai_epi32(a3, PRECISION));
        _mm256_store_si256((__m256i *)(d + x), finish256(_mm256_packus_epi16(p01, p23), finish));
    }
}

AVX2 void tip_resample_vertical_avx2(const uint8_t *source, ptrdiff_t source_stride, uint8_t *destination,
                                     ptrdiff_t destination_stride, int row_start, int row_end, ptrdiff_t row_bytes,
                                     const tip_resampler_axis *axis, int finish) {
    const ptrdiff_t span = (row_bytes + 31) & ~(ptrdiff_t)31;
    for (int y = row_start; y < row_end; y++) {
        uint8_t *d = destination + (ptrdiff_t)y * destination_stride;
        vertical_row(source + (ptrdiff_t)axis->starts[y] * source_stride, source_stride, axis->tap_counts[y],
                     axis->pair_words + (ptrdiff_t)y * axis->pair_stride * 4, d, span, finish);
        if (span > row_bytes) memset(d + row_bytes, 0, (size_t)(span - row_bytes));
    }
}

AVX2 int tip_resample_vertical_horizontal4_avx2(const uint8_t *source, ptrdiff_t source_stride, uint8_t *destination,
                                                ptrdiff_t destination_stride, int row_start, int row_end,
                                                const tip_resampler_axis *lines, const tip_resampler_axis *columns, int finish) {
    const int source_count = columns->source_count;
    const int quad_count = (columns->max_taps + 3) / 4;
    const ptrdiff_t span = ((ptrdiff_t)source_count * 4 + 31) & ~(ptrdiff_t)31;
    // The vertically filtered row, then zero pixels for the horizontal taps that read past its end (see
    // tip_resample_horizontal4_avx2); the vertical pass writes whole 32-byte chunks.
    const size_t tail = ((size_t)source_count + 4 * (size_t)quad_count + 4) * 4;
    const size_t bytes = (((size_t)span > tail ? (size_t)span : tail) + 32 + 63) & ~(size_t)63;
    uint8_t *row = aligned_alloc(64, bytes);
    if (!row) return -1;
    memset(row, 0, bytes);
    for (int y = row_start; y < row_end; y++) {
        vertical_row(source + (ptrdiff_t)lines->starts[y] * source_stride, source_stride, lines->tap_counts[y],
                     lines->pair_words + (ptrdiff_t)y * lines->pair_stride * 4, row, span, TIP_RESAMPLER_FINISH_NONE);
        memset(row + (size_t)source_count * 4, 0, (size_t)(span - (ptrdiff_t)source_count * 4));
        filter_row_dispatch(row, destination + (ptrdiff_t)y * destination_stride, columns, finish);
    }
    free(row);
    return 0;
}

#else

int tip_resampler_has_avx2(void) { return 0; }

int tip_resample_horizontal4_avx2(const uint8_t *source, ptrdiff_t source_stride, uint8_t *destination,
                                  ptrdiff_t destination_stride, int row_start, int row_end,
                                  const tip_resampler_axis *axis, int finish) {
    (void)source; (void)source_stride; (void)destination; (void)destination_stride;
    (void)row_start; (void)row_end; (void)axis; (void)finish;
    return -1;
}

void tip_resample_vertical_avx2(const uint8_t *source, ptrdiff_t source_stride, uint8_t *destination,
                                ptrdiff_t destination_stride, int row_start, int row_end, ptrdiff_t row_bytes,
                                const tip_resampler_axis *axis, int finish) {
    (void)source; (void)source_stride; (void)destination; (void)destination_stride;
    (void)row_start; (void)row_end; (void)row_bytes; (void)axis; (void)finish;
}

int tip_resample_vertical_horizontal4_avx2(const uint8_t *source, ptrdiff_t source_stride, uint8_t *destination,
                                           ptrdiff_t destination_stride, int row_start, int row_end,
                                           const tip_resampler_axis *lines, const tip_resampler_axis *columns, int finish) {
    (void)source; (void)source_stride; (void)destination; (void)destination_stride;
    (void)row_start; (void)row_end; (void)lines; (void)columns; (void)finish;
    return -1;
}

#endif
