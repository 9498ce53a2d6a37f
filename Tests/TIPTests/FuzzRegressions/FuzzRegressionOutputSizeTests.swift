import Foundation
import Testing

@testable import TIP

/// Fuzzer finding (FuzzJPEG, out-of-memory): a 730-byte progressive JPEG claiming 3 x 55810 pixels
/// (167,430, well under the limit) decoded to a 200 x 100 aspect fill asked for 200 x 3,720,667
/// pixels, a 3 GB bitmap. The output at the target sizing is now bounded by `maximumPixelCount` too.
@Suite("FuzzRegression: output size bound")
struct FuzzRegressionOutputSizeTests {
    /// oom-4cfaed357382f94214363ea89645472f2394f9e7
    static let sliverJPEG = FuzzReplay.bytes(
        """
        /9j/4AAQSkZJRgABAQAAAQABAAD/2wBDAAcFBQYFBAcGBgYIBwcIAAD4TAoKCxYPEPUS//82mxkWGRgcICgiHB4mHhgZIzAkJior
        LS4tGyIyNTEsNSgsLSz/2wBDAQcICAsJCxULCxUsHRkdLCwsLCwsLCwsLCwsLCwsLCwsLCwsLCwsLCwsLCwsLCwsLCwsLCwsLCws
        LCwsLCwsLCz/wgARCNoCAAMDASIAAhEBAxEB/8QAFQABAQAAAAAAAAAAAAAAAAAAAAT/xAAVAQEBAAAAAAAAAAAAAAAAAAACBv/a
        AAwDAQACEAMQAAABlDrf/8QAFRABAQAAAAAAAAAAAAAAAAAAAzP/2gAIAQEAAQUCCH//xAAZEQABBQAAAAAAAAAAAAAAAAABBAAC
        M3H/2gAIAQMBAT8Bj1NxD//EABcRAAMBAAAAAAAAAAAAAAAAAAABAjL/2gAIAQIBAT8BrTP/xAAVEAEBAAAAAAAAAAAAAAAAAAAA
        Av/aAAgBAQAGPwKX/8QAFRABAQAAAAAAAAAAAAAAAAAAAKH/2gAIAQEAAT8hnf/aAAwDAQACAAMAAAAQB//EABYRAAMAAAAAAAAA
        AAAAAAAAAABR8P/aAAgBAwEBPxC4j//EABYRAAMAAAAAAAAAAAAAAAAAAAABof/aAP/Y/+AAEEpGSUYAAQEAAAEAAQAA/9sAQwAH
        BQUGBQQHBgYGCAcHCAsSCwsKCgsWDxANEhoWGxoZFhkYHCAoIhweJh4YGSMwJCYqKy0uLRsiMTI1LDUoLC0s/9vfAEMBBwgICwkL
        FQsLFSwdGR0sLCwsLCwsLCwsLCwsLCwsLCwsLCwoLCwsLCwsKywsLCwsLCwsJSUlJSUlJSUlJSUlJSUlJSUlLCwsLCwsLCwsLCws
        LCz/wgARCAAoABgDASIAAhEBAxEB/8QAGgAAAgMBAQgBAgEBPxCxn//EABQQAAAAAQAAAAAyAA==
        """)

    @Test("the header check refuses a sliver whose target-sized output is over the limit")
    func headerCheckBoundsOutput() throws {
        let options = FuzzReplay.options(for: Self.sliverJPEG.count)
        #expect(options.targetContentMode == .scaleAspectFill)
        // 3 x 55810 is 167,430 pixels, but filling 200 x 100 with it needs 200 x 3,720,667.
        try #require(
            throws: ImageDecodingError.dimensionsTooLarge(
                width: 3, height: 55810, maximumPixelCount: FuzzReplay.maximumPixelCount)
        ) {
            try options.checkDimensions(width: 3, height: 55810)
        }
        // Either orientation: EXIF may swap the sides after the header check.
        #expect(throws: ImageDecodingError.self) { try options.checkDimensions(width: 55810, height: 3) }
        // Ordinary images still pass.
        try options.checkDimensions(width: 1000, height: 1000)
        try options.checkDimensions(width: 3, height: 1)
    }

    @Test("the reproducer is refused before any large allocation")
    func reproducerIsRefused() throws {
        let data = Self.sliverJPEG
        let decoder = JPEGCodec().decoder
        // Without the bound the decode below allocates 3 GB and resamples for minutes: stop first.
        try #require(throws: ImageDecodingError.self) {
            try FuzzReplay.options(for: data.count).checkDimensions(width: 3, height: 55810)
        }
        #expect(
            throws: ImageDecodingError.dimensionsTooLarge(
                width: 3, height: 55810, maximumPixelCount: FuzzReplay.maximumPixelCount)
        ) {
            try FuzzReplay.oneShot(decoder, data)
        }
    }

    @Test("every codec's render bounds its output: a tall sliver filled into a wide target")
    func everyContextBoundsRenders() throws {
        let sliver = try #require(Bitmap(width: 1, height: 4000, format: .rgbx8))
        let image = ImageContainer(image: sliver)
        let options = ImageDecodingOptions(maximumPixelCount: FuzzReplay.maximumPixelCount)
        for codec in [PNGCodec(), GIFCodec(), JPEGCodec()] as [any ImageCodec] {
            let encoded = try #require(try codec.encoder?.encode(image, options: [], quality: 1))
            var fill = options
            fill.targetDimensions = CGSize(width: 400, height: 100)
            fill.targetContentMode = .scaleAspectFill
            // Without the bound the decodes below allocate gigabytes: stop first.
            try #require(throws: ImageDecodingError.self) { try fill.checkDimensions(width: 1, height: 4000) }
            // 400 x 1,600,000 pixels: refused, one-shot and when rendering a context.
            #expect(throws: ImageDecodingError.self, "\(codec)") { try codec.decoder.decode(encoded, options: fill) }
            let context = codec.decoder.makeContext(expectedLength: encoded.count, options: options)
            _ = try? context.append(encoded)
            _ = try? context.finalize()
            #expect(throws: ImageDecodingError.self, "\(codec)") {
                _ = try context.render(
                    mode: .completeImage, targetDimensions: fill.targetDimensions, targetContentMode: .scaleAspectFill)
            }
            // The image's own size still renders.
            let own = try context.render(mode: .completeImage, targetDimensions: .zero, targetContentMode: .center)
            #expect(own?.dimensions == CGSize(width: 1, height: 4000), "\(codec)")
        }
    }
}
