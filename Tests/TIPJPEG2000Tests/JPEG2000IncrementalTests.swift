import Foundation
import Testing

@testable import TIP
@testable import TIPJPEG2000

@Suite("JPEG 2000 incremental decoding")
struct JPEG2000IncrementalTests {
    let decoder = JPEG2000Codec().decoder

    /// Appends `data` in chunks of `chunk` bytes, recording each result.
    func feed(_ context: any ImageDecoderContext, _ data: Data, chunk: Int) throws -> [ImageDecoderAppendResult] {
        var results: [ImageDecoderAppendResult] = []
        var offset = 0
        while offset < data.count {
            let end = min(offset + chunk, data.count)
            results.append(try context.append(data.subdata(in: offset..<end)))
            offset = end
        }
        return results
    }

    @Test(
        "Chunks of any size: header once, complete at the end, same pixels as one-shot",
        arguments: ["photo-lossless.jp2", "photo.j2k", "alpha.jp2", "large.jp2"], [1, 7, 500, 1 << 20])
    func chunks(file: String, chunk: Int) throws {
        let data = try JPEG2000TestFiles.data(file)
        let context = decoder.makeContext(expectedLength: data.count, options: ImageDecodingOptions())
        let results = try feed(context, data, chunk: chunk)
        #expect(results.filter { $0 == .didLoadHeaders }.count == (chunk >= data.count ? 0 : 1))
        #expect(results.last == .didCompleteLoading)
        #expect(try context.finalize() == .didCompleteLoading)
        let oneShot = try decoder.decode(data, options: ImageDecodingOptions())
        #expect(context.dimensions == oneShot.dimensions)
        #expect(context.frameCount == 1)
        let target = CGSize(width: 64, height: 64)
        let rendered = try #require(
            try context.render(mode: .completeImage, targetDimensions: target, targetContentMode: .scaleAspectFit))
        let scaled = try decoder.decode(
            data, options: ImageDecodingOptions(targetDimensions: target, targetContentMode: .scaleAspectFit))
        #expect(rendered.image == scaled.image && !rendered.isPartial)
    }

    @Test("The header gives dimensions and alpha before any pixel; header-only contexts never render")
    func headerOnly() throws {
        let data = try JPEG2000TestFiles.data("alpha.jp2")
        let context = decoder.makeContext(expectedLength: nil, options: ImageDecodingOptions(readsHeaderOnly: true))
        var loaded = 0
        for length in 1...data.count {
            let result = try context.append(data.subdata(in: (length - 1)..<length))
            if result == .didLoadHeaders {
                loaded = length
                break
            }
        }
        #expect(loaded > 0 && loaded < data.count / 2, "header at \(loaded) of \(data.count)")
        #expect(context.dimensions == CGSize(width: 64, height: 48))
        #expect(context.hasAlpha && !context.isAnimated)
        #expect(try context.render(mode: .anyProgress, targetDimensions: .zero, targetContentMode: .center) == nil)
    }

    @Test("With OpenJPEG 2.5.0 a partial codestream renders nothing and a truncated one is an error")
    func partialOnOldOpenJPEG() throws {
        guard !OpenJPEGVersion.allowsPartialDecoding else { return }  // the next test covers newer versions
        let data = try JPEG2000TestFiles.data("large.jp2")
        #expect(!decoder.supportsProgressiveDecoding)
        let context = decoder.makeContext(expectedLength: data.count, options: ImageDecodingOptions())
        _ = try context.append(data.prefix(data.count / 2))
        #expect(!context.isProgressive && context.dimensions == CGSize(width: 640, height: 480))
        #expect(try context.render(mode: .anyProgress, targetDimensions: .zero, targetContentMode: .center) == nil)
        #expect(try context.finalize() == .didLoadHeaders)
        #expect(throws: ImageDecodingError.truncatedData) {
            try decoder.decode(data.prefix(data.count / 2), options: ImageDecodingOptions())
        }
    }

    @Test("A partial codestream renders with anyProgress only, marked partial (OpenJPEG 2.5.3 and later)")
    func progressive() throws {
        guard OpenJPEGVersion.allowsPartialDecoding else { return }  // Debian 12: see the test above
        let data = try JPEG2000TestFiles.data("large.jp2")
        let context = decoder.makeContext(expectedLength: data.count, options: ImageDecodingOptions())
        _ = try context.append(data.prefix(data.count / 2))
        #expect(context.isProgressive)
        #expect(
            try context.render(mode: .fullFrameProgress, targetDimensions: .zero, targetContentMode: .center) == nil)
        #expect(try context.render(mode: .completeImage, targetDimensions: .zero, targetContentMode: .center) == nil)
        let partial = try #require(
            try context.render(
                mode: .anyProgress, targetDimensions: CGSize(width: 160, height: 160),
                targetContentMode: .scaleAspectFit))
        #expect(partial.isPartial && partial.dimensions == CGSize(width: 160, height: 120))
        // Resolution-major order: half of the bytes already give a recognisable picture.
        let reference = Resampler.resample(try JPEG2000TestFiles.source("large.png"), width: 160, height: 120)
        #expect(PixelComparison.psnr(partial.image, reference) > 20)
        #expect(try context.finalize() == .didLoadHeaders)
    }
}
