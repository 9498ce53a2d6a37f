import CTurboJPEGReference
import Foundation
import FuzzSupport
import TIP

/// The libFuzzer test: TIP's one-shot JPEG decode (TurboJPEG, restart bands decoded in parallel, complete
/// progressive files through libjpeg with TIP's own AC decoder) against TurboJPEG alone at the same DCT scale.
/// Whenever TurboJPEG reads the input (at most with a warning), TIP's pixels must be its pixels, and a TurboJPEG
/// "premature end" must come back as a partial image. Any difference stops the run (a finding).
@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzJPEGDifferential(_ bytes: UnsafePointer<UInt8>?, _ size: Int) -> CInt {
    let data = fuzzData(bytes, size)
    guard let reference = TurboJPEGReference(data) else { return 0 }
    // The target is exactly the reference's size: TIP picks the same DCT scale and does not resample.
    let options = ImageDecodingOptions(
        targetDimensions: CGSize(width: reference.image.width, height: reference.image.height),
        targetContentMode: .scaleToFill, maximumPixelCount: FuzzOptions.maximumPixelCount)
    guard let decoded = try? JPEGCodec().decoder.decode(data, options: options) else {
        fatalError("TurboJPEG decodes this input (\(reference.warning ?? "no warning")) and TIP does not")
    }
    if decoded.image != reference.image {
        fatalError("TIP's pixels differ from TurboJPEG's (\(reference.warning ?? "no warning"))")
    }
    if let warning = reference.warning, warning.contains("Premature end"), !decoded.isPartial {
        fatalError("TurboJPEG reports \(warning); TIP's image is not partial")
    }
    return 0
}

/// TurboJPEG's own decode of an input, at the DCT scale TIP chooses for a target of that size.
struct TurboJPEGReference {
    let image: Bitmap
    let warning: String?

    /// Nil when TurboJPEG refuses the input, or when TIP's result would not be comparable: CMYK (TIP converts
    /// it), an EXIF segment (TIP applies the orientation), more than the fuzzers' pixel limit.
    init?(_ data: Data) {
        guard !data.isEmpty, data.range(of: Data("Exif".utf8)) == nil, let handle = tjInitDecompress() else {
            return nil
        }
        defer { tjDestroy(handle) }
        let result = data.withUnsafeBytes { raw -> (Bitmap, String?)? in
            let base = raw.bindMemory(to: UInt8.self).baseAddress
            var w: Int32 = 0, h: Int32 = 0, sampling: Int32 = 0, space: Int32 = 0
            guard tjDecompressHeader3(handle, base, UInt(raw.count), &w, &h, &sampling, &space) == 0, w > 0, h > 0,
                Int(w) * Int(h) <= FuzzOptions.maximumPixelCount,
                space != Int32(TJCS_CMYK.rawValue), space != Int32(TJCS_YCCK.rawValue)
            else { return nil }
            // One of 1/1, 1/2, 1/4, 1/8, picked by the input's length so a reproducer replays identically; then,
            // as TIP does, the largest reduction that gives those dimensions (they differ only for tiny images).
            func scaled(_ dimension: Int32, _ denominator: Int) -> Int {
                (Int(dimension) + denominator - 1) / denominator
            }
            let width = scaled(w, 1 << (raw.count % 4)), height = scaled(h, 1 << (raw.count % 4))
            guard let denominator = [8, 4, 2, 1].first(where: { scaled(w, $0) >= width && scaled(h, $0) >= height }),
                turboJPEGFactor(w, h, width, height) == denominator
            else { return nil }  // TurboJPEG would decode those dimensions at another scale (3/8 for 3 to 2, say)
            let gray = space == Int32(TJCS_GRAY.rawValue)
            guard var bitmap = Bitmap(width: width, height: height, format: gray ? .gray8 : .rgbx8) else { return nil }
            let pitch = bitmap.bytesPerRow
            let status = bitmap.withUnsafeMutableBytes { dst -> Int32 in
                // Mid gray first, as TIP fills before a decode that warns: rows a fatal error leaves unwritten.
                for y in 0..<height {
                    let row = dst.baseAddress! + y * pitch
                    if gray {
                        row.initializeMemory(as: UInt8.self, repeating: 0x80, count: width)
                    } else {
                        row.initializeMemory(
                            as: UInt32.self, repeating: UInt32(littleEndian: 0xFF80_8080), count: width)
                    }
                }
                return tjDecompress2(
                    handle, base, UInt(raw.count), dst.baseAddress!.assumingMemoryBound(to: UInt8.self),
                    Int32(width), Int32(pitch), Int32(height), Int32((gray ? TJPF_GRAY : TJPF_RGBX).rawValue), 0)
            }
            if status == 0 { return (bitmap, nil) }
            guard tjGetErrorCode(handle) == Int32(TJERR_WARNING.rawValue) else { return nil }
            return (bitmap, String(cString: tjGetErrorStr2(handle)))
        }
        guard let (image, warning) = result else { return nil }
        self.image = image
        self.warning = warning
    }
}

/// The reduction 1/d TurboJPEG's `tjDecompress2` uses to decode a `w` x `h` image to `width` x `height` (the
/// largest of its factors whose output fits), or nil when that factor is not such a reduction.
func turboJPEGFactor(_ w: Int32, _ h: Int32, _ width: Int, _ height: Int) -> Int? {
    var count: Int32 = 0
    guard let factors = tjGetScalingFactors(&count) else { return nil }
    for i in 0..<Int(count) {
        let f = factors[i]
        let fw = (Int(w) * Int(f.num) + Int(f.denom) - 1) / Int(f.denom)
        let fh = (Int(h) * Int(f.num) + Int(f.denom) - 1) / Int(f.denom)
        guard fw <= width, fh <= height else { continue }
        return f.num == 1 ? Int(f.denom) : (f.num == f.denom ? 1 : nil)
    }
    return nil
}

/// Runs libFuzzer on ``fuzzJPEGDifferential``.
@main
enum FuzzJPEGDifferentialMain {
    static func main() { runFuzzer(fuzzJPEGDifferential) }
}
