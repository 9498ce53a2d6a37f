import Foundation

@testable import TIP
@testable import TIPJPEG2000

/// The committed JPEG 2000 test files (`Fixtures/`, made by `scripts/make-codec-fixtures`) and what they
/// were made from.
enum JPEG2000TestFiles {
    /// The `Fixtures` directory next to this target's sources.
    static let directory: URL = {
        var url = URL(fileURLWithPath: #filePath)
        url.deleteLastPathComponent()  // Helpers
        url.deleteLastPathComponent()  // TIPJPEG2000Tests
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

    /// A JP2 of `bitmap` from our encoder.
    static func encode(_ bitmap: Bitmap, quality: Float, options: ImageEncodingOptions = []) throws -> Data {
        try JPEG2000Codec().encoder!.encode(ImageContainer(image: bitmap), options: options, quality: quality)
    }
}

/// Pixel comparisons for lossy codecs.
enum PixelComparison {
    /// Peak signal-to-noise ratio (dB) of `a` against `b` over premultiplied RGBA; infinity when equal.
    /// Large images are sampled on a regular grid of about 20,000 pixels (debug builds are slow).
    static func psnr(_ a: Bitmap, _ b: Bitmap) -> Double {
        precondition(a.width == b.width && a.height == b.height, "sizes differ")
        let step = max(1, Int((Double(a.width * a.height) / 20_000).squareRoot()))
        var squares = 0.0, count = 0
        for y in stride(from: 0, to: a.height, by: step) {
            for x in stride(from: 0, to: a.width, by: step) {
                let p = a.pixel(x: x, y: y), q = b.pixel(x: x, y: y)
                for c in 0..<4 {
                    let d = Double(p[c]) - Double(q[c])
                    squares += d * d
                }
                count += 4
            }
        }
        let mse = squares / Double(count)
        return mse == 0 ? .infinity : 10 * log10(255 * 255 / mse)
    }

    /// The largest difference of any channel between `a` and `b`.
    static func maximumDifference(_ a: Bitmap, _ b: Bitmap) -> Int {
        var worst = 0
        for y in 0..<a.height {
            for x in 0..<a.width {
                let p = a.pixel(x: x, y: y), q = b.pixel(x: x, y: y)
                for c in 0..<4 { worst = max(worst, abs(Int(p[c]) - Int(q[c]))) }
            }
        }
        return worst
    }
}

/// A small deterministic generator (SplitMix64) for damaged-input tests.
struct SeededGenerator: RandomNumberGenerator {
    private var state: UInt64
    init(seed: UInt64) { state = seed }
    mutating func next() -> UInt64 {
        state &+= 0x9E37_79B9_7F4A_7C15
        var z = state
        z = (z ^ (z >> 30)) &* 0xBF58_476D_1CE4_E5B9
        z = (z ^ (z >> 27)) &* 0x94D0_49BB_1331_11EB
        return z ^ (z >> 31)
    }
}
