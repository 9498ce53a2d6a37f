import FuzzSupport
import TIP

/// The libFuzzer test: PNG one-shot (libdeflate fast path, libpng fallback) and incremental decoding.
@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzPNG(_ bytes: UnsafePointer<UInt8>?, _ size: Int) -> CInt {
    let data = fuzzData(bytes, size)
    let decoder = PNGCodec().decoder
    fuzzOneShot(decoder, data)
    fuzzIncrementally(decoder, data)
    return 0
}

/// Runs libFuzzer on ``fuzzPNG``.
@main
enum FuzzPNGMain {
    static func main() { runFuzzer(fuzzPNG) }
}
