// Our decoder of a progressive JPEG's scans (jpeg_progressive_ac.c), used by the one-shot decode: this fills in
// the coefficients, libjpeg produces the pixels from them. Private to CJPEGIncremental.
#ifndef TIP_JPEG_PROGRESSIVE_AC_H
#define TIP_JPEG_PROGRESSIVE_AC_H

#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <jpeglib.h>

/// One component's whole-image coefficient array, as libjpeg lays it out (rows of blocks, each block 64
/// coefficients in natural order), and what to do with its AC scans. The array need not be zero on entry: the
/// walk clears each block of a plane whose AC scans it decodes, and writes coefficient 0 of the others.
typedef struct {
    JBLOCKARRAY rows;        ///< array_height rows of array_width blocks
    int component_id;        ///< the id in the frame header
    int width_in_blocks;     ///< the blocks a non-interleaved scan of the component covers
    int height_in_blocks;
    int h_samp, v_samp;      ///< sampling factors: the blocks of the component in an interleaved scan's MCU
    int array_width;         ///< blocks per row of `rows` (interleaved scans also fill the MCUs' padding blocks)
    int array_height;
    int decode;              ///< 1: decode its AC scans; 0: skip them (its inverse DCT reads only DC)
    uint64_t *nonzero;       ///< scratch, width x height in blocks, zero on entry: which AC coefficients are set
    JCOEF *dc;               ///< scratch, array_width x array_height, zero on entry: the DC coefficients, which
                             ///< the DC scans build here (2 bytes a block rather than a cache line) and the
                             ///< end of the walk copies into `rows`
    uint64_t used;           ///< the coefficients (bits at zig-zag positions) the caller reads back: a
                             ///< refinement scan's correction bits for the others are read but not applied
    int keep_blocks;         ///< 1: the blocks start zeroed and may hold a DC coefficient already (the
                             ///< incremental decoder's arrays): never cleared
} tip_ac_plane;

/// The zig-zag positions of the coefficients whose row and column (natural order, 0...7) are both in the sets
/// `rows` and `columns` (bit n: row or column n).
uint64_t tip_jpeg_zigzag_positions(uint8_t rows, uint8_t columns);

/// The end of the entropy-coded data that starts at `from`: the offset of the first 0xFF of the next marker
/// that is not a restart marker (fill bytes and stuffed zeros skipped as libjpeg does), or `size` when the
/// data runs to the end.
size_t tip_jpeg_entropy_end(const uint8_t *data, size_t size, size_t from);

/// tip_jpeg_entropy_end, also setting `*fill_bytes` when the data holds fill bytes before a stuffed zero (a run
/// of 0xFF longer than one, which libjpeg reads as one 0xFF data byte; fill bytes before a marker do not count).
size_t tip_jpeg_entropy_end_fill(const uint8_t *data, size_t size, size_t from, int *fill_bytes);

/// Walks the complete progressive JPEG `data` (its frame already read into `planes`, in frame order; an
/// interleaved scan has `mcus_per_row` x `mcu_rows` MCUs) and decodes every DC scan, and every AC scan (Ss > 0)
/// of the planes whose `decode` is set, into their coefficient arrays, exactly as libjpeg would; the AC scans
/// of other planes are only checked. Returns 0 when done, 1 for anything libjpeg would warn or fail on, or that
/// this decoder does not take (arithmetic coding, a table it lacks, a quantization table defined after the
/// first scan, a progression that leaves a coefficient incomplete, restart markers out of order, data that
/// runs short): the caller then decodes without it.
int tip_jpeg_decode_scans(const uint8_t *data, size_t size, tip_ac_plane *planes, int plane_count, int mcus_per_row,
                          int mcu_rows);

/// Decodes one AC scan (one component, Ss > 0) of a progressive JPEG into `plane`'s coefficient array and masks,
/// exactly as libjpeg would: its entropy-coded data is `data[0 ..< end]` (`end` where the next marker other than a
/// restart marker starts), in restart intervals of `restart` blocks (0: one interval), with the Huffman table given
/// by its counts per code length (`counts[0]` for length 1 ... `counts[15]`) and symbols. Returns 1 when done; 0
/// when declined (anything libjpeg would warn about or refuse), after which the array and masks may be partly
/// written. Used by the incremental decoder for each scan whose data has entirely arrived.
int tip_jpeg_decode_ac_scan(const uint8_t *data, size_t end, tip_ac_plane *plane, int Ss, int Se, int Ah, int Al,
                            const uint8_t *counts, const uint8_t *symbols, int restart);

#endif
