import Foundation
import TIP

/// The source images the integration tests serve, made here with TIP's encoders (the same bytes every run), so
/// that the suite needs nothing from outside the repository and runs in any checkout.
enum Fixtures {
    /// The names the tests ask for, and what each is:
    /// - `twitterfied.jpg`: a 1024x576 photo-like baseline JPEG (16:9, for crop and fit sizes);
    /// - `pink_outfit.jpg`: a 480x546 baseline JPEG;
    /// - `someAlpha.png`: a 60x60 PNG with an alpha gradient (smaller than the boxes asked for);
    /// - `carnival.jpg`: a 1400x1400 noise JPEG at quality 98, over 2 MB (`Fixtures.largeByteCount`);
    /// - `carnival.pjpg`: a 1880x1253 progressive JPEG, over a million pixels and small in bytes.
    static let names = ["twitterfied.jpg", "carnival.jpg", "carnival.pjpg", "someAlpha.png", "pink_outfit.jpg"]

    /// Fewer bytes than `carnival.jpg` has, more than every other source has.
    static let largeByteCount = 2 * 1024 * 1024

    /// The bytes of `name`, made once per test process.
    static func data(_ name: String) throws -> Data {
        guard let data = try made.get()[name] else { throw CocoaError(.fileNoSuchFile) }
        return data
    }

    private static let made = Result { () throws -> [String: Data] in
        var all: [String: Data] = [:]
        for name in names { all[name] = try make(name) }
        return all
    }

    private static func make(_ name: String) throws -> Data {
        switch name {
        case "twitterfied.jpg": return try jpeg(photo(width: 1024, height: 576, seed: 1), quality: 0.85)
        case "pink_outfit.jpg": return try jpeg(photo(width: 480, height: 546, seed: 2), quality: 0.85)
        case "someAlpha.png": return try png(alphaGradient(side: 60))
        case "carnival.jpg": return try jpeg(noise(width: 1400, height: 1400, seed: 3), quality: 0.98)
        case "carnival.pjpg":
            return try jpeg(photo(width: 1880, height: 1253, seed: 4), quality: 0.75, options: [.progressive])
        default: throw CocoaError(.fileNoSuchFile)
        }
    }

    private static func jpeg(_ bitmap: Bitmap, quality: Float, options: ImageEncodingOptions = []) throws -> Data {
        guard let encoder = CodecCatalogue.shared.codec(for: .jpeg)?.encoder else {
            throw CocoaError(.featureUnsupported)
        }
        return try encoder.encode(ImageContainer(image: bitmap), options: options, quality: quality)
    }

    private static func png(_ bitmap: Bitmap) throws -> Data {
        guard let encoder = CodecCatalogue.shared.codec(for: .png)?.encoder else {
            throw CocoaError(.featureUnsupported)
        }
        return try encoder.encode(ImageContainer(image: bitmap), options: [], quality: 1)
    }

    /// Smooth colour fields with soft bands and a little grain: compresses about like a photo.
    private static func photo(width: Int, height: Int, seed: UInt64) -> Bitmap {
        var random = SplitMix(seed)
        var bytes = [UInt8](repeating: 0, count: width * height * 3)
        let phase = Double(random.next() % 628) / 100
        for y in 0..<height {
            for x in 0..<width {
                let u = Double(x) / Double(width), v = Double(y) / Double(height)
                let band = sin((u * 7 + v * 3) * .pi + phase) * 40
                let grain = Double(random.next() % 9) - 4
                let i = (y * width + x) * 3
                bytes[i] = UInt8(clamping: Int(120 + 100 * u + band + grain))
                bytes[i + 1] = UInt8(clamping: Int(60 + 150 * v - band / 2 + grain))
                bytes[i + 2] = UInt8(clamping: Int(200 - 120 * u * v + grain))
            }
        }
        return Bitmap(packedPixels: bytes, width: width, height: height, layout: .rgb8)!
    }

    /// Every sample random: about as large as a JPEG of that size gets.
    private static func noise(width: Int, height: Int, seed: UInt64) -> Bitmap {
        var random = SplitMix(seed)
        let bytes = (0..<(width * height * 3)).map { _ in UInt8(truncatingIfNeeded: random.next()) }
        return Bitmap(packedPixels: bytes, width: width, height: height, layout: .rgb8)!
    }

    /// Opaque at the top left, transparent at the bottom right.
    private static func alphaGradient(side: Int) -> Bitmap {
        var bytes = [UInt8](repeating: 0, count: side * side * 4)
        for y in 0..<side {
            for x in 0..<side {
                let i = (y * side + x) * 4
                bytes[i] = UInt8(x * 255 / side)
                bytes[i + 1] = 90
                bytes[i + 2] = UInt8(y * 255 / side)
                bytes[i + 3] = UInt8(255 - (x + y) * 255 / (2 * side))
            }
        }
        return Bitmap(packedPixels: bytes, width: side, height: side, layout: .rgba8)!
    }
}

/// A small deterministic generator (SplitMix64).
private struct SplitMix {
    private var state: UInt64
    init(_ seed: UInt64) { state = seed }
    mutating func next() -> UInt64 {
        state &+= 0x9E37_79B9_7F4A_7C15
        var z = state
        z = (z ^ (z >> 30)) &* 0xBF58_476D_1CE4_E5B9
        z = (z ^ (z >> 27)) &* 0x94D0_49BB_1331_11EB
        return z ^ (z >> 31)
    }
}
