import CJPEGIncremental
import Foundation
import Testing

@testable import TIP

@Suite("JPEGIncremental")
struct JPEGIncrementalTests {
    let decoder = JPEGCodec().decoder

    @Test func progressiveReportsScansAndMatchesOneShot() throws {
        let (_, data) = try JPEGTestSupport.jpeg(width: 200, height: 150, progressive: true)
        let scans = JPEGTestSupport.scanCount(data)
        let reference = try decoder.decode(data, options: .init()).image
        let context = decoder.makeContext(expectedLength: data.count, options: .init())
        var results: [ImageDecoderAppendResult] = []
        var lastFrames = 0
        var offset = 0
        while offset < data.count {
            let end = min(data.count, offset + 300)
            let result = try context.append(data.subdata(in: offset..<end))
            results.append(result)
            #expect(context.frameCount >= lastFrames)
            if result == .didLoadFrame {
                #expect(context.frameCount > lastFrames)
                let image = try #require(
                    try context.render(mode: .fullFrameProgress, targetDimensions: .zero, targetContentMode: .center))
                #expect(image.isPartial)
                #expect(image.image.width == 200 && image.image.height == 150)
                // Rendering twice with the same target returns the cached render.
                let again = try context.render(
                    mode: .fullFrameProgress, targetDimensions: .zero, targetContentMode: .center)
                #expect(again === image)
                let small = try #require(
                    try context.render(
                        mode: .anyProgress, targetDimensions: CGSize(width: 50, height: 50),
                        targetContentMode: .scaleAspectFit))
                #expect(small.image.width == 50 && small.image.height == 38)
            }
            lastFrames = context.frameCount
            offset = end
        }
        #expect(results.filter { $0 == .didLoadHeaders }.count == 1)
        #expect(results.last == .didCompleteLoading)
        #expect(try context.finalize() == .didCompleteLoading)
        #expect(context.isProgressive)
        #expect(context.frameCount == scans)
        #expect(context.dimensions == CGSize(width: 200, height: 150))
        let final = try #require(
            try context.render(mode: .completeImage, targetDimensions: .zero, targetContentMode: .center))
        #expect(!final.isPartial)
        #expect(final.image == reference)
    }

    @Test func fullFrameRenderShowsExactlyTheCompletedScans() throws {
        // The render after scan k must equal a one-shot decode of the prefix that ends right after scan k.
        let (_, data) = try JPEGTestSupport.jpeg(width: 64, height: 48, progressive: true)
        let bytes = [UInt8](data)
        var sosOffsets: [Int] = []
        for i in 0..<(bytes.count - 1) where bytes[i] == 0xFF && bytes[i + 1] == 0xDA { sosOffsets.append(i) }
        let context = decoder.makeContext(expectedLength: nil, options: .init())
        for (index, next) in sosOffsets.dropFirst().enumerated() {
            // Feed up to and including the start of the next SOS: scan index+1 is complete.
            let start = context.data.count
            _ = try context.append(data.subdata(in: start..<(next + 2)))
            #expect(context.frameCount == index + 1)
            let image = try #require(
                try context.render(mode: .fullFrameProgress, targetDimensions: .zero, targetContentMode: .center))
            var prefix = data.prefix(next)
            prefix.append(contentsOf: [0xFF, 0xD9])
            let reference = try decoder.decode(prefix, options: .init()).image
            #expect(image.image == reference, "scan \(index + 1)")
        }
    }

    @Test(
        "block smoothing: always at full size; at 1/4 only before the first luma AC scan; never at 1/8",
        arguments: [
            (CGSize.zero, [true, true, true]), (CGSize(width: 64, height: 48), [true, false, false]),
            (CGSize(width: 32, height: 24), [false, false, false]),
        ])
    func blockSmoothingFollowsTheScale(target: CGSize, expected: [Bool]) throws {
        // 256x192: 1/4 scale gives 64x48 and 1/8 gives 32x24, the targets above. TurboJPEG's progression starts
        // with the DC scan, then the luma's first AC scan.
        let (_, data) = try JPEGTestSupport.jpeg(width: 256, height: 192, progressive: true)
        let bytes = [UInt8](data)
        var sosOffsets: [Int] = []
        for i in 0..<(bytes.count - 1) where bytes[i] == 0xFF && bytes[i + 1] == 0xDA { sosOffsets.append(i) }
        let options = ImageDecodingOptions(targetDimensions: target, targetContentMode: .scaleAspectFit)
        let context = try #require(decoder.makeContext(expectedLength: nil, options: options) as? JPEGDecoderContext)
        for (index, next) in sosOffsets.dropFirst().prefix(expected.count).enumerated() {
            _ = try context.append(data.subdata(in: context.data.count..<(next + 2)))
            _ = try #require(
                try context.render(
                    mode: .fullFrameProgress, targetDimensions: target, targetContentMode: .scaleAspectFit))
            #expect(context.lastRenderAllowedBlockSmoothing == expected[index], "scan \(index + 1)")
        }
        // The complete image is exact whatever the renders did.
        _ = try context.append(data.subdata(in: context.data.count..<data.count))
        #expect(try context.finalize() == .didCompleteLoading)
        let final = try #require(
            try context.render(mode: .completeImage, targetDimensions: target, targetContentMode: .scaleAspectFit))
        #expect(!final.isPartial)
        #expect(final.image == (try decoder.decode(data, options: options)).image)
    }

    @Test func everySplitPointGivesTheSameImage() throws {
        let (_, data) = try JPEGTestSupport.jpeg(width: 32, height: 24, progressive: true, seed: 3)
        let reference = try #require(JPEGTestSupport.turboJPEGDecode(data))
        for split in 0...data.count {
            let context = try JPEGTestSupport.feed(data, chunkSizes: [split])
            let image = try #require(
                try context.render(mode: .completeImage, targetDimensions: .zero, targetContentMode: .center),
                "split \(split)")
            #expect(image.image == reference, "split \(split)")
            #expect(context.frameCount == JPEGTestSupport.scanCount(data))
        }
    }

    @Test func randomChunkSizes() throws {
        var rng = SplitMix64(seed: 7)
        for progressive in [false, true] {
            let (_, data) = try JPEGTestSupport.jpeg(width: 161, height: 97, progressive: progressive)
            let reference = try decoder.decode(data, options: .init()).image
            for _ in 0..<15 {
                let sizes = (0..<200).map { _ in 1 + Int(rng.next() % 700) }
                let context = decoder.makeContext(expectedLength: nil, options: .init())
                var offset = 0
                for size in sizes where offset < data.count {
                    let end = min(data.count, offset + size)
                    _ = try context.append(data.subdata(in: offset..<end))
                    offset = end
                    if rng.next() % 3 == 0 {
                        let mode = ImageDecoderRenderMode(rawValue: Int(rng.next() % 3))!
                        if let image = try context.render(
                            mode: mode, targetDimensions: CGSize(width: 40, height: 40),
                            targetContentMode: .scaleAspectFill)
                        {
                            let expected = TargetSizing.pixelDimensions(
                                width: 161, height: 97, targetDimensions: CGSize(width: 40, height: 40),
                                contentMode: .scaleAspectFill)
                            #expect(image.image.width == expected.width && image.image.height == expected.height)
                        }
                    }
                }
                #expect(try context.finalize() == .didCompleteLoading)
                let image = try #require(
                    try context.render(mode: .completeImage, targetDimensions: .zero, targetContentMode: .center))
                #expect(image.image == reference)
            }
        }
    }

    @Test func baselineStreamsRows() throws {
        let (_, data) = try JPEGTestSupport.jpeg(width: 64, height: 64, gray: false)
        let context = decoder.makeContext(expectedLength: nil, options: .init())
        let half = data.count / 2
        #expect(try context.append(data.prefix(half)) == .didLoadHeaders)
        #expect(!context.isProgressive)
        #expect(
            try context.render(mode: .fullFrameProgress, targetDimensions: .zero, targetContentMode: .center) == nil)
        #expect(try context.render(mode: .completeImage, targetDimensions: .zero, targetContentMode: .center) == nil)
        let partial = try #require(
            try context.render(mode: .anyProgress, targetDimensions: .zero, targetContentMode: .center))
        #expect(partial.isPartial)
        // Undecoded rows are mid gray.
        #expect(partial.image.pixel(x: 10, y: 63) == SIMD4(128, 128, 128, 255))
        #expect(try context.append(data.suffix(from: half)) == .didCompleteLoading)
        let full = try #require(
            try context.render(mode: .completeImage, targetDimensions: .zero, targetContentMode: .center))
        #expect(!full.isPartial)
        #expect(full.image == (try decoder.decode(data, options: .init())).image)
    }

    @Test func scaledContextDecodesAtDCTScale() throws {
        let (_, data) = try JPEGTestSupport.jpeg(width: 641, height: 479, progressive: true)
        let options = ImageDecodingOptions(
            targetDimensions: CGSize(width: 150, height: 150), targetContentMode: .scaleAspectFit)
        let context = try JPEGTestSupport.feed(data, chunkSizes: [4096, 4096, 4096])
        let scaledContext = try JPEGTestSupport.feed(data, chunkSizes: [4096, 4096, 4096], options: options)
        let image = try #require(
            try scaledContext.render(
                mode: .completeImage, targetDimensions: CGSize(width: 150, height: 150),
                targetContentMode: .scaleAspectFit))
        #expect(image.image.width == 150 && image.image.height == 112)
        let oneShot = try decoder.decode(data, options: options).image
        #expect(ImageComparison.psnr(image.image, oneShot) > 40)
        let fullRender = try #require(
            try context.render(mode: .completeImage, targetDimensions: .zero, targetContentMode: .center))
        #expect(fullRender.image.width == 641)
        // At 150 px the context decodes at 1/4 (161 x 120); rendered at that size it is byte-identical
        // to tjDecompress2 at the same scale.
        let scale = JPEGScaleSelection(
            width: 641, height: 479, orientation: .up, targetDimensions: CGSize(width: 150, height: 150),
            contentMode: .scaleAspectFit)
        #expect(scale.scaledWidth == 161 && scale.scaledHeight == 120)
        let native = try #require(
            try scaledContext.render(
                mode: .completeImage, targetDimensions: CGSize(width: 161, height: 120), targetContentMode: .scaleToFill
            ))
        #expect(native.image == JPEGTestSupport.turboJPEGDecode(data, scaledWidth: 161, scaledHeight: 120))
    }

    @Test func everyPrefixThroughTheContext() throws {
        for progressive in [false, true] {
            let (_, data) = try JPEGTestSupport.jpeg(width: 24, height: 16, progressive: progressive)
            for length in 0..<data.count {
                let context = decoder.makeContext(expectedLength: nil, options: .init())
                do {
                    if length > 0 { _ = try context.append(data.prefix(length)) }
                    _ = try context.render(mode: .anyProgress, targetDimensions: .zero, targetContentMode: .center)
                    let result = try context.finalize()
                    #expect(result != .didCompleteLoading || length >= data.count - 2)
                    if let image = try context.render(
                        mode: .anyProgress, targetDimensions: .zero, targetContentMode: .center)
                    {
                        #expect(image.image.width == 24 && image.image.height == 16)
                        #expect(image.isPartial || length >= data.count - 2)
                    }
                } catch {
                    // A clean typed error is fine.
                }
            }
        }
    }

    @Test func scanLookahead() {
        // A whole scan: SOS header (length 8) + entropy data + EOI.
        let whole: [UInt8] = [0xFF, 0xDA, 0x00, 0x08, 1, 1, 0, 0, 63, 0, 0x12, 0xFF, 0x00, 0x34, 0xFF, 0xD9]
        #expect(tip_jpeg_next_scan_available(whole, whole.count, 0) == 1)
        #expect(tip_jpeg_next_scan_available(whole, whole.count - 2, 0) == 0)
        // With the SOS marker already read by libjpeg.
        #expect(tip_jpeg_next_scan_available(Array(whole.dropFirst(2)), whole.count - 2, 0xDA) == 1)
        // A DHT segment before the scan, cut inside it.
        let dht: [UInt8] = [0xFF, 0xC4, 0x00, 0x05, 0xFF, 0xDA, 0x00]
        #expect(tip_jpeg_next_scan_available(dht, dht.count, 0) == 0)
        #expect(tip_jpeg_next_scan_available([0xFF, 0xD9], 2, 0) == 1)
    }

    @Test func carnivalProgressiveIn16KiBChunks() throws {
        guard let data = Fixtures.data("carnival.pjpg") else {
            print(Fixtures.skipMessage)
            return
        }
        let reference = try #require(JPEGTestSupport.turboJPEGDecode(data))
        let context = decoder.makeContext(expectedLength: data.count, options: .init())
        var frames = 0
        var offset = 0
        var firstFrameOffset: Int?
        while offset < data.count {
            let end = min(data.count, offset + 16 * 1024)
            let result = try context.append(data.subdata(in: offset..<end))
            offset = end
            if result >= .didLoadFrame && context.frameCount > frames {
                frames = context.frameCount
                if firstFrameOffset == nil { firstFrameOffset = offset }
                let image = try #require(
                    try context.render(mode: .fullFrameProgress, targetDimensions: .zero, targetContentMode: .center))
                #expect(image.image.width == 1880 && image.image.height == 1253)
            }
        }
        #expect(try context.finalize() == .didCompleteLoading)
        #expect(context.frameCount == 14)
        #expect(frames == 14)
        #expect((firstFrameOffset ?? .max) <= data.count / 10)
        let final = try #require(
            try context.render(mode: .completeImage, targetDimensions: .zero, targetContentMode: .center))
        #expect(final.image == reference)
    }

    @Test func smallFixturesIncrementally() throws {
        var found = false
        for name in ["pink_outfit.jpg", "twitterfied.jpg", "twitterfied.pjpg"] {
            guard let data = Fixtures.data(name) else { continue }
            found = true
            let reference = try #require(JPEGTestSupport.turboJPEGDecode(data))
            let oneShot = try decoder.decode(data, options: .init())
            let context = try JPEGTestSupport.feed(
                data, chunkSizes: Array(repeating: 4096, count: data.count / 4096 + 1))
            #expect(context.frameCount == (context.isProgressive ? JPEGTestSupport.scanCount(data) : 0), "\(name)")
            let final = try #require(
                try context.render(mode: .completeImage, targetDimensions: .zero, targetContentMode: .center))
            #expect(final.image == oneShot.image, "\(name)")
            if oneShot.image.width == reference.width && oneShot.image.height == reference.height {
                #expect(final.image == reference, "\(name)")
            }
            // Scaled context: DCT-scaled decode then resample to the render's own target.
            let target = CGSize(width: 120, height: 120)
            let options = ImageDecodingOptions(targetDimensions: target, targetContentMode: .scaleAspectFill)
            let scaled = try JPEGTestSupport.feed(data, chunkSizes: [8192, 8192], options: options)
            let thumb = try #require(
                try scaled.render(mode: .completeImage, targetDimensions: target, targetContentMode: .scaleAspectFill))
            let expected = TargetSizing.pixelDimensions(
                width: oneShot.image.width, height: oneShot.image.height, targetDimensions: target,
                contentMode: .scaleAspectFill)
            #expect(thumb.image.width == expected.width && thumb.image.height == expected.height, "\(name)")
            let oneShotThumb = try decoder.decode(data, options: options).image
            #expect(ImageComparison.psnr(thumb.image, oneShotThumb) > 35, "\(name)")
        }
        if !found { print(Fixtures.skipMessage) }
    }

    @Test func partialFirstScanRendersDefinedPixels() throws {
        let (_, data) = try JPEGTestSupport.jpeg(width: 128, height: 128, progressive: true)
        let bytes = [UInt8](data)
        var sos: [Int] = []
        for i in 0..<(bytes.count - 1) where bytes[i] == 0xFF && bytes[i + 1] == 0xDA { sos.append(i) }
        let context = decoder.makeContext(expectedLength: nil, options: .init())
        // Header, then half of the first (DC) scan.
        let cut = sos[0] + (sos[1] - sos[0]) / 2
        #expect(try context.append(data.prefix(cut)) == .didLoadHeaders)
        #expect(context.frameCount == 0)
        #expect(
            try context.render(mode: .fullFrameProgress, targetDimensions: .zero, targetContentMode: .center) == nil)
        let partial = try #require(
            try context.render(mode: .anyProgress, targetDimensions: .zero, targetContentMode: .center))
        #expect(partial.isPartial)
        #expect(partial.image.pixel(x: 64, y: 127) == SIMD4(128, 128, 128, 255))
        // The rest still decodes to the exact image after that early output pass.
        _ = try context.append(data.suffix(from: cut))
        #expect(try context.finalize() == .didCompleteLoading)
        let final = try #require(
            try context.render(mode: .completeImage, targetDimensions: .zero, targetContentMode: .center))
        #expect(final.image == JPEGTestSupport.turboJPEGDecode(data))
        #expect(context.frameCount == sos.count)
    }

    @Test func truncatedProgressiveFinalizesPartial() throws {
        let (_, data) = try JPEGTestSupport.jpeg(width: 120, height: 80, progressive: true)
        let context = decoder.makeContext(expectedLength: data.count, options: .init())
        _ = try context.append(data.prefix(data.count * 2 / 3))
        let result = try context.finalize()
        #expect(result == .didLoadFrame)
        #expect(try context.render(mode: .completeImage, targetDimensions: .zero, targetContentMode: .center) == nil)
        let image = try #require(
            try context.render(mode: .anyProgress, targetDimensions: .zero, targetContentMode: .center))
        #expect(image.isPartial)
        #expect(image.image.width == 120)
        // Same as TurboJPEG on the truncated data.
        let oneShot = try decoder.decode(data.prefix(data.count * 2 / 3), options: .init())
        #expect(oneShot.isPartial)
        #expect(image.image == oneShot.image)
    }
}
