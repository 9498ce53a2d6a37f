import FuzzSupport
import TIP

/// The libFuzzer test: GIF one-shot and incremental decoding (giflib, canvas compositing).
@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzGIF(_ bytes: UnsafePointer<UInt8>?, _ size: Int) -> CInt {
    let data = fuzzData(bytes, size)
    let decoder = GIFCodec().decoder
    fuzzOneShot(decoder, data)
    fuzzIncrementally(decoder, data)
    return 0
}

/// Runs libFuzzer on ``fuzzGIF``.
@main
enum FuzzGIFMain {
    static func main() { runFuzzer(fuzzGIF) }
}
