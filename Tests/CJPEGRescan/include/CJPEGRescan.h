#ifndef CJPEGRESCAN_H
#define CJPEGRESCAN_H

#include <stddef.h>
#include <stdint.h>

/// One scan of a progressive script: `count` component indices (in frame order), the spectral band Ss...Se
/// and the successive approximation bits Ah, Al.
typedef struct {
    int count;
    int components[4];
    int Ss, Se, Ah, Al;
} tip_test_scan;

/// Writes the JPEG `data` again as a progressive JPEG with the scans `scans` (or libjpeg's default script when
/// `scan_count` is 0), a restart marker every `restart` MCUs (0: none), and arithmetic coding when `arithmetic`
/// is set; the coefficients are not changed. The result is malloc'd into `*out` (free it with free()).
/// Returns 0, or -1 when libjpeg refuses (a script it does not accept, a file it cannot read).
int tip_test_rescan(const uint8_t *data, size_t size, const tip_test_scan *scans, int scan_count, int restart,
                    int arithmetic, uint8_t **out, size_t *out_size);

/// Writes the JPEG `data` again as a baseline JPEG with Huffman tables optimized for it (not the standard
/// ones), the coefficients unchanged; the result as for tip_test_rescan. Returns 0 or -1.
int tip_test_optimize(const uint8_t *data, size_t size, uint8_t **out, size_t *out_size);

/// Writes the JPEG `data` again as a sequential JPEG with optimized Huffman tables, the coefficients unchanged:
/// one interleaved scan, or with `separate_scans` (its component count) a scan per component; a restart marker
/// every `restart` MCUs (0: none); arithmetic coding when `arithmetic` is set. The result as for tip_test_rescan.
int tip_test_sequential(const uint8_t *data, size_t size, int separate_scans, int restart, int arithmetic,
                        uint8_t **out, size_t *out_size);

#endif
