import FuzzSupport
import TIP

/// The libFuzzer test: incremental JPEG decoding (the libjpeg C shim) fed in random chunk sizes.
@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzJPEGIncremental(_ bytes: UnsafePointer<UInt8>?, _ size: Int) -> CInt {
    fuzzIncrementally(JPEGCodec().decoder, fuzzData(bytes, size))
    return 0
}

/// Runs libFuzzer on ``fuzzJPEGIncremental``.
@main
enum FuzzJPEGIncrementalMain {
    static func main() { runFuzzer(fuzzJPEGIncremental) }
}
