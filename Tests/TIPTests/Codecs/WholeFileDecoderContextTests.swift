import Foundation
import Testing

@testable import TIP

/// TIFF, BMP, TGA and ICO contexts: bytes in any chunking give the one-shot image.
@Suite("Whole-file decoder contexts")
struct WholeFileDecoderContextTests {
    static let files = [
        "tiff/rgb16-bigendian.tif", "tiff/rgba8-tiled.tif", "bmp/rle4.bmp", "bmp/bgra32-v4.bmp",
        "tga/rgba32-rle-topleft.tga", "tga/palette8.tga", "ico/png-entries.ico",
    ]

    @Test("every split point gives the header early, nothing before the end, then the one-shot image", arguments: files)
    func splits(_ path: String) throws {
        let data = try CodecFixtureFiles.data(path)
        let (reference, type) = try CodecCatalogue.shared.decodeImage(data)
        let decoder = try #require(CodecCatalogue.shared.codec(for: type)?.decoder)
        #expect(!decoder.supportsProgressiveDecoding)
        for split in stride(from: 1, to: data.count, by: max(1, data.count / 97)) {
            // Run-length TGA tells its end only by the expected length or finalize.
            let expected: Int? = split % 2 == 0 ? data.count : nil
            let context = decoder.makeContext(expectedLength: expected, options: ImageDecodingOptions())
            // Until the pixel data is whole (a TGA footer may follow it), nothing renders.
            if try context.append(data.prefix(split)) != .didCompleteLoading {
                #expect(
                    try context.render(mode: .anyProgress, targetDimensions: .zero, targetContentMode: .center) == nil,
                    "\(path) at \(split)")
            }
            _ = try context.append(data.suffix(from: split))
            #expect(context.dimensions == reference.dimensions, "\(path)")
            #expect(try context.finalize() == .didCompleteLoading, "\(path) at \(split)")
            #expect(context.frameCount == 1 && !context.isAnimated)
            let image = try #require(
                try context.render(mode: .completeImage, targetDimensions: .zero, targetContentMode: .center))
            #expect(image.image == reference.image, "\(path) at \(split)")
        }
    }

    @Test("a cut file: partial for any progress, nothing for whole frames; garbage throws at once", arguments: files)
    func cut(_ path: String) throws {
        let data = try CodecFixtureFiles.data(path)
        let (_, type) = try CodecCatalogue.shared.decodeImage(data)
        let decoder = try #require(CodecCatalogue.shared.codec(for: type)?.decoder)
        let context = decoder.makeContext(expectedLength: nil, options: ImageDecodingOptions())
        _ = try context.append(data.prefix(data.count - data.count / 3))
        // The header is in (a libtiff-written TIFF's directory comes last; an icon waits for its largest entry).
        #expect(context.dimensions != .zero || path.hasPrefix("tiff/rgba8-tiled") || path.hasPrefix("ico/"))
        let result = try? context.finalize()
        #expect(result != .didCompleteLoading, "\(path)")
        if let partial = try? context.render(mode: .anyProgress, targetDimensions: .zero, targetContentMode: .center) {
            #expect(partial.isPartial, "\(path)")
        }
        let whole = try? context.render(mode: .completeImage, targetDimensions: .zero, targetContentMode: .center)
        #expect(whole == nil, "\(path)")
        let empty = decoder.makeContext(expectedLength: nil, options: ImageDecodingOptions())
        #expect(throws: ImageDecodingError.emptyData) { try empty.finalize() }
        if type != .targa {
            let foreign = decoder.makeContext(expectedLength: nil, options: ImageDecodingOptions())
            #expect(throws: ImageDecodingError.self) { try foreign.append(Data([0xFF, 0xD8, 0xFF, 0xE0, 1, 2, 3, 4])) }
        }
    }

    @Test("the header is checked against the pixel limit as soon as it arrives")
    func limit() throws {
        for path in ["bmp/rgb24.bmp", "tga/rgb24.tga", "tiff/rgb8-lzw-strips.tif", "ico/bmp-entries.ico"] {
            let data = try CodecFixtureFiles.data(path)
            let (_, type) = try CodecCatalogue.shared.decodeImage(data)
            let context = try #require(CodecCatalogue.shared.codec(for: type)).decoder.makeContext(
                expectedLength: nil, options: ImageDecodingOptions(maximumPixelCount: 100))
            #expect(throws: ImageDecodingError.self, "\(path)") { try context.append(data) }
        }
    }
}
