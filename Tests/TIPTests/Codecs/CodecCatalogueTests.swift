import Foundation
import Testing

@testable import TIP

/// A codec for tests: recognises data starting with "FAKE" and decodes it to a 2x2 image.
private struct FakeCodec: ImageCodec {
    var fails = false
    var decoder: any ImageDecoder { FakeDecoder(fails: fails) }
    var encoder: (any ImageEncoder)? { FakeEncoder() }
}

private struct FakeDecoder: ImageDecoder {
    let fails: Bool
    func detect(_ data: Data, isComplete: Bool) -> ImageDecoderDetection {
        if data.count < 4 { return Data("FAKE".utf8).starts(with: data) ? .needMoreData : .noMatch }
        return data.starts(with: Data("FAKE".utf8)) ? .match : .noMatch
    }
    func decode(_ data: Data, options: ImageDecodingOptions) throws(ImageDecodingError) -> ImageContainer {
        if fails { throw .corruptData("fake failure") }
        let size = options.outputDimensions(width: 2, height: 2)
        return ImageContainer(image: Bitmap(width: size.width, height: size.height, format: .gray8)!)
    }
    func makeContext(expectedLength: Int?, options: ImageDecodingOptions) -> any ImageDecoderContext {
        FakeContext()
    }
}

private final class FakeContext: ImageDecoderContext {
    var data = Data()
    var dimensions: CGSize { .zero }
    var frameCount: Int { 0 }
    var isProgressive: Bool { false }
    var isAnimated: Bool { false }
    var hasAlpha: Bool { false }
    func append(_ data: Data) throws(ImageDecodingError) -> ImageDecoderAppendResult {
        self.data.append(data); return .didProgress
    }
    func finalize() throws(ImageDecodingError) -> ImageDecoderAppendResult { .didProgress }
    func render(mode: ImageDecoderRenderMode, targetDimensions: CGSize, targetContentMode: ContentMode)
        throws(ImageDecodingError) -> ImageContainer?
    { nil }
}

private struct FakeEncoder: ImageEncoder {
    func encode(_ image: ImageContainer, options: ImageEncodingOptions, quality: Float) throws(PipelineError) -> Data {
        Data("FAKE".utf8)
    }
}

private let fakeType = ImageType(rawValue: "test.fake")

@Suite("Codec catalogue")
struct CodecCatalogueTests {
    @Test("Register, replace and remove codecs by type")
    func registry() {
        let catalogue = CodecCatalogue(codecs: [:])
        #expect(catalogue.allCodecs.isEmpty)
        catalogue.setCodec(FakeCodec(), for: fakeType)
        #expect(catalogue.codec(for: fakeType) != nil)
        #expect(catalogue.properties(for: fakeType) == [.decoding, .encoding])
        #expect(catalogue.supportsDecoding(fakeType) && catalogue.supportsEncoding(fakeType))
        #expect(!catalogue.supportsAnimation(fakeType) && !catalogue.supportsProgressiveLoading(fakeType))
        var sawExisting = false
        catalogue.replaceCodec(for: fakeType) { existing in
            sawExisting = existing != nil
            return FakeCodec(fails: true)
        }
        #expect(sawExisting)
        #expect(catalogue.removeCodec(for: fakeType) != nil)
        #expect(catalogue[fakeType] == nil)
        catalogue[fakeType] = FakeCodec()
        #expect(catalogue[fakeType] != nil)
        catalogue[fakeType] = nil
        #expect(catalogue.allCodecs.isEmpty)
    }

    @Test("Default codecs are JPEG, PNG, GIF, TIFF, BMP, TGA and ICO with their capabilities")
    func defaults() {
        let catalogue = CodecCatalogue()
        #expect(Set(catalogue.allCodecs.keys).isSuperset(of: [.jpeg, .png, .gif, .tiff, .bmp, .targa, .ico]))
        #expect(catalogue.properties(for: .jpeg).isSuperset(of: [.decoding, .encoding, .progressive]))
        #expect(catalogue.properties(for: .gif).isSuperset(of: [.decoding, .encoding, .animation]))
        #expect(catalogue.properties(for: .png).isSuperset(of: [.decoding, .encoding]))
        #expect(catalogue.properties(for: .webp).isEmpty)
    }

    @Test("Detection uses magic numbers, then each decoder")
    func detection() {
        let catalogue = CodecCatalogue(codecs: [fakeType: FakeCodec()])
        #expect(catalogue.detectImageType(Data("FAKE1234".utf8), isComplete: true) == fakeType)
        #expect(catalogue.detectImageType(Data("NOPE".utf8), isComplete: true) == nil)
        // A JPEG signature without a JPEG codec is not claimed.
        #expect(catalogue.detectImageType(Data([0xFF, 0xD8, 0xFF, 0xE0]), isComplete: false) == nil)
    }

    @Test("Decoding picks the matching codec, falls back, and reports typed errors")
    func decoding() throws {
        let catalogue = CodecCatalogue(codecs: [fakeType: FakeCodec()])
        let result = try catalogue.decodeImage(
            Data("FAKEDATA".utf8),
            options: ImageDecodingOptions(
                targetDimensions: CGSize(width: 8, height: 8), targetContentMode: .scaleAspectFit))
        #expect(result.type == fakeType && result.container.dimensions == CGSize(width: 8, height: 8))
        #expect(throws: ImageDecodingError.emptyData) { try catalogue.decodeImage(Data()) }
        #expect(throws: ImageDecodingError.unrecognizedFormat) { try catalogue.decodeImage(Data("<html></html>".utf8)) }
        let failing = CodecCatalogue(codecs: [fakeType: FakeCodec(fails: true)])
        #expect(throws: ImageDecodingError.corruptData("fake failure")) {
            try failing.decodeImage(Data("FAKEDATA".utf8))
        }
    }

    @Test("Errors bridge to TIP's domains and codes")
    func errorBridging() {
        let decodeError = ImageDecodingError.truncatedData as NSError
        #expect(decodeError.domain == "TIPImageFetchErrorDomain" && decodeError.code == 3)
        let pipelineError = PipelineError(.encodingUnsupported, "no") as NSError
        #expect(pipelineError.domain == "TIPErrorDomain" && pipelineError.code == 6)
        let catalogue = CodecCatalogue(codecs: [:])
        let image = ImageContainer(image: Bitmap(width: 1, height: 1, format: .gray8)!)
        #expect(throws: PipelineError.self) { try catalogue.encodeImage(image, type: .jpeg, quality: 0.8) }
    }

    @Test("Recommended type: GIF when animated, PNG with transparency, else JPEG")
    func recommendedType() {
        let opaque = TestImages.photo(width: 4, height: 4)
        #expect(CodecCatalogue.recommendedImageType(for: ImageContainer(image: opaque)) == .jpeg)
        #expect(
            CodecCatalogue.recommendedImageType(for: ImageContainer(image: TestImages.translucent(width: 8, height: 8)))
                == .png)
        #expect(
            CodecCatalogue.recommendedImageType(
                for: ImageContainer(animatedFrames: [opaque, opaque], frameDurations: [0.1, 0.1], loopCount: 0)!)
                == .gif)
    }

    @Test("The maximum pixel count is checked with overflow safety")
    func pixelLimit() {
        let options = ImageDecodingOptions(maximumPixelCount: 1_000)
        #expect(throws: Never.self) { try options.checkDimensions(width: 10, height: 100) }
        #expect(throws: ImageDecodingError.dimensionsTooLarge(width: 60000, height: 60000, maximumPixelCount: 1_000)) {
            try options.checkDimensions(width: 60000, height: 60000)
        }
        #expect(throws: ImageDecodingError.self) { try options.checkDimensions(width: Int.max, height: 3) }
        #expect(throws: ImageDecodingError.self) { try options.checkDimensions(width: 0, height: 3) }
    }

    @Test("An output over the pixel limit is told apart from a source over it in the message")
    func outputOverLimit() throws {
        let options = ImageDecodingOptions(
            targetDimensions: CGSize(width: 100, height: 100), targetContentMode: .scaleToFill,
            maximumPixelCount: 5_000)
        // The payload stays the source's size (the pipeline retries such a decode at the image's own size).
        #expect(throws: ImageDecodingError.dimensionsTooLarge(width: 20, height: 10, maximumPixelCount: 5_000)) {
            try options.checkDimensions(width: 20, height: 10)
        }
        let jpeg = try CodecCatalogue.shared.encodeImage(
            ImageContainer(image: Bitmap(width: 20, height: 10, format: .rgbx8)!), type: .jpeg, quality: 0.8)
        do {
            _ = try CodecCatalogue.shared.decodeImage(jpeg, options: options)
            Issue.record("a 100x100 output over a 5,000-pixel limit decoded")
        } catch {
            #expect(
                error.description.contains(
                    "the output of this 20x10 image at the target size exceeds the limit of 5000 pixels (use a smaller "
                        + "target"))
        }
        #expect(
            ImageDecodingError.dimensionsTooLarge(width: 200, height: 100, maximumPixelCount: 5_000).description
                .contains("200x100 exceeds the limit of 5000 pixels (raise"))
    }
}
