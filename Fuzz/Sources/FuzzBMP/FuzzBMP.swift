import FuzzSupport
import TIP

/// The libFuzzer test: BMP one-shot and incremental decoding (every header version, bit fields, RLE).
@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzBMP(_ bytes: UnsafePointer<UInt8>?, _ size: Int) -> CInt {
    let data = fuzzData(bytes, size)
    let decoder = BMPCodec().decoder
    fuzzOneShot(decoder, data)
    fuzzIncrementally(decoder, data)
    return 0
}

/// Runs libFuzzer on ``fuzzBMP``.
@main
enum FuzzBMPMain {
    static func main() { runFuzzer(fuzzBMP) }
}
