import Foundation
import Synchronization
import Testing

@testable import TIP

/// A codec for a made-up format: "FAKE", width and height as big-endian UInt16, one gray byte.
/// Decodes straight to the options' output dimensions, filled with the gray byte (or with the
/// configuration's value when it is a UInt8).
private struct FakeCodec: ImageCodec {
    static let type = ImageType(rawValue: "test.fake")
    var decoder: any ImageDecoder { FakeDecoder() }

    static func encode(width: Int, height: Int, gray: UInt8) -> Data {
        var data = Data("FAKE".utf8)
        data.append(contentsOf: [
            UInt8(width >> 8), UInt8(width & 0xFF), UInt8(height >> 8), UInt8(height & 0xFF), gray,
        ])
        return data
    }
}

private struct FakeDecoder: ImageDecoder {
    func detect(_ data: Data, isComplete: Bool) -> ImageDecoderDetection {
        if data.count < 4 { return Data("FAKE".utf8).starts(with: data) ? .needMoreData : .noMatch }
        return data.starts(with: Data("FAKE".utf8)) ? .match : .noMatch
    }

    func decode(_ data: Data, options: ImageDecodingOptions) throws(ImageDecodingError) -> ImageContainer {
        let bytes = [UInt8](data)
        guard bytes.count >= 9, detect(data, isComplete: true) == .match else { throw .corruptData("not FAKE") }
        let width = Int(bytes[4]) << 8 | Int(bytes[5]), height = Int(bytes[6]) << 8 | Int(bytes[7])
        try options.checkDimensions(width: width, height: height)
        let gray = (options.configuration as? UInt8) ?? bytes[8]
        let out = options.outputDimensions(width: width, height: height)
        guard var bitmap = Bitmap(width: out.width, height: out.height, format: .gray8) else {
            throw .corruptData("size")
        }
        bitmap.withUnsafeMutableBytes { _ = $0.initializeMemory(as: UInt8.self, repeating: gray) }
        return ImageContainer(image: bitmap)
    }

    func makeContext(expectedLength: Int?, options: ImageDecodingOptions) -> any ImageDecoderContext {
        FakeContext(decoder: self, options: options)
    }
}

private final class FakeContext: ImageDecoderContext {
    let decoder: FakeDecoder
    let options: ImageDecodingOptions
    var data = Data()
    init(decoder: FakeDecoder, options: ImageDecodingOptions) { self.decoder = decoder; self.options = options }
    var dimensions: CGSize { .zero }
    var frameCount: Int { 0 }
    var isProgressive: Bool { false }
    var isAnimated: Bool { false }
    var hasAlpha: Bool { false }
    func append(_ data: Data) throws(ImageDecodingError) -> ImageDecoderAppendResult {
        self.data.append(data); return .didProgress
    }
    func finalize() throws(ImageDecodingError) -> ImageDecoderAppendResult { .didCompleteLoading }
    func render(mode: ImageDecoderRenderMode, targetDimensions: CGSize, targetContentMode: ContentMode)
        throws(ImageDecodingError) -> ImageContainer?
    {
        try decoder.decode(data, options: options)
    }
}

@Suite("Memory cache decode on hit")
struct MemoryCacheDecodeTests {
    let configuration = makeCacheTestConfiguration()
    let cache: MemoryCache
    let catalogue = CodecCatalogue(codecs: [FakeCodec.type: FakeCodec()])

    init() {
        configuration.memoryDomain.setLimits(maxBytes: 1 << 30, maxCount: 0, ratio: 0)
        cache = MemoryCache(domain: configuration.memoryDomain, configuration: configuration)
    }

    func store(_ data: Data, type: ImageType? = FakeCodec.type, width: Int = 400, height: Int = 300) throws
        -> MemoryCacheEntry
    {
        let identifier = UUID().uuidString
        let complete = MemoryCacheCompleteImage(
            data: data, imageType: type, url: MemoryTestValue.url("fake"),
            dimensions: CGSize(width: width, height: height))
        cache.updateEntry(MemoryCacheEntry(identifier: identifier, complete: complete))
        return try #require(cache.entry(withIdentifier: identifier))
    }

    @Test(
        "A hit decodes straight to the request's target sizing",
        arguments: [
            (CGSize(width: 100, height: 100), ContentMode.scaleAspectFit, 100, 75),
            (CGSize(width: 100, height: 100), ContentMode.scaleAspectFill, 133, 100),
            (CGSize(width: 50, height: 20), ContentMode.scaleToFill, 50, 20),
            (CGSize.zero, ContentMode.scaleAspectFit, 400, 300),
            (CGSize(width: 100, height: 100), ContentMode.center, 400, 300),
        ])
    func decodesAtTarget(target: CGSize, mode: ContentMode, width: Int, height: Int) throws {
        let entry = try store(FakeCodec.encode(width: 400, height: 300, gray: 77))
        let image = try cache.decodeCompleteImage(
            of: entry, targetDimensions: target, targetContentMode: mode, catalogue: catalogue)
        #expect(image.image.width == width && image.image.height == height)
        #expect(image.image.pixel(x: 0, y: 0).x == 77)
    }

    @Test("The type hint is optional and the decoder configuration reaches the decoder")
    func typeHintAndConfiguration() throws {
        let entry = try store(FakeCodec.encode(width: 8, height: 8, gray: 5), type: nil)
        let plain = try cache.decodeCompleteImage(
            of: entry, targetDimensions: .zero, targetContentMode: .center, catalogue: catalogue)
        #expect(plain.image.pixel(x: 0, y: 0).x == 5)
        let configured = try cache.decodeCompleteImage(
            of: entry, targetDimensions: .zero, targetContentMode: .center,
            decoderConfigMap: [FakeCodec.type: UInt8(200)], catalogue: catalogue)
        #expect(configured.image.pixel(x: 0, y: 0).x == 200)
    }

    @Test("Undecodable bytes throw ImageDecodingError; the entry stays cached")
    func failures() throws {
        let garbage = try store(Data([1, 2, 3, 4, 5]))
        #expect(throws: ImageDecodingError.corruptData("not FAKE")) {
            try cache.decodeCompleteImage(
                of: garbage, targetDimensions: .zero, targetContentMode: .center, catalogue: catalogue)
        }
        let unknown = try store(Data([1, 2, 3, 4, 5]), type: nil)
        #expect(throws: ImageDecodingError.unrecognizedFormat) {
            try cache.decodeCompleteImage(
                of: unknown, targetDimensions: .zero, targetContentMode: .center, catalogue: catalogue)
        }
        let bomb = try store(FakeCodec.encode(width: 60000, height: 60000, gray: 1))
        #expect(
            throws: ImageDecodingError.dimensionsTooLarge(
                width: 60000, height: 60000, maximumPixelCount: ImageDecodingOptions.defaultMaximumPixelCount)
        ) {
            try cache.decodeCompleteImage(
                of: bomb, targetDimensions: .zero, targetContentMode: .center, catalogue: catalogue)
        }
        let partialOnly = MemoryCacheEntry(identifier: "p", partial: MemoryTestValue.partial(10, 10))
        #expect(throws: ImageDecodingError.emptyData) {
            try cache.decodeCompleteImage(
                of: partialOnly, targetDimensions: .zero, targetContentMode: .center, catalogue: catalogue)
        }
        #expect(cache.count == 3)
    }
}
