import Foundation
import Testing

@testable import TIP
@testable import TIPHEIF

@Suite("HEIF incremental decoding")
struct HEIFIncrementalTests {
    @Test(
        "Chunks of any size: header from the meta box, complete when the item data is in, same pixels as one-shot",
        arguments: ["photo.heic", "alpha.avif", "thumbnail.heic", "rotated.avif"], [1, 100, 1 << 20])
    func chunks(file: String, chunk: Int) throws {
        let data = try HEIFTestFiles.data(file)
        let decoder = HEIFTestFiles.decoder(for: file)
        let context = decoder.makeContext(expectedLength: nil, options: ImageDecodingOptions())
        var results: [ImageDecoderAppendResult] = []
        var headerAt = 0
        var offset = 0
        while offset < data.count {
            let end = min(offset + chunk, data.count)
            let result = try context.append(data.subdata(in: offset..<end))
            if result >= .didLoadHeaders && headerAt == 0 { headerAt = end }
            results.append(result)
            if result != .didCompleteLoading {
                #expect(
                    try context.render(mode: .anyProgress, targetDimensions: .zero, targetContentMode: .center) == nil)
            }
            offset = end
        }
        #expect(results.last == .didCompleteLoading)
        #expect(results.filter { $0 == .didLoadHeaders }.count == (chunk >= data.count ? 0 : 1))
        if chunk == 1 { #expect(headerAt < data.count, "the header needs only the meta box") }
        let oneShot = try decoder.decode(data, options: ImageDecodingOptions())
        #expect(context.dimensions == oneShot.dimensions && context.frameCount == 1)
        #expect(try context.finalize() == .didCompleteLoading)
        let target = CGSize(width: 50, height: 50)
        let rendered = try #require(
            try context.render(mode: .fullFrameProgress, targetDimensions: target, targetContentMode: .scaleAspectFill))
        let scaled = try decoder.decode(
            data, options: ImageDecodingOptions(targetDimensions: target, targetContentMode: .scaleAspectFill))
        #expect(rendered.image == scaled.image)
    }

    @Test("Header-only contexts know the size and alpha, and never render")
    func headerOnly() throws {
        let data = try HEIFTestFiles.data("alpha-rotated.heic")
        let context = HEIFTestFiles.decoder(for: "x.heic").makeContext(
            expectedLength: data.count, options: ImageDecodingOptions(readsHeaderOnly: true))
        _ = try context.append(data)
        #expect(context.dimensions == CGSize(width: 48, height: 64) && context.hasAlpha)
        #expect(try context.render(mode: .completeImage, targetDimensions: .zero, targetContentMode: .center) == nil)
    }

    @Test("A truncated file finalizes as truncated or renders nothing")
    func truncated() throws {
        let data = try HEIFTestFiles.data("photo.avif")
        for length in [10, 40, data.count / 2, data.count - 1] {
            let context = HEIFTestFiles.decoder(for: "x.avif").makeContext(
                expectedLength: nil, options: ImageDecodingOptions())
            _ = try context.append(data.prefix(length))
            do {
                _ = try context.finalize()
                _ = try context.render(mode: .completeImage, targetDimensions: .zero, targetContentMode: .center)
                Issue.record("length \(length) decoded")
            } catch {
                #expect(
                    error == .truncatedData
                        || {
                            if case .corruptData = error { return true }; return false
                        }(), "length \(length): \(String(describing: error))")
            }
        }
    }
}
