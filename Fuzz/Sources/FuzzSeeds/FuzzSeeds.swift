import Foundation
import TIP
import TIPHEIF
import TIPJPEG2000
import TIPWebP

/// Never called: this executable is linked with libFuzzer like the fuzzers (one build, one set of
/// flags), and libFuzzer's archived `main` refers to this symbol even though SwiftPM's entry point
/// (the `@main` below) is the `main` that runs.
@_cdecl("LLVMFuzzerTestOneInput")
public func unusedFuzzTest(_ bytes: UnsafePointer<UInt8>?, _ size: Int) -> CInt { 0 }

/// Writes small generated seed images, made with the project's own encoders, into per-target
/// corpus directories: `FuzzSeeds <corpus-root>` creates `<root>/jpeg`, `png`, `gif`, `webp`, `tiff`,
/// `bmp`, `tga`, `apng` (ICO seeds come from the committed codec test files), `jpeg2000` and `heif`
/// (HEIC and AVIF, where this libheif can encode them).
@main
struct FuzzSeeds {
    static func main() throws {
        let arguments = CommandLine.arguments
        guard arguments.count == 2 else {
            FileHandle.standardError.write(Data("usage: FuzzSeeds <corpus-root>\n".utf8))
            exit(2)
        }
        let root = URL(fileURLWithPath: arguments[1])
        var written = 0
        for seed in seeds() {
            let directory = root.appendingPathComponent(seed.directory)
            try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
            try seed.data.write(to: directory.appendingPathComponent(seed.name))
            written += 1
        }
        print("FuzzSeeds: wrote \(written) seeds to \(root.path)")
    }

    /// One generated seed file.
    struct Seed {
        let directory: String
        let name: String
        let data: Data
    }

    static func seeds() -> [Seed] {
        var seeds: [Seed] = []
        let images: [(String, Bitmap)] = [
            ("photo", gradient(width: 48, height: 32, alpha: false)),
            ("alpha", gradient(width: 24, height: 40, alpha: true)),
            ("tiny", gradient(width: 3, height: 2, alpha: false)),
        ]
        func add(_ directory: String, _ name: String, _ make: () throws -> Data) {
            if let data = try? make() { seeds.append(Seed(directory: directory, name: name, data: data)) }
        }
        for (name, bitmap) in images {
            let image = ImageContainer(image: bitmap)
            add("jpeg", "\(name).jpg") { try encode(JPEGCodec(), image, options: [], quality: 0.7) }
            add("jpeg", "\(name)-progressive.jpg") {
                try encode(JPEGCodec(), image, options: [.progressive], quality: 0.5)
            }
            add("jpeg", "\(name)-gray.jpg") { try encode(JPEGCodec(), image, options: [.grayscale], quality: 0.6) }
            add("png", "\(name).png") { try encode(PNGCodec(), image, options: [], quality: 1) }
            add("png", "\(name)-indexed.png") {
                try encode(PNGCodec(), image, options: [.indexedColorPalette], quality: 1)
            }
            add("png", "\(name)-gray.png") { try encode(PNGCodec(), image, options: [.grayscale], quality: 1) }
            add("png", "\(name)-interlaced.png") { try encode(PNGCodec(), image, options: [.progressive], quality: 1) }
            add("gif", "\(name).gif") { try encode(GIFCodec(), image, options: [], quality: 1) }
            add("webp", "\(name).webp") { try encode(WebPCodec(), image, options: [], quality: 0.6) }
            add("webp", "\(name)-lossless.webp") { try encode(WebPCodec(), image, options: [], quality: 1) }
            add("tiff", "\(name).tif") { try encode(TIFFCodec(), image, options: [], quality: 1) }
            add("tiff", "\(name)-gray.tif") { try encode(TIFFCodec(), image, options: [.grayscale], quality: 1) }
            add("bmp", "\(name).bmp") { try encode(BMPCodec(), image, options: [], quality: 1) }
            add("bmp", "\(name)-gray.bmp") { try encode(BMPCodec(), image, options: [.grayscale], quality: 1) }
            add("tga", "\(name).tga") { try encode(TGACodec(), image, options: [], quality: 1) }
            add("tga", "\(name)-rle.tga") {
                try encode(TGACodec(compression: .runLength), image, options: [], quality: 1)
            }
            add("jpeg2000", "\(name).jp2") { try encode(JPEG2000Codec(), image, options: [], quality: 0.6) }
            add("jpeg2000", "\(name)-lossless.jp2") { try encode(JPEG2000Codec(), image, options: [], quality: 1) }
            add("jpeg2000", "\(name)-gray.jp2") {
                try encode(JPEG2000Codec(), image, options: [.grayscale], quality: 0.5)
            }
            add("heif", "\(name).heic") { try encode(HEIFCodec(format: .heic), image, options: [], quality: 0.5) }
            add("heif", "\(name).avif") { try encode(HEIFCodec(format: .avif), image, options: [], quality: 0.5) }
        }
        let frames = (0..<3).map { gradient(width: 16, height: 12, alpha: $0 == 1, shift: $0 * 40) }
        if let animation = ImageContainer(animatedFrames: frames, frameDurations: [0.1, 0.05, 0.2], loopCount: 2) {
            add("gif", "animated.gif") { try encode(GIFCodec(), animation, options: [], quality: 1) }
            add("webp", "animated.webp") { try encode(WebPCodec(), animation, options: [], quality: 0.8) }
            add("apng", "animated.png") { try encode(PNGCodec(), animation, options: [], quality: 1) }
            add("apng", "animated-interlaced.png") {
                try encode(PNGCodec(), animation, options: [.progressive], quality: 1)
            }
        }
        return seeds
    }

    /// Encodes with `codec`'s encoder (throws when it has none, e.g. a libheif without that encoder).
    static func encode(_ codec: any ImageCodec, _ image: ImageContainer, options: ImageEncodingOptions, quality: Float)
        throws -> Data
    {
        guard let encoder = codec.encoder else { throw CocoaError(.featureUnsupported) }
        return try encoder.encode(image, options: options, quality: quality)
    }

    /// A gradient with hard edges (and a transparent corner when `alpha`), premultiplied.
    static func gradient(width: Int, height: Int, alpha: Bool, shift: Int = 0) -> Bitmap {
        guard var bitmap = Bitmap(width: width, height: height, format: alpha ? .rgba8Premultiplied : .rgbx8) else {
            fatalError("seed bitmaps are small")
        }
        for y in 0..<height {
            for x in 0..<width {
                let a = alpha && x + y < width / 2 ? 0 : 255
                func channel(_ value: Int) -> UInt8 { UInt8((value % 256) * a / 255) }
                let edge = (x / 4 + y / 4) % 2 == 0 ? 60 : 0
                bitmap.setPixel(
                    x: x, y: y,
                    SIMD4(
                        channel(x * 255 / max(width - 1, 1) + shift), channel(y * 255 / max(height - 1, 1) + edge),
                        channel(128 + shift), UInt8(a)))
            }
        }
        return bitmap
    }
}
