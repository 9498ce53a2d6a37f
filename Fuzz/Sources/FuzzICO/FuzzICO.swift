import FuzzSupport
import TIP

/// The libFuzzer test: ICO one-shot and incremental decoding (the directory, best-fit selection for
/// the fuzzers' target sizes, PNG and AND-masked bitmap entries).
@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzICO(_ bytes: UnsafePointer<UInt8>?, _ size: Int) -> CInt {
    let data = fuzzData(bytes, size)
    let decoder = ICOCodec().decoder
    fuzzOneShot(decoder, data)
    fuzzIncrementally(decoder, data)
    return 0
}

/// Runs libFuzzer on ``fuzzICO``.
@main
enum FuzzICOMain {
    static func main() { runFuzzer(fuzzICO) }
}
