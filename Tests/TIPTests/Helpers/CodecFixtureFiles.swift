import Foundation

@testable import TIP

/// The small TIFF, BMP, TGA, ICO and APNG files committed under `Tests/CodecFixtures` (made by its
/// `generate.py`), each with a reference PNG of what it shows (`<file>.png`).
enum CodecFixtureFiles {
    /// `Tests/CodecFixtures`.
    static let directory: URL = {
        var url = URL(fileURLWithPath: #filePath)
        for _ in 0..<3 { url.deleteLastPathComponent() }  // Helpers, TIPTests, Tests
        return url.appendingPathComponent("CodecFixtures")
    }()

    /// The bytes of `path` (relative to the directory, e.g. "tiff/rgb8-lzw-strips.tif").
    static func data(_ path: String) throws -> Data {
        try Data(contentsOf: directory.appendingPathComponent(path))
    }

    /// Every fixture of a kind ("tiff", "bmp", ...), reference PNGs excluded, sorted.
    static func files(_ kind: String) -> [String] {
        let names =
            (try? FileManager.default.contentsOfDirectory(atPath: directory.appendingPathComponent(kind).path)) ?? []
        return names.filter { !$0.hasSuffix(".png") || kind == "apng" && !$0.hasSuffix(".png.png") }
            .sorted().map { "\(kind)/\($0)" }
    }

    /// The reference image of `path` (`<path>.png`), decoded by the project's PNG decoder.
    static func reference(_ path: String) throws -> Bitmap {
        try PNGDecoder().decode(try data(path + ".png"), options: ImageDecodingOptions()).image
    }

    /// The largest per-channel difference between `bitmap` and `reference` (premultiplied, as decoded).
    static func difference(_ bitmap: Bitmap, _ reference: Bitmap) -> Int {
        ImageComparison.maxDifference(bitmap, reference)
    }

    /// Decodes every `step`-th prefix of each file and `copies` copies with `flips` random bytes changed:
    /// each gives an image or a typed error (a crash or a trap ends the test run).
    static func decodeDamaged(
        _ paths: [String], with decoder: any ImageDecoder, seed: UInt64, step: Int = 1,
        copies: Int = 100, flips: Int = 4
    ) throws {
        var rng = SplitMix64(seed: seed)
        for path in paths {
            let data = try Self.data(path)
            for length in stride(from: 0, to: data.count, by: step) {
                _ = try? decoder.decode(data.prefix(length), options: ImageDecodingOptions())
            }
            for _ in 0..<copies {
                var bytes = [UInt8](data)
                for _ in 0..<flips {
                    bytes[Int(rng.next() % UInt64(bytes.count))] = UInt8(truncatingIfNeeded: rng.next())
                }
                _ = try? decoder.decode(Data(bytes), options: ImageDecodingOptions(maximumPixelCount: 1 << 20))
            }
        }
    }
}
