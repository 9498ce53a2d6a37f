import CTurboJPEGDirect
import Foundation
@testable import TIP

/// TurboJPEG called directly, with nothing around it: the physical limit for JPEG decoding.
final class TurboJPEGDirect {
    private let handle: tjhandle

    init() {
        handle = tjInitDecompress()
    }

    deinit { tjDestroy(handle) }

    /// Header dimensions.
    func dimensions(_ data: Data) -> (width: Int, height: Int) {
        var w: Int32 = 0, h: Int32 = 0, sub: Int32 = 0, cs: Int32 = 0
        _ = data.withUnsafeBytes {
            tjDecompressHeader3(handle, $0.bindMemory(to: UInt8.self).baseAddress, UInt(data.count), &w, &h, &sub, &cs)
        }
        return (Int(w), Int(h))
    }

    /// The DCT scale TIP's codec decodes `data` at for `options` (its own `JPEGScaleSelection`), as the
    /// denominator of 1/1, 1/2, 1/4 or 1/8.
    func scaleDenominator(_ data: Data, for options: ImageDecodingOptions) -> Int32 {
        let (w, h) = dimensions(data)
        let selection = JPEGScaleSelection(
            width: w, height: h, orientation: .up, targetDimensions: options.targetDimensions,
            contentMode: options.targetContentMode)
        return Int32(selection.denominator)
    }

    /// Decodes to RGBX at `num/denom` scale into a freshly allocated 64-byte-aligned buffer (like
    /// the codec does), and frees it. Returns the decoded dimensions.
    @discardableResult
    func decode(_ data: Data, num: Int32 = 1, denom: Int32 = 1) -> (width: Int, height: Int) {
        let (w, h) = dimensions(data)
        let sw = (w * Int(num) + Int(denom) - 1) / Int(denom)
        let sh = (h * Int(num) + Int(denom) - 1) / Int(denom)
        let pitch = (sw * 4 + 63) / 64 * 64
        let buffer = UnsafeMutableRawPointer.allocate(byteCount: pitch * sh, alignment: 64)
        defer { buffer.deallocate() }
        _ = data.withUnsafeBytes {
            tjDecompress2(
                handle, $0.bindMemory(to: UInt8.self).baseAddress, UInt(data.count),
                buffer.assumingMemoryBound(to: UInt8.self), Int32(sw), Int32(pitch), Int32(sh),
                Int32(TJPF_RGBX.rawValue), 0)
        }
        return (sw, sh)
    }

    /// Decodes to RGBX at `num/denom` scale into a ``Bitmap`` (for rows that then resample).
    func decodeBitmap(_ data: Data, num: Int32, denom: Int32) -> Bitmap {
        let (w, h) = dimensions(data)
        let sw = (w * Int(num) + Int(denom) - 1) / Int(denom)
        let sh = (h * Int(num) + Int(denom) - 1) / Int(denom)
        var bitmap = Bitmap(width: sw, height: sh, format: .rgbx8)!
        let pitch = bitmap.bytesPerRow
        bitmap.withUnsafeMutableBytes { dst in
            _ = data.withUnsafeBytes {
                tjDecompress2(
                    handle, $0.bindMemory(to: UInt8.self).baseAddress, UInt(data.count),
                    dst.baseAddress!.assumingMemoryBound(to: UInt8.self), Int32(sw), Int32(pitch), Int32(sh),
                    Int32(TJPF_RGBX.rawValue), 0)
            }
        }
        return bitmap
    }
}
