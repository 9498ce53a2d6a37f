import CHeif
import TIP

/// One image of a HEIF file (primary or thumbnail), released with the handle.
final class HEIFImageHandle {
    let handle: OpaquePointer

    init(_ handle: OpaquePointer) {
        self.handle = handle
    }

    deinit {
        heif_image_handle_release(handle)
    }

    /// Width in pixels as displayed (after `clap`, `irot` and `imir`).
    var width: Int { Int(heif_image_handle_get_width(handle)) }
    /// Height in pixels as displayed.
    var height: Int { Int(heif_image_handle_get_height(handle)) }
    /// The coded size (`ispe`), before transformations.
    var codedWidth: Int { Int(heif_image_handle_get_ispe_width(handle)) }
    var codedHeight: Int { Int(heif_image_handle_get_ispe_height(handle)) }
    /// Whether an alpha plane goes with the image.
    var hasAlpha: Bool { heif_image_handle_has_alpha_channel(handle) != 0 }

    /// The image's thumbnails (usually none or one).
    func thumbnails() -> [HEIFImageHandle] {
        let count = Int(heif_image_handle_get_number_of_thumbnails(handle))
        guard count > 0, count <= 64 else { return [] }
        var ids = [heif_item_id](repeating: 0, count: count)
        let listed = Int(heif_image_handle_get_list_of_thumbnail_IDs(handle, &ids, Int32(count)))
        return ids.prefix(max(0, min(listed, count))).compactMap { id in
            var thumbnail: OpaquePointer?
            guard heif_image_handle_get_thumbnail(handle, id, &thumbnail).code == heif_error_Ok, let thumbnail else {
                return nil
            }
            return HEIFImageHandle(thumbnail)
        }
    }

    /// Decodes the image upright (libheif applies `clap`, `irot` and `imir` in the order the file
    /// lists them, to the alpha plane as well) into planar RGB (+ alpha), then interleaves the
    /// planes into a bitmap: premultiplied `rgba8Premultiplied` with alpha, else `rgbx8`. Planar
    /// output is libheif 1.15's own intermediate form: asking for interleaved RGBA would cost it one
    /// more full-size pass and buffer (about 15% of an AVIF decode), while the copy into the bitmap
    /// has to happen anyway. 8-bit planes are read as they are; deeper ones (10- and 12-bit images,
    /// which libheif 1.15 leaves deep in planar output) are scaled to 8 bits first (``HEIFDeepPlane``).
    func decode() throws(ImageDecodingError) -> Bitmap {
        guard let options = heif_decoding_options_alloc() else {
            throw .unsupported("libheif could not allocate options")
        }
        defer { heif_decoding_options_free(options) }
        options.pointee.ignore_transformations = 0
        options.pointee.convert_hdr_to_8bit = 1
        var image: OpaquePointer?
        let decoded = heif_decode_image(handle, &image, heif_colorspace_RGB, heif_chroma_444, options)
        guard decoded.code == heif_error_Ok, let image else {
            throw HEIFLibrary.decodingError(decoded, while: "decoding")
        }
        defer { heif_image_release(image) }
        let width = Int(heif_image_get_width(image, heif_channel_R))
        let height = Int(heif_image_get_height(image, heif_channel_R))
        // The decoder's own output must be what the header said: libheif 1.15 does not check it.
        guard width == self.width, height == self.height else {
            throw .corruptData("libheif decoded \(width)x\(height) for an image of \(self.width)x\(self.height)")
        }
        let alpha = hasAlpha && heif_image_has_channel(image, heif_channel_Alpha) != 0
        var planes: [(pointer: UnsafePointer<UInt8>, stride: Int)] = []
        var narrowed: [UnsafeMutablePointer<UInt8>] = []
        defer { narrowed.forEach { $0.deallocate() } }
        for channel in alpha
            ? [heif_channel_R, heif_channel_G, heif_channel_B, heif_channel_Alpha]
            : [heif_channel_R, heif_channel_G, heif_channel_B]
        {
            var stride: Int32 = 0
            let bits = Int(heif_image_get_bits_per_pixel_range(image, channel))
            let storage = bits == 8 ? 8 : 16
            guard (8...16).contains(bits), heif_image_get_bits_per_pixel(image, channel) == Int32(storage),
                heif_image_get_width(image, channel) == Int32(width),
                heif_image_get_height(image, channel) == Int32(height),
                let plane = heif_image_get_plane_readonly(image, channel, &stride),
                Int(stride) >= width * storage / 8
            else { throw .corruptData("libheif returned no usable pixel planes") }
            if bits == 8 {
                planes.append((plane, Int(stride)))
            } else {
                let narrow = HEIFDeepPlane.narrow(plane, stride: Int(stride), width: width, height: height, bits: bits)
                narrowed.append(narrow)
                planes.append((UnsafePointer(narrow), width))
            }
        }
        let premultiplied = heif_image_is_premultiplied_alpha(image) != 0
        guard
            var bitmap = Bitmap(uninitializedWidth: width, height: height, format: alpha ? .rgba8Premultiplied : .rgbx8)
        else {
            throw .corruptData("invalid dimensions \(width)x\(height)")
        }
        let destinationStride = bitmap.bytesPerRow
        bitmap.withUnsafeMutableBytes { pixels in
            guard let base = pixels.baseAddress?.assumingMemoryBound(to: UInt8.self) else { return }
            for y in 0..<height {
                let row = base + y * destinationStride
                let r = planes[0].pointer + y * planes[0].stride, g = planes[1].pointer + y * planes[1].stride
                let b = planes[2].pointer + y * planes[2].stride
                if alpha {
                    let a = planes[3].pointer + y * planes[3].stride
                    for x in 0..<width {
                        row[x * 4] = r[x]; row[x * 4 + 1] = g[x]; row[x * 4 + 2] = b[x]; row[x * 4 + 3] = a[x]
                    }
                    if !premultiplied { Self.premultiply(row, count: width) }
                } else {
                    for x in 0..<width {
                        row[x * 4] = r[x]; row[x * 4 + 1] = g[x]; row[x * 4 + 2] = b[x]; row[x * 4 + 3] = 255
                    }
                }
            }
        }
        return bitmap
    }

    /// Premultiplies `count` RGBA pixels in place (rounded to nearest).
    private static func premultiply(_ row: UnsafeMutablePointer<UInt8>, count: Int) {
        for x in 0..<count {
            let a = UInt32(row[x * 4 + 3])
            guard a != 255 else { continue }
            for c in 0..<3 {
                let value = UInt32(row[x * 4 + c]) * a + 128
                row[x * 4 + c] = UInt8((value + (value >> 8)) >> 8)
            }
        }
    }
}
