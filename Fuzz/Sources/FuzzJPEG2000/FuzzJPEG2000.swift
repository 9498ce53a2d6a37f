import FuzzSupport
import TIP
import TIPJPEG2000

/// The libFuzzer test: JPEG 2000 one-shot and incremental decoding (JP2 and codestreams, reduced
/// resolutions, partial codestreams).
@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzJPEG2000(_ bytes: UnsafePointer<UInt8>?, _ size: Int) -> CInt {
    let data = fuzzData(bytes, size)
    let decoder = JPEG2000Codec().decoder
    fuzzOneShot(decoder, data)
    fuzzIncrementally(decoder, data)
    return 0
}

/// Runs libFuzzer on ``fuzzJPEG2000``.
@main
enum FuzzJPEG2000Main {
    static func main() { runFuzzer(fuzzJPEG2000) }
}
