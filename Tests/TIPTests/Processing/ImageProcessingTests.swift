import Foundation
import Testing

@testable import TIP

/// The processing model: order, animations, marks, errors, identifiers.
@Suite("Processing: containers, identifiers and errors")
struct ImageProcessingTests {
    /// A processor that records what it saw and paints its frame index into pixel (0, 0).
    struct Recorder: ImageProcessor {
        let identifier: String
        let log: Locked<[String]>

        func process(_ image: Bitmap, context: ImageProcessingContext) throws -> Bitmap {
            log.withLock { $0.append("\(identifier):\(context.frameIndex)/\(context.frameCount)") }
            var out = image
            out.setPixel(x: 0, y: 0, SIMD4(UInt8(context.frameIndex), 0, 0, 255))
            return out
        }
    }

    struct Failure: Error, CustomStringConvertible {
        var description: String { "the closure gave up" }
    }

    static func animation(frames: Int = 3, width: Int = 5, height: Int = 4) -> ImageContainer {
        let bitmaps = (0..<frames).map { TestImages.photo(width: width, height: height, seed: UInt64($0 + 1)) }
        return ImageContainer(
            animatedFrames: bitmaps, frameDurations: [0.05, 0.2, 0.1].prefix(frames).map { $0 }, loopCount: 3,
            isPartial: true)!
    }

    @Test(
        """
        Processors run in order on every frame; durations, loop count and the partial flag are kept; identifiers \
        are recorded
        """
    )
    func orderAndFrames() throws {
        let log = Locked<[String]>([])
        let container = Self.animation()
        let processed = try container.processed(
            by: [Recorder(identifier: "a", log: log), Recorder(identifier: "b", log: log)],
            context: ImageProcessingContext())
        #expect(log.withLock { $0 } == ["a:0/3", "a:1/3", "a:2/3", "b:0/3", "b:1/3", "b:2/3"])
        #expect(
            processed.frameCount == 3 && processed.frameDurations == container.frameDurations
                && processed.loopCount == 3 && processed.isPartial)
        #expect(processed.processorIdentifiers == ["a", "b"] && processed.isProcessed && !container.isProcessed)
        for index in 0..<3 { #expect(processed.frames[index].pixel(x: 0, y: 0)[0] == UInt8(index)) }
        // Processing a processed image appends; scaling keeps the record.
        let again = try processed.processed(by: [ImageProcessors.Grayscale()], context: ImageProcessingContext())
        #expect(again.processorIdentifiers == ["a", "b", "tip.grayscale"])
        #expect(
            again.scaledToTargetDimensions(CGSize(width: 10, height: 8), contentMode: .scaleToFill).processorIdentifiers
                == again.processorIdentifiers)
        #expect(try container.processed(by: [], context: ImageProcessingContext()) === container)
    }

    @Test("Animations are processed frame by frame with exact geometry")
    func animationGeometry() throws {
        let container = Self.animation(frames: 3, width: 9, height: 6)
        let context = ImageProcessingContext(
            targetDimensions: CGSize(width: 4, height: 4), targetContentMode: .scaleAspectFill)
        let processed = try container.processed(by: [.cropToFill(), .circle()], context: context)
        #expect(processed.frames.allSatisfy { $0.width == 4 && $0.height == 4 && $0.format == .rgba8Premultiplied })
        for index in 0..<3 {
            let expected = try ImageProcessors.Circle().process(
                try ImageProcessors.CropToFill().process(container.frames[index], context: context), context: context)
            #expect(processed.frames[index] == expected)
        }
    }

    @Test("A closure's own error comes back as processingFailed, naming the processor; processing errors pass through")
    func errors() {
        let container = ImageContainer(image: TestImages.photo(width: 4, height: 4))
        let failing = ImageProcessors.Anonymous(identifier: "com.example.fail") { _, _ in throw Failure() }
        #expect(
            throws: ImageProcessingError.processingFailed(processor: "com.example.fail", reason: "the closure gave up")
        ) {
            try container.processed(by: [.grayscale, failing], context: ImageProcessingContext())
        }
        #expect(
            throws: ImageProcessingError.invalidParameter(
                processor: "tip.blur(-1)", reason: "sigma -1.0 must be finite and not negative")
        ) {
            try container.processed(by: [.gaussianBlur(sigma: -1)], context: ImageProcessingContext())
        }
        let error =
            ImageProcessingError.outputTooLarge(processor: "tip.crop(9x9,centre)", width: 9, height: 9) as NSError
        #expect(error.domain == "TIPImageProcessingErrorDomain" && error.code == 3)
        #expect(error.localizedDescription.contains("maximumPixelCount"))
        #expect(ImageProcessingError.invalidParameter(processor: "p", reason: "r").errorCode == 1)
        #expect(ImageProcessingError.missingTargetDimensions(processor: "p").errorCode == 2)
        #expect(ImageProcessingError.processingFailed(processor: "p", reason: "r").errorCode == 4)
    }

    @Test(
        "Impossible parameters throw invalidParameter",
        arguments: [
            ImageProcessors.RoundedCorners(radius: -1) as any ImageProcessor,
            ImageProcessors.RoundedCorners(radius: .nan),
            ImageProcessors.RoundedCorners(radius: .infinity),
            ImageProcessors.RoundedCorners(radius: 2, border: .init(width: -1, color: SIMD4(0, 0, 0, 255))),
            ImageProcessors.Circle(border: .init(width: .nan, color: SIMD4(0, 0, 0, 255))),
            ImageProcessors.GaussianBlur(sigma: -0.5),
            ImageProcessors.GaussianBlur(sigma: .infinity),
            ImageProcessors.CropToFill(size: .zero),
            ImageProcessors.CropToFill(size: CGSize(width: 10, height: -1)),
            ImageProcessors.CropToFill(size: CGSize(width: CGFloat.nan, height: 10)),
            ImageProcessors.ResizeToFit(size: CGSize(width: 0, height: 10)),
            ImageProcessors.Anonymous(identifier: "") { image, _ in image },
        ])
    func invalidParameters(processor: any ImageProcessor) {
        let image = ImageContainer(image: TestImages.photo(width: 6, height: 5))
        do {
            _ = try image.processed(
                by: [processor], context: ImageProcessingContext(targetDimensions: CGSize(width: 3, height: 3)))
            Issue.record("\(processor.identifier) accepted an impossible parameter")
        } catch {
            #expect(error.errorCode == 1, "\(processor.identifier): \(error)")
        }
    }

    @Test("Sizing processors without a size need the context's target; oversized outputs are refused before allocating")
    func sizes() throws {
        let image = ImageContainer(image: TestImages.photo(width: 6, height: 5))
        #expect(throws: ImageProcessingError.missingTargetDimensions(processor: "tip.crop(target,centre)")) {
            try image.processed(by: [.cropToFill()], context: ImageProcessingContext())
        }
        #expect(throws: ImageProcessingError.missingTargetDimensions(processor: "tip.fit(target)")) {
            try image.processed(
                by: [.resizeToFit()], context: ImageProcessingContext(targetDimensions: CGSize(width: 0, height: 10)))
        }
        #expect(
            throws: ImageProcessingError.outputTooLarge(
                processor: "tip.crop(100000x100000,centre)", width: 100_000, height: 100_000)
        ) {
            try image.processed(
                by: [.cropToFill(CGSize(width: 100_000, height: 100_000))], context: ImageProcessingContext())
        }
        var small = ImageProcessingContext(targetDimensions: CGSize(width: 40, height: 40))
        small.maximumPixelCount = 1000
        #expect(
            throws: ImageProcessingError.outputTooLarge(processor: "tip.fit(target,upscale)", width: 40, height: 33)
        ) {
            try image.processed(by: [.resizeToFit(upscale: true)], context: small)
        }
        // A huge box to fit in is a cap, not an output: nothing to enlarge, nothing refused.
        #expect(
            try image.processed(by: [.resizeToFit(CGSize(width: 1e9, height: 1e9))], context: small).image
                == image.image)
    }

    @Test("Identifiers are stable, include every parameter, and differ when a parameter does")
    func identifiers() {
        let red = SIMD4<UInt8>(255, 0, 0, 255)
        let processors: [any ImageProcessor] = [
            .cropToFill(), .cropToFill(CGSize(width: 200, height: 200)),
            .cropToFill(CGSize(width: 200, height: 200), anchor: .top),
            .cropToFill(CGSize(width: 200, height: 100)),
            .cropToFill(CGSize(width: 199.5, height: 100), anchor: .bottomRight),
            .resizeToFit(), .resizeToFit(CGSize(width: 64, height: 64)),
            .resizeToFit(CGSize(width: 64, height: 64), upscale: true),
            .roundedCorners(radius: 12), .roundedCorners(radius: 12.5),
            .roundedCorners(radius: 12, border: .init(width: 2, color: red)),
            .roundedCorners(radius: 12, border: .init(width: 2, color: SIMD4<UInt8>(255, 0, 0, 128))),
            .roundedCorners(radius: 12, border: .init(width: 3, color: red)),
            .circle(), .circle(border: .init(width: 2, color: red)),
            .gaussianBlur(sigma: 2), .gaussianBlur(sigma: 2.25), .grayscale,
            .process(identifier: "com.example.a") { image, _ in image },
            .process(identifier: "com.example.b") { image, _ in image },
        ]
        let identifiers = processors.map(\.identifier)
        #expect(Set(identifiers).count == identifiers.count, "\(identifiers)")
        #expect(
            identifiers == [
                "tip.crop(target,centre)", "tip.crop(200x200,centre)", "tip.crop(200x200,top)",
                "tip.crop(200x100,centre)", "tip.crop(200x100,bottom-right)",
                "tip.fit(target)", "tip.fit(64x64)", "tip.fit(64x64,upscale)",
                "tip.rounded(12)", "tip.rounded(12.5)", "tip.rounded(12,border=2,#ff0000ff)",
                "tip.rounded(12,border=2,#ff000080)",
                "tip.rounded(12,border=3,#ff0000ff)", "tip.circle", "tip.circle(border=2,#ff0000ff)",
                "tip.blur(2)", "tip.blur(2.25)", "tip.grayscale", "com.example.a", "com.example.b",
            ])
        // The same parameters give the same identifier, every time.
        #expect(
            ImageProcessors.CropToFill(size: CGSize(width: 200, height: 200)).identifier
                == ImageProcessors.CropToFill(size: CGSize(width: 200, height: 200)).identifier)
        #expect(
            Set(ImageProcessors.Anchor.allCases.map { ImageProcessors.CropToFill(anchor: $0).identifier }).count
                == ImageProcessors.Anchor.allCases.count)
        #expect(ImageProcessors.identifier(of: [.cropToFill(), .circle()]) == "tip.crop(target,centre)|tip.circle")
        #expect(ImageProcessors.identifier(of: []) == "")
        // A separator or escape inside an identifier cannot make two lists look the same.
        func named(_ identifiers: String...) -> String {
            ImageProcessors.identifier(
                of: identifiers.map { id in ImageProcessors.Anonymous(identifier: id) { image, _ in image } })
        }
        #expect(named("a|b") != named("a", "b"))
        #expect(named("a\\", "|b") != named("a\\|", "b"))
        #expect(named("a|b") == "a\\|b" && named("a\\b") == "a\\\\b")
    }

    @Test("The context reports the stage as TIP's transformers see it")
    func context() {
        #expect(ImageProcessingContext().transformerProgress == 1 && ImageProcessingContext().isFinal)
        #expect(ImageProcessingContext(stage: .preview).transformerProgress == -1)
        let scan = ImageProcessingContext(stage: .progressiveScan(progress: 0.25))
        #expect(scan.transformerProgress == 0.25 && !scan.isFinal)
    }
}
