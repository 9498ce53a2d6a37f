/// Converts CMYK samples (as libjpeg outputs them) to opaque RGBX in place.
enum CMYKConverter {
    /// Rewrites `height` rows of `width` CMYK pixels at `base` (rows `pitch` bytes apart) as RGBX.
    /// `inverted`: Adobe APP14 files store inverted samples (the common case for CMYK JPEGs).
    static func convertToRGBX(_ base: UnsafeMutableRawPointer, width: Int, height: Int, pitch: Int, inverted: Bool) {
        for y in 0..<height {
            let row = (base + y * pitch).assumingMemoryBound(to: UInt8.self)
            for x in 0..<width {
                let p = row + x * 4
                var c = Int(p[0]), m = Int(p[1]), yy = Int(p[2]), k = Int(p[3])
                if !inverted { c = 255 - c; m = 255 - m; yy = 255 - yy; k = 255 - k }
                // Inverted samples: channel = sample * K / 255 (rounded).
                p[0] = UInt8((c * k + 127) / 255)
                p[1] = UInt8((m * k + 127) / 255)
                p[2] = UInt8((yy * k + 127) / 255)
                p[3] = 255
            }
        }
    }
}
