#ifndef CRESAMPLER_H
#define CRESAMPLER_H

#include <stddef.h>
#include <stdint.h>

/// AVX2 versions of the resampler's two hot passes for 4-byte pixels (and the vertical pass for any pixel
/// size), selected at run time: callers check tip_resampler_has_avx2() first and otherwise use the portable
/// Swift passes. Same arithmetic as those passes (14-bit fixed-point weights, sums started at 1 << 13, shifted
/// right by 14, saturated to 0...255), so the output bytes are identical; only the order of the additions
/// differs. Thread-safe: the functions write only destination rows in [row_start, row_end).

/// What a pass does to each finished pixel (ResamplerPasses.Finish).
enum {
    TIP_RESAMPLER_FINISH_NONE = 0,           ///< intermediate passes and gray
    TIP_RESAMPLER_FINISH_PREMULTIPLIED = 1,  ///< colour channels clamped to alpha (4-byte pixels)
    TIP_RESAMPLER_FINISH_OPAQUE = 2,         ///< fourth byte of each pixel set to 255
};

/// 1 when the CPU and the operating system support AVX2, else 0.
int tip_resampler_has_avx2(void);

/// The taps of one axis, laid out as ResamplerWeights lays them out.
typedef struct {
    const int32_t *starts;        ///< first source index of each destination coordinate
    const int32_t *tap_counts;    ///< taps of each destination coordinate
    /// ResamplerWeights.pairWeights: for coordinate x and pair k, four identical 32-bit words at
    /// `4 * (x * pair_stride + k)`, each packing the weights of taps 2k (low 16 bits) and 2k + 1 (high 16
    /// bits); zero past the coordinate's taps.
    const int32_t *pair_words;
    ptrdiff_t pair_stride;        ///< pairs per destination coordinate (even)
    int max_taps;                 ///< the largest tap count
    int source_count;             ///< source pixels along the axis
    int count;                    ///< destination pixels along the axis
} tip_resampler_axis;

/// Filters rows [row_start, row_end) of a 4-byte-pixel image horizontally: `axis.source_count` source pixels
/// per row into `axis.count`. Rows are `source_stride` / `destination_stride` bytes apart (multiples of 64,
/// buffers 64-byte aligned). Needs ResamplerWeights.pairsFit and an even `pair_stride`. Returns 0, or -1 when
/// out of memory (nothing written then).
int tip_resample_horizontal4_avx2(const uint8_t *source, ptrdiff_t source_stride, uint8_t *destination,
                                  ptrdiff_t destination_stride, int row_start, int row_end,
                                  const tip_resampler_axis *axis, int finish);

/// Filters `source` vertically into rows [row_start, row_end) of `destination`, `row_bytes` used bytes per
/// row (the pixels of any size, side by side). Writes whole 32-byte chunks and zeroes the chunk's bytes past
/// `row_bytes` (inside the row's padding). `finish` PREMULTIPLIED and OPAQUE assume 4-byte pixels. Needs
/// ResamplerWeights.pairsFit.
void tip_resample_vertical_avx2(const uint8_t *source, ptrdiff_t source_stride, uint8_t *destination,
                                ptrdiff_t destination_stride, int row_start, int row_end, ptrdiff_t row_bytes,
                                const tip_resampler_axis *axis, int finish);

/// Both passes of a resize of 4-byte pixels, vertical then horizontal, one row at a time through a row of
/// scratch memory (what the two passes above write with an intermediate image, without it): destination rows
/// [row_start, row_end). `lines` maps the source rows, `columns` the source pixels of a row. Same
/// requirements as the two passes. Returns 0, or -1 when out of memory (nothing written then).
int tip_resample_vertical_horizontal4_avx2(const uint8_t *source, ptrdiff_t source_stride, uint8_t *destination,
                                           ptrdiff_t destination_stride, int row_start, int row_end,
                                           const tip_resampler_axis *lines, const tip_resampler_axis *columns, int finish);

#endif
