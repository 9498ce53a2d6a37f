import FuzzSupport
import TIP

/// The libFuzzer test: TGA detection, one-shot and incremental decoding (colour maps, run lengths,
/// origins, the TGA 2.0 extension area).
@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzTGA(_ bytes: UnsafePointer<UInt8>?, _ size: Int) -> CInt {
    let data = fuzzData(bytes, size)
    let decoder = TGACodec().decoder
    fuzzOneShot(decoder, data)
    fuzzIncrementally(decoder, data)
    return 0
}

/// Runs libFuzzer on ``fuzzTGA``.
@main
enum FuzzTGAMain {
    static func main() { runFuzzer(fuzzTGA) }
}
