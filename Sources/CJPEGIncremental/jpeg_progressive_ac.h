// Our decoder of a progressive JPEG's AC scans (jpeg_progressive_ac.c), used by the one-shot decode: libjpeg
// decodes the DC scans and produces the pixels, this fills in the AC coefficients. Private to CJPEGIncremental.
#ifndef TIP_JPEG_PROGRESSIVE_AC_H
#define TIP_JPEG_PROGRESSIVE_AC_H

#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <jpeglib.h>

/// One component's whole-image coefficient array, as libjpeg lays it out (rows of blocks, each block 64
/// coefficients in natural order), and what to do with its AC scans.
typedef struct {
    JBLOCKARRAY rows;        ///< at least height_in_blocks rows of at least width_in_blocks blocks
    int component_id;        ///< the id in the frame header
    int width_in_blocks;     ///< the blocks a non-interleaved scan of the component covers
    int height_in_blocks;
    int decode;              ///< 1: decode its AC scans; 0: skip them (its inverse DCT reads only DC)
    uint64_t *nonzero;       ///< scratch, width x height in blocks, zero on entry: which AC coefficients are set
} tip_ac_plane;

/// The end of the entropy-coded data that starts at `from`: the offset of the first 0xFF of the next marker
/// that is not a restart marker (fill bytes and stuffed zeros skipped as libjpeg does), or `size` when the
/// data runs to the end.
size_t tip_jpeg_entropy_end(const uint8_t *data, size_t size, size_t from);

/// Walks the complete progressive JPEG `data` (its frame already read into `planes`, in frame order) and
/// decodes every AC scan (Ss > 0) of the planes whose `decode` is set into their coefficient arrays, exactly
/// as libjpeg would; DC scans and the AC scans of other planes are only checked. Returns 0 when done, 1 for
/// anything libjpeg would warn or fail on, or that this decoder does not take (arithmetic coding, a table it
/// lacks, a progression that leaves a decoded plane's coefficients incomplete, restart markers out of order,
/// data that runs short): the caller then decodes without it.
int tip_jpeg_decode_ac_scans(const uint8_t *data, size_t size, tip_ac_plane *planes, int plane_count);

#endif
