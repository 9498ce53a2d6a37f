import Foundation
import Testing

@testable import TIP

@Suite("ICO codec")
struct ICOCodecTests {
    let codec = ICOCodec()
    static let files = ["ico/png-entries.ico", "ico/bmp-entries.ico"]

    @Test("capabilities (decoding only, as in TIP) and detection")
    func capabilities() throws {
        #expect(codec.properties == [.decoding])
        #expect(codec.encoder == nil)
        #expect(throws: PipelineError.self) {
            try CodecCatalogue.shared.encodeImage(
                ImageContainer(image: TestImages.photo(width: 4, height: 4)), type: .ico, quality: 1)
        }
        for path in Self.files + ["ico/indexed-andmask.ico"] {
            let data = try CodecFixtureFiles.data(path)
            #expect(ImageType.detect(fromMagicNumbers: data) == .match(.ico))
            #expect(try CodecCatalogue.shared.decodeImage(data).type == .ico)
        }
    }

    @Test("the entry that fits the target best is decoded", arguments: files)
    func bestFit(_ path: String) throws {
        let data = try CodecFixtureFiles.data(path)
        // (target, mode, entry picked, output side)
        let cases: [(CGSize, ContentMode, Int, Int)] = [
            (.zero, .center, 32, 32),
            (CGSize(width: 16, height: 16), .scaleAspectFit, 16, 16),
            (CGSize(width: 20, height: 20), .scaleAspectFill, 24, 20),
            (CGSize(width: 8, height: 8), .scaleToFill, 8, 8),
            (CGSize(width: 6, height: 6), .scaleAspectFit, 8, 6),
            (CGSize(width: 64, height: 64), .scaleAspectFit, 32, 64),
            (CGSize(width: 16, height: 16), .center, 32, 32),
        ]
        for (target, mode, entry, side) in cases {
            let image = try codec.decoder.decode(
                data, options: ImageDecodingOptions(targetDimensions: target, targetContentMode: mode))
            #expect(image.image.width == side && image.image.height == side, "\(path) \(target) \(mode)")
            let reference = try CodecFixtureFiles.reference("\(path).\(entry)")
            // The entry's colour (the centre pixel) tells which one was picked.
            let centre = image.image.pixel(x: side / 2, y: side / 2)
            #expect(centre == reference.pixel(x: entry / 2, y: entry / 2), "\(path) \(target) picked the wrong entry")
            if side == entry {
                #expect(CodecFixtureFiles.difference(image.image, reference) <= 1, "\(path) entry \(entry)")
            }
        }
    }

    @Test("8-bit entries are made transparent by their AND mask")
    func andMask() throws {
        let data = try CodecFixtureFiles.data("ico/indexed-andmask.ico")
        for size in [16, 32] {
            let image = try codec.decoder.decode(
                data,
                options: ImageDecodingOptions(
                    targetDimensions: CGSize(width: size, height: size),
                    targetContentMode: .scaleAspectFit))
            let reference = try CodecFixtureFiles.reference("ico/indexed-andmask.ico.\(size)")
            #expect(image.image == reference.converted(to: .rgba8Premultiplied), "\(size)")
            #expect(image.image.pixel(x: 0, y: 0)[3] == 0)
        }
    }

    @Test("the context reports the largest entry's size and decodes for each render's target")
    func incremental() throws {
        let data = try CodecFixtureFiles.data("ico/bmp-entries.ico")
        let context = codec.decoder.makeContext(expectedLength: nil, options: ImageDecodingOptions())
        var results: [ImageDecoderAppendResult] = []
        for offset in stride(from: 0, to: data.count, by: 100) {
            results.append(try context.append(data[offset..<min(offset + 100, data.count)]))
        }
        #expect(results.contains(.didLoadHeaders) && results.last == .didCompleteLoading)
        #expect(context.dimensions == CGSize(width: 32, height: 32))
        let small = try #require(
            try context.render(
                mode: .completeImage, targetDimensions: CGSize(width: 8, height: 8), targetContentMode: .scaleAspectFit)
        )
        let large = try #require(
            try context.render(mode: .completeImage, targetDimensions: .zero, targetContentMode: .center))
        #expect(
            small.image
                == (try codec.decoder.decode(
                    data,
                    options: ImageDecodingOptions(
                        targetDimensions: CGSize(width: 8, height: 8),
                        targetContentMode: .scaleAspectFit))).image)
        #expect(large.image.width == 32)
    }

    @Test("bad directories and entries: typed errors, cut entries partial, never a crash")
    func badInput() throws {
        #expect(throws: ImageDecodingError.self) {
            try codec.decoder.decode(Data([0, 0, 1, 0, 0, 0]), options: ImageDecodingOptions())
        }
        // An entry pointing past the end of the file.
        var data = [UInt8](try CodecFixtureFiles.data("ico/png-entries.ico"))
        data[6 + 12] = 0xFF
        data[6 + 13] = 0xFF
        data[6 + 14] = 0xFF
        _ = try? codec.decoder.decode(Data(data), options: ImageDecodingOptions())
        let whole = try CodecFixtureFiles.data("ico/bmp-entries.ico")
        let cut = try codec.decoder.decode(whole.prefix(whole.count - 200), options: ImageDecodingOptions())
        #expect(cut.isPartial)
        try CodecFixtureFiles.decodeDamaged(
            Self.files + ["ico/indexed-andmask.ico"], with: codec.decoder, seed: 8, step: 3,
            copies: 200, flips: 3)
    }

    @Test("embedded PNGs declaring sizes whose area overflows are not taken at their word (a fuzz finding)")
    func hugeEmbeddedPNGSizes() throws {
        var data = [UInt8](try CodecFixtureFiles.data("ico/png-entries.ico"))
        var search = data.startIndex
        var patched = 0
        while let found = data[search...].firstRange(of: Array("IHDR".utf8)) {
            // Width and height follow the chunk type: both near 2^32, so width x height overflows an Int.
            for index in found.upperBound..<(found.upperBound + 8) { data[index] = 0xFF }
            search = found.upperBound
            patched += 1
        }
        #expect(patched > 1)
        for target in [CGSize.zero, CGSize(width: 64, height: 64)] {
            let options = ImageDecodingOptions(targetDimensions: target, targetContentMode: .scaleAspectFit)
            #expect(throws: ImageDecodingError.self) { try codec.decoder.decode(Data(data), options: options) }
        }
    }
}
