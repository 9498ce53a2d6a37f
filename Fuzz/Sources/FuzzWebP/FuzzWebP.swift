import FuzzSupport
import TIP
import TIPWebP

/// The libFuzzer test: WebP one-shot and incremental decoding (still and animated).
@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzWebP(_ bytes: UnsafePointer<UInt8>?, _ size: Int) -> CInt {
    let data = fuzzData(bytes, size)
    let decoder = WebPCodec().decoder
    fuzzOneShot(decoder, data)
    fuzzIncrementally(decoder, data)
    return 0
}

/// Runs libFuzzer on ``fuzzWebP``.
@main
enum FuzzWebPMain {
    static func main() { runFuzzer(fuzzWebP) }
}
