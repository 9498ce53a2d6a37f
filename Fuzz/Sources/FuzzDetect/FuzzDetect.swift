import FuzzSupport
import TIP
import TIPHEIF
import TIPJPEG2000
import TIPWebP

/// Every built-in codec plus the optional ones (WebP, JPEG 2000, HEIC, AVIF), created once.
private let catalogue: CodecCatalogue = {
    let catalogue = CodecCatalogue()
    TIPWebP.register(on: catalogue)
    TIPJPEG2000.register(on: catalogue)
    TIPHEIF.register(on: catalogue)
    return catalogue
}()

/// The libFuzzer test: image type detection on whole inputs and on every short prefix, by magic
/// numbers, by each decoder and by the catalogue.
@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzDetect(_ bytes: UnsafePointer<UInt8>?, _ size: Int) -> CInt {
    let data = fuzzData(bytes, size)
    let codecs = catalogue.allCodecs.values
    for length in [0, 1, 2, 3, 4, 8, 12, 16, 32, size] where length <= size {
        let prefix = data.prefix(length)
        _ = ImageType.detect(fromMagicNumbers: prefix)
        _ = catalogue.detectImageType(prefix, isComplete: length == size)
        for codec in codecs {
            _ = codec.decoder.detect(prefix, isComplete: length == size)
        }
    }
    return 0
}

/// Runs libFuzzer on ``fuzzDetect``.
@main
enum FuzzDetectMain {
    static func main() { runFuzzer(fuzzDetect) }
}
