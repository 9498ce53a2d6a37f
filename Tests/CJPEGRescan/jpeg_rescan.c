// Lossless re-coding of JPEGs through libjpeg's transcoding API, for the JPEG decoding tests: the
// same coefficients in other scan scripts, restart intervals and entropy codings.
#include <setjmp.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <jpeglib.h>
#include "CJPEGRescan.h"

typedef struct {
    struct jpeg_error_mgr pub;
    jmp_buf jump;
} rescan_error;

static void rescan_error_exit(j_common_ptr cinfo) { longjmp(((rescan_error *)cinfo->err)->jump, 1); }

static void rescan_output_message(j_common_ptr cinfo) { (void)cinfo; }

// Every call: progressive when `progressive` is set (with `scans`, `restart`, `arithmetic` as documented), else
// sequential with optimized Huffman tables (in the scans `scans` when given: Ss 0, Se 63).
static int transcode(const uint8_t *data, size_t size, int progressive, const tip_test_scan *scans, int scan_count,
                     int restart, int arithmetic, uint8_t **out, size_t *out_size) {
    struct jpeg_decompress_struct source;
    struct jpeg_compress_struct target;
    rescan_error error;  // shared: one jump target for both
    jpeg_scan_info *volatile script = NULL;
    unsigned char *volatile buffer = NULL;
    unsigned long length = 0;
    *out = NULL;
    *out_size = 0;
    memset(&source, 0, sizeof source);  // destroying a decoder never created is then safe (no memory manager)
    memset(&target, 0, sizeof target);
    source.err = target.err = jpeg_std_error(&error.pub);
    error.pub.error_exit = rescan_error_exit;
    error.pub.output_message = rescan_output_message;
    if (setjmp(error.jump)) {
        jpeg_destroy_compress(&target);
        jpeg_destroy_decompress(&source);
        free(script);
        free(buffer);
        return -1;
    }
    jpeg_create_decompress(&source);
    jpeg_create_compress(&target);
    jpeg_mem_src(&source, data, (unsigned long)size);
    jpeg_read_header(&source, TRUE);
    jvirt_barray_ptr *coefficients = jpeg_read_coefficients(&source);
    jpeg_copy_critical_parameters(&source, &target);
    jpeg_mem_dest(&target, (unsigned char **)&buffer, &length);
    if (!progressive && !arithmetic) target.optimize_coding = TRUE;  // libjpeg refuses both at once
    if (scan_count > 0) {
        script = (jpeg_scan_info *)calloc((size_t)scan_count, sizeof(jpeg_scan_info));
        if (!script) longjmp(error.jump, 1);
        for (int i = 0; i < scan_count; i++) {
            script[i].comps_in_scan = scans[i].count;
            for (int c = 0; c < scans[i].count && c < 4; c++) script[i].component_index[c] = scans[i].components[c];
            script[i].Ss = scans[i].Ss;
            script[i].Se = scans[i].Se;
            script[i].Ah = scans[i].Ah;
            script[i].Al = scans[i].Al;
        }
        target.scan_info = script;
        target.num_scans = scan_count;
    } else if (progressive) {
        jpeg_simple_progression(&target);
    }
    target.restart_interval = (unsigned int)restart;
    target.arith_code = arithmetic ? TRUE : FALSE;
    jpeg_write_coefficients(&target, coefficients);
    jpeg_finish_compress(&target);
    jpeg_finish_decompress(&source);
    jpeg_destroy_compress(&target);
    jpeg_destroy_decompress(&source);
    free(script);
    *out = buffer;
    *out_size = length;
    return 0;
}

int tip_test_rescan(const uint8_t *data, size_t size, const tip_test_scan *scans, int scan_count, int restart,
                    int arithmetic, uint8_t **out, size_t *out_size) {
    return transcode(data, size, 1, scans, scan_count, restart, arithmetic, out, out_size);
}

int tip_test_optimize(const uint8_t *data, size_t size, uint8_t **out, size_t *out_size) {
    return transcode(data, size, 0, NULL, 0, 0, 0, out, out_size);
}

int tip_test_sequential(const uint8_t *data, size_t size, int separate_scans, int restart, int arithmetic,
                        uint8_t **out, size_t *out_size) {
    tip_test_scan scans[4];
    int count = 0;
    if (separate_scans) {
        for (int c = 0; c < 4 && c < separate_scans; c++) {
            scans[c] = (tip_test_scan){1, {c, 0, 0, 0}, 0, 63, 0, 0};
            count++;
        }
    }
    return transcode(data, size, 0, count ? scans : NULL, count, restart, arithmetic, out, out_size);
}
