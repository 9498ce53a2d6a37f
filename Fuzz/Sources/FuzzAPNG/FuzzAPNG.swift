import FuzzSupport
import TIP

/// The libFuzzer test: animated PNG, one-shot and incremental (acTL / fcTL / fdAT scanning, frame
/// rewriting, compositing, the first-frame renders), seeded with APNGs.
@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzAPNG(_ bytes: UnsafePointer<UInt8>?, _ size: Int) -> CInt {
    let data = fuzzData(bytes, size)
    let decoder = PNGCodec().decoder
    fuzzOneShot(decoder, data)
    fuzzIncrementally(decoder, data, maximumRenders: 6)
    return 0
}

/// Runs libFuzzer on ``fuzzAPNG``.
@main
enum FuzzAPNGMain {
    static func main() { runFuzzer(fuzzAPNG) }
}
