import FuzzSupport
import TIP

/// The libFuzzer test: one-shot JPEG decoding (TurboJPEG, DCT scaling, EXIF, parallel restart decoding).
@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzJPEG(_ bytes: UnsafePointer<UInt8>?, _ size: Int) -> CInt {
    fuzzOneShot(JPEGCodec().decoder, fuzzData(bytes, size))
    return 0
}

/// Runs libFuzzer on ``fuzzJPEG``.
@main
enum FuzzJPEGMain {
    static func main() { runFuzzer(fuzzJPEG) }
}
