import Foundation
import TIP

/// The images benchmarks run on: the shared fixtures when present, plus generated images of
/// controlled size made with the project's own encoders.
enum Inputs {
    /// `../shared/fixtures` next to the project root (or `$TIP_FIXTURES`, as `scripts/fuzz` reads it), when present.
    static let fixtures: URL? = {
        if let path = ProcessInfo.processInfo.environment["TIP_FIXTURES"], FileManager.default.fileExists(atPath: path)
        {
            return URL(fileURLWithPath: path, isDirectory: true)
        }
        var url = URL(fileURLWithPath: #filePath)
        for _ in 0..<5 { url.deleteLastPathComponent() }  // TIPBenchmarks, Sources, Benchmarks, project root
        let candidate = url.appendingPathComponent("shared/fixtures")
        return FileManager.default.fileExists(atPath: candidate.path) ? candidate : nil
    }()

    /// A fixture's bytes, or nil (with a message) when the fixtures are absent.
    static func fixture(_ name: String) -> Data? {
        guard let fixtures, let data = try? Data(contentsOf: fixtures.appendingPathComponent(name)) else {
            print("note: fixture \(name) not found (../shared/fixtures); rows that need it use generated images")
            return nil
        }
        return data
    }

    /// A photo-like opaque bitmap of the given size.
    static func photo(width: Int, height: Int) -> Bitmap {
        var bitmap = Bitmap(width: width, height: height, format: .rgbx8)!
        let stride = bitmap.bytesPerRow
        var seed: UInt32 = 12345
        bitmap.withUnsafeMutableBytes { bytes in
            for y in 0..<height {
                let row = bytes.baseAddress! + y * stride
                for x in 0..<width {
                    seed = seed &* 1_103_515_245 &+ 12345
                    let noise = Double(Int(seed >> 28) - 8)
                    let fx = Double(x) / Double(width), fy = Double(y) / Double(height)
                    let r = 127 + 100 * sin(9 * fx + 3 * fy) + noise
                    let g = 127 + 100 * cos(7 * fy - 2 * fx) + noise
                    let b = 127 + 100 * sin(5 * (fx + fy)) + noise
                    func c(_ v: Double) -> UInt8 { UInt8(max(0, min(255, v))) }
                    row.storeBytes(of: SIMD4<UInt8>(c(r), c(g), c(b), 255), toByteOffset: x * 4, as: SIMD4<UInt8>.self)
                }
            }
        }
        return bitmap
    }

    /// Encodes a generated photo with our own encoder.
    static func generated(
        _ type: ImageType, width: Int, height: Int, options: ImageEncodingOptions = [], quality: Float = 0.83
    ) throws -> Data {
        try CodecCatalogue.shared.encodeImage(
            ImageContainer(image: photo(width: width, height: height)), type: type, quality: quality, options: options)
    }

    /// `image` encoded losslessly (quality 1, no options) by `codec`'s encoder.
    static func encode(_ image: ImageContainer, with codec: any ImageCodec) throws -> Data {
        guard let encoder = codec.encoder else { throw BenchmarkFailure("\(codec) has no encoder") }
        return try encoder.encode(image, options: [], quality: 1)
    }

    /// Writes `data` to a temporary file (for the Python peers) and returns its path.
    static func temporaryFile(_ data: Data, name: String) throws -> String {
        let dir = FileManager.default.temporaryDirectory.appendingPathComponent("tip-benchmarks")
        try FileManager.default.createDirectory(at: dir, withIntermediateDirectories: true)
        let url = dir.appendingPathComponent(name)
        try data.write(to: url)
        return url.path
    }
}
