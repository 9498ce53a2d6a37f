import CSTBDirect
import Foundation

/// stb_image called directly (Debian's libstb): the baseline for BMP and TGA decoding, to RGBA.
enum STBDirect {
    /// Decodes `data` to 4 channels; returns its dimensions, or nil when stb_image fails.
    @discardableResult
    static func decode(_ data: Data) -> (width: Int, height: Int)? {
        data.withUnsafeBytes { raw -> (Int, Int)? in
            var width: Int32 = 0, height: Int32 = 0, channels: Int32 = 0
            guard
                let pixels = stbi_load_from_memory(
                    raw.bindMemory(to: UInt8.self).baseAddress, Int32(raw.count),
                    &width, &height, &channels, 4)
            else { return nil }
            stbi_image_free(pixels)
            return (Int(width), Int(height))
        }
    }
}
