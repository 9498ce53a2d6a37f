import FuzzSupport
import TIP

/// The libFuzzer test: TIFF one-shot and incremental decoding (libtiff through the CTIFF shim, the
/// directory parser, orientation, partial strips).
@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzTIFF(_ bytes: UnsafePointer<UInt8>?, _ size: Int) -> CInt {
    let data = fuzzData(bytes, size)
    let decoder = TIFFCodec().decoder
    fuzzOneShot(decoder, data)
    fuzzIncrementally(decoder, data)
    return 0
}

/// Runs libFuzzer on ``fuzzTIFF``.
@main
enum FuzzTIFFMain {
    static func main() { runFuzzer(fuzzTIFF) }
}
