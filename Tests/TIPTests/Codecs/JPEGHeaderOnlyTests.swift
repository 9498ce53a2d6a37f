import Foundation
import Testing

@testable import TIP

@Suite("JPEG header-only contexts")
struct JPEGHeaderOnlyTests {
    let decoder = JPEGCodec().decoder

    @Test(
        "a header-only context reports the dimensions and decodes nothing, baseline or progressive",
        arguments: [false, true])
    func headerOnly(progressive: Bool) throws {
        let (_, data) = try JPEGTestSupport.jpeg(width: 320, height: 200, progressive: progressive)
        let context = decoder.makeContext(
            expectedLength: data.count, options: ImageDecodingOptions(readsHeaderOnly: true))
        // The whole file at once: the header is all it reads.
        #expect(try context.append(data) == .didLoadHeaders)
        #expect(context.dimensions == CGSize(width: 320, height: 200))
        #expect(try context.render(mode: .anyProgress, targetDimensions: .zero, targetContentMode: .center) == nil)
        #expect(try context.finalize() == .didLoadHeaders)
        #expect(try context.render(mode: .completeImage, targetDimensions: .zero, targetContentMode: .center) == nil)

        // The same bytes without the flag decode completely (the flag is what stopped it).
        let full = decoder.makeContext(expectedLength: data.count, options: ImageDecodingOptions())
        #expect(try full.append(data) == .didCompleteLoading)
        #expect(try full.render(mode: .completeImage, targetDimensions: .zero, targetContentMode: .center) != nil)
    }

    @Test("a header-only context still refuses hostile dimensions")
    func hostileDimensions() throws {
        let (_, data) = try JPEGTestSupport.jpeg(width: 320, height: 200)
        let options = ImageDecodingOptions(maximumPixelCount: 1_000, readsHeaderOnly: true)
        let context = decoder.makeContext(expectedLength: data.count, options: options)
        #expect(throws: ImageDecodingError.self) { try context.append(data) }
    }
}
