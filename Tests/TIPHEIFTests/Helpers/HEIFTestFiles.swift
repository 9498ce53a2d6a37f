import Foundation

@testable import TIP
@testable import TIPHEIF

/// The committed HEIC and AVIF test files (`Fixtures/`, made by `scripts/make-codec-fixtures`) and the
/// pictures they were made from.
enum HEIFTestFiles {
    /// The `Fixtures` directory next to this target's sources.
    static let directory: URL = {
        var url = URL(fileURLWithPath: #filePath)
        url.deleteLastPathComponent()  // Helpers
        url.deleteLastPathComponent()  // TIPHEIFTests
        return url.appendingPathComponent("Fixtures")
    }()

    /// The bytes of fixture `name`.
    static func data(_ name: String) throws -> Data {
        try Data(contentsOf: directory.appendingPathComponent(name))
    }

    /// The source picture `name` (a PNG fixture), decoded by TIP's PNG codec.
    static func source(_ name: String) throws -> Bitmap {
        try PNGCodec().decoder.decode(data(name), options: ImageDecodingOptions()).image
    }

    /// The decoder for the format of fixture `name` (by its extension).
    static func decoder(for name: String) -> any ImageDecoder {
        HEIFCodec(format: name.hasSuffix(".avif") ? .avif : .heic).decoder
    }

    /// PSNR (dB) of `a` against `b` over premultiplied RGBA, on a grid of about 20,000 pixels.
    static func psnr(_ a: Bitmap, _ b: Bitmap) -> Double {
        precondition(
            a.width == b.width && a.height == b.height, "sizes differ: \(a.width)x\(a.height) vs \(b.width)x\(b.height)"
        )
        let step = max(1, Int((Double(a.width * a.height) / 20_000).squareRoot()))
        var squares = 0.0, count = 0
        for y in stride(from: 0, to: a.height, by: step) {
            for x in stride(from: 0, to: a.width, by: step) {
                let difference = SIMD4<Double>(a.pixel(x: x, y: y)) - SIMD4<Double>(b.pixel(x: x, y: y))
                squares += (difference * difference).sum()
                count += 4
            }
        }
        let mse = squares / Double(count)
        return mse == 0 ? .infinity : 10 * log10(255 * 255 / mse)
    }
}
