// libpng's headers belong to the TIP package's CPNG module; its names come from there.
import CPNG
import Foundation

/// libpng's simplified API called directly: the baseline for the frames of an APNG and the PNG entries
/// of an icon, decoded to RGBA.
enum PNGDirect {
    /// Decodes `data` to 8-bit RGBA into a buffer that is then freed; returns whether libpng succeeded.
    @discardableResult
    static func decode(_ data: Data) -> Bool {
        data.withUnsafeBytes { raw -> Bool in
            var image = png_image()
            image.version = UInt32(PNG_IMAGE_VERSION)
            guard png_image_begin_read_from_memory(&image, raw.baseAddress, raw.count) != 0 else { return false }
            image.format = UInt32(PNG_FORMAT_FLAG_COLOR | PNG_FORMAT_FLAG_ALPHA)
            let stride = Int(image.width) * 4
            let buffer = UnsafeMutableRawPointer.allocate(byteCount: stride * Int(image.height), alignment: 64)
            defer { buffer.deallocate() }
            let ok = png_image_finish_read(&image, nil, buffer, Int32(stride), nil) != 0
            png_image_free(&image)
            return ok
        }
    }
}
