import CJPEGIncremental
import CTurboJPEG

extension JPEGDecoder {
    /// TurboJPEG's header call refuses a file whose chroma sampling it has no name for (4:1:0, 3x1, luma not
    /// the largest component: "Could not determine subsampling type"), though its decompression does not need
    /// one. The header as libjpeg reads it instead: dimensions and TurboJPEG's colour space (`TJCS_*`), or nil
    /// when libjpeg cannot read it either.
    static func libjpegHeader(_ bytes: UnsafeRawBufferPointer) -> (width: Int32, height: Int32, colorspace: Int32)? {
        guard let base = bytes.baseAddress, let decoder = tip_jpeg_inc_create() else { return nil }
        defer { tip_jpeg_inc_destroy(decoder) }
        guard tip_jpeg_inc_append(decoder, base, bytes.count) == 0 else { return nil }
        tip_jpeg_inc_set_eof(decoder)
        guard tip_jpeg_inc_read_header(decoder) == 1 else { return nil }
        var info = tip_jpeg_inc_info()
        tip_jpeg_inc_get_info(decoder, &info)
        guard info.header_ready == 1, info.image_width > 0, info.image_height > 0,
            let colorspace = turboJPEGColorspace(libjpeg: info.jpeg_color_space)
        else { return nil }
        return (Int32(info.image_width), Int32(info.image_height), colorspace)
    }

    /// libjpeg's `J_COLOR_SPACE` of a file as TurboJPEG's `TJCS_*`, or nil for one TurboJPEG does not name.
    static func turboJPEGColorspace(libjpeg space: Int32) -> Int32? {
        switch space {
        case 1: Int32(TJCS_GRAY.rawValue)  // JCS_GRAYSCALE
        case 2: Int32(TJCS_RGB.rawValue)  // JCS_RGB
        case 3: Int32(TJCS_YCbCr.rawValue)  // JCS_YCbCr
        case 4: Int32(TJCS_CMYK.rawValue)  // JCS_CMYK
        case 5: Int32(TJCS_YCCK.rawValue)  // JCS_YCCK
        default: nil
        }
    }
}
