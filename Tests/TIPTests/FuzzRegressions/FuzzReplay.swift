import Foundation

@testable import TIP

/// Replays a fuzzer input the way the `Fuzz/` targets do (same options, same chunking), so each
/// reproducer test runs exactly the code path that failed.
enum FuzzReplay {
    /// The fuzzers' pixel bound (Fuzz/Sources/FuzzSupport/FuzzOptions.swift).
    static let maximumPixelCount = 1 << 20

    /// The target sizing the fuzzers pick for an input of `size` bytes.
    static func sizing(for size: Int) -> (CGSize, ContentMode) {
        switch size % 4 {
        case 0: return (.zero, .center)
        case 1: return (CGSize(width: 64, height: 64), .scaleAspectFit)
        case 2: return (CGSize(width: 200, height: 100), .scaleAspectFill)
        default: return (CGSize(width: 33, height: 17), .scaleToFill)
        }
    }

    /// The fuzzers' decoding options for an input of `size` bytes.
    static func options(for size: Int) -> ImageDecodingOptions {
        let (dimensions, mode) = sizing(for: size)
        return ImageDecodingOptions(
            targetDimensions: dimensions, targetContentMode: mode, maximumPixelCount: maximumPixelCount)
    }

    /// Decodes `data` in one shot with the fuzzers' options.
    static func oneShot(_ decoder: any ImageDecoder, _ data: Data) throws(ImageDecodingError) -> ImageContainer {
        try decoder.decode(data, options: options(for: data.count))
    }

    /// Bytes from a base64 reproducer (line breaks allowed).
    static func bytes(_ base64: String) -> Data {
        guard let data = Data(base64Encoded: base64, options: .ignoreUnknownCharacters) else {
            preconditionFailure("bad base64 reproducer")
        }
        return data
    }
}
