import Foundation
import Testing

@testable import TIP

@Suite("TIFF codec")
struct TIFFCodecTests {
    let codec = TIFFCodec()

    @Test("capabilities, detection and the catalogue")
    func capabilities() throws {
        #expect(codec.properties == [.decoding, .encoding])
        #expect(CodecCatalogue.shared.properties(for: .tiff) == [.decoding, .encoding])
        for path in ["tiff/rgb8-lzw-strips.tif", "tiff/rgb16-bigendian.tif", "tiff/bigtiff.tif"] {
            let data = try CodecFixtureFiles.data(path)
            #expect(ImageType.detect(fromMagicNumbers: data) == .match(.tiff), "\(path)")
            #expect(CodecCatalogue.shared.detectImageType(data, isComplete: true) == .tiff, "\(path)")
            #expect(codec.decoder.detect(data.prefix(2), isComplete: false) == .needMoreData)
        }
        #expect(codec.decoder.detect(Data("II*".utf8), isComplete: true) == .noMatch)
        #expect(codec.decoder.detect(Data("MZ\0*".utf8), isComplete: false) == .noMatch)
    }

    @Test(
        "round trip: RGB and gray exactly, alpha within one step, LZW with differencing",
        arguments: [PixelFormat.rgbx8, .gray8, .rgba8Premultiplied])
    func roundTrip(_ format: PixelFormat) throws {
        let source =
            format == .rgba8Premultiplied
            ? TestImages.translucent(width: 37, height: 29)
            : TestImages.photo(width: 37, height: 29).converted(to: format)
        let data = try codec.encoder!.encode(ImageContainer(image: source), options: [], quality: 0.5)
        let tags = try #require(
            data.withUnsafeBytes {
                TIFFDirectory($0).flatMap { directory in
                    directory.entries().map { entries in
                        Dictionary(entries.map { ($0.tag, directory.values(of: $0)?.first ?? -1) }) { a, _ in a }
                    }
                }
            })
        #expect(tags[259] == 5 && tags[317] == 2)  // LZW, horizontal predictor
        #expect(tags[277] == (format == .gray8 ? 1 : format == .rgbx8 ? 3 : 4))
        let decoded = try codec.decoder.decode(data, options: ImageDecodingOptions()).image
        #expect(decoded.width == 37 && decoded.height == 29)
        #expect(ImageComparison.maxDifference(decoded, source) <= (format == .rgba8Premultiplied ? 1 : 0))
        // Grayscale and noAlpha options.
        let gray = try codec.encoder!.encode(ImageContainer(image: source), options: [.grayscale], quality: 1)
        #expect(
            try codec.decoder.decode(gray, options: ImageDecodingOptions()).image.converted(to: .gray8)
                == source.converted(to: .gray8))
    }

    @Test("large images decode in bands on several cores, exactly as one sequential decode", arguments: [false, true])
    func parallel(_ alpha: Bool) throws {
        let source = alpha ? TestImages.translucent(width: 700, height: 500) : TestImages.photo(width: 700, height: 500)
        let data = try codec.encoder!.encode(ImageContainer(image: source), options: [], quality: 1)
        let decoded = try codec.decoder.decode(data, options: ImageDecodingOptions())
        #expect(!decoded.isPartial)
        #expect(ImageComparison.maxDifference(decoded.image, source) <= (alpha ? 1 : 0))
        // A damaged strip in the second half: the bands fail, the sequential decode keeps the rows above it.
        var damaged = [UInt8](data)
        let offsets = try #require(
            data.withUnsafeBytes { raw in
                TIFFDirectory(raw).flatMap { directory in directory.entry(273).flatMap { directory.values(of: $0) } }
            })
        let strip = offsets[offsets.count * 3 / 4]
        for i in 0..<64 { damaged[strip + i] = 0xFF }
        let partial = try codec.decoder.decode(Data(damaged), options: ImageDecodingOptions())
        #expect(partial.isPartial)
        #expect(partial.image.pixel(x: 10, y: 10) == decoded.image.pixel(x: 10, y: 10))
    }

    @Test("decodes straight to the target sizing, orientation applied first")
    func targetSizing() throws {
        let data = try CodecFixtureFiles.data("tiff/orientation6.tif")
        let own = try codec.decoder.decode(data, options: ImageDecodingOptions())
        #expect(own.image.width == 13 && own.image.height == 21)
        let fitted = try codec.decoder.decode(
            data,
            options: ImageDecodingOptions(
                targetDimensions: CGSize(width: 10, height: 10),
                targetContentMode: .scaleAspectFit))
        #expect(fitted.image.width == 6 && fitted.image.height == 10)
        let context = codec.decoder.makeContext(expectedLength: nil, options: ImageDecodingOptions())
        _ = try context.append(data)
        #expect(context.dimensions == CGSize(width: 13, height: 21))
    }

    @Test("hostile dimensions are refused from the header, before libtiff allocates")
    func bomb() throws {
        var data = [UInt8](try CodecFixtureFiles.data("tiff/rgb16-bigendian.tif"))
        // ImageWidth (the first entry, SHORT) -> 65535, and ImageLength -> 65535: 4.3 gigapixels.
        data[14 + 2 + 8] = 0xFF; data[14 + 2 + 9] = 0xFF
        data[14 + 2 + 12 + 8] = 0xFF; data[14 + 2 + 12 + 9] = 0xFF
        #expect(
            throws: ImageDecodingError.dimensionsTooLarge(
                width: 65535, height: 65535, maximumPixelCount: ImageDecodingOptions.defaultMaximumPixelCount)
        ) {
            try codec.decoder.decode(Data(data), options: ImageDecodingOptions())
        }
        let context = codec.decoder.makeContext(expectedLength: nil, options: ImageDecodingOptions())
        #expect(throws: ImageDecodingError.self) { try context.append(Data(data)) }
    }

    @Test("truncated, damaged and foreign data give typed errors or partial images, on many threads at once")
    func badInput() throws {
        // Pillow writes the directory first: a cut file keeps the strips it holds.
        let uncompressed = try CodecFixtureFiles.data("tiff/rgb16-bigendian.tif")
        let whole = try codec.decoder.decode(uncompressed, options: ImageDecodingOptions()).image
        let cut = try codec.decoder.decode(
            uncompressed.prefix(uncompressed.count - 200), options: ImageDecodingOptions())
        #expect(cut.isPartial)
        #expect(cut.image.pixel(x: 3, y: 0) == whole.pixel(x: 3, y: 0))
        #expect(cut.image.pixel(x: 3, y: 12) == SIMD4(0, 0, 0, 255))
        // libtiff writes the directory last: a cut file has no header.
        let encoded = try codec.encoder!.encode(
            ImageContainer(image: TestImages.photo(width: 40, height: 30)), options: [], quality: 1)
        #expect(throws: ImageDecodingError.truncatedData) {
            try codec.decoder.decode(encoded.prefix(encoded.count / 2), options: ImageDecodingOptions())
        }
        #expect(throws: ImageDecodingError.self) {
            try codec.decoder.decode(Data("II*\0garbage".utf8), options: ImageDecodingOptions())
        }
        #expect(throws: ImageDecodingError.self) {
            try codec.decoder.decode(Data("MM\0*\0\0\0\u{8}".utf8), options: ImageDecodingOptions())
        }
        // Every prefix and a thousand random byte flips of several files, on four threads: never a crash,
        // and each decode's errors stay its own (per-handle handlers, no global state).
        let files = try [
            "tiff/rgb8-lzw-strips.tif", "tiff/rgba8-tiled.tif", "tiff/jpeg-ycbcr.tif", "tiff/palette8.tif",
        ].map(CodecFixtureFiles.data)
        let references = try files.map { try codec.decoder.decode($0, options: ImageDecodingOptions()).image }
        let mismatches = Locked(0)
        DispatchQueue.concurrentPerform(iterations: 4) { worker in
            var rng = SplitMix64(seed: UInt64(worker))
            let file = files[worker]
            for step in 0..<250 {
                var bytes = [UInt8](file)
                if step % 2 == 0 {
                    for _ in 0..<3 {
                        bytes[Int(rng.next() % UInt64(bytes.count))] = UInt8(truncatingIfNeeded: rng.next())
                    }
                } else {
                    bytes = Array(bytes.prefix(Int(rng.next() % UInt64(bytes.count))))
                }
                _ = try? codec.decoder.decode(Data(bytes), options: ImageDecodingOptions(maximumPixelCount: 1 << 20))
                // A clean decode in between still gives the exact image.
                if step % 50 == 0,
                    (try? codec.decoder.decode(file, options: ImageDecodingOptions()).image) != references[worker]
                {
                    mismatches.withLock { $0 += 1 }
                }
            }
        }
        #expect(mismatches.withLock { $0 } == 0)
    }

    @Test(
        "the context reads the header as soon as the directory and its tables are in",
        arguments: ["tiff/rgb16-bigendian.tif", "tiff/rgb8-lzw-strips.tif"])
    func incremental(_ path: String) throws {
        let data = try CodecFixtureFiles.data(path)
        let reference = try codec.decoder.decode(data, options: ImageDecodingOptions())
        let header = try #require(try data.withUnsafeBytes { try TIFFHeader($0) })
        #expect(header.fileLength == data.count)
        let context = codec.decoder.makeContext(expectedLength: nil, options: ImageDecodingOptions())
        var sawHeader = false
        for offset in stride(from: 0, to: data.count, by: 16) {
            let result = try context.append(data[offset..<min(offset + 16, data.count)])
            if result == .didLoadHeaders { sawHeader = true }
            if offset + 16 < data.count {
                #expect(
                    try context.render(mode: .anyProgress, targetDimensions: .zero, targetContentMode: .center) == nil)
            } else {
                #expect(result == .didCompleteLoading)
            }
        }
        #expect(sawHeader || context.dimensions != .zero)
        #expect(try context.finalize() == .didCompleteLoading)
        let image = try #require(
            try context.render(mode: .completeImage, targetDimensions: .zero, targetContentMode: .center))
        #expect(image.image == reference.image)
    }
}
