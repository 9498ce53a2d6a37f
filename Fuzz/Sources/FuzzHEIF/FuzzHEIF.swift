import FuzzSupport
import TIP
import TIPHEIF

/// The libFuzzer test: HEIC and AVIF one-shot and incremental decoding (box walking, libheif,
/// thumbnails, transformations, alpha).
@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzHEIF(_ bytes: UnsafePointer<UInt8>?, _ size: Int) -> CInt {
    let data = fuzzData(bytes, size)
    // Both formats read the same container; which decoder runs follows the input's length.
    let decoder = HEIFCodec(format: size % 2 == 0 ? .heic : .avif).decoder
    fuzzOneShot(decoder, data)
    fuzzIncrementally(decoder, data)
    return 0
}

/// Runs libFuzzer on ``fuzzHEIF``.
@main
enum FuzzHEIFMain {
    static func main() { runFuzzer(fuzzHEIF) }
}
