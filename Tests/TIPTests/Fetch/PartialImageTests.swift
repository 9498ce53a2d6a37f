import Foundation
import Testing

@testable import TIP

@Suite("Partial image")
struct PartialImageTests {
    @Test("a progressive JPEG in chunks: type, states, scans, progress, cached renders, final image")
    func progressiveJPEG() throws {
        let jpeg = try JPEGTestSupport.jpeg(width: 640, height: 480, progressive: true).data
        let partial = PartialImage(expectedLength: jpeg.count)
        #expect(partial.state == .noData)
        #expect(partial.progress == 0)
        var offset = 0
        var states: [PartialImage.State] = []
        var sawFrame = false
        var scansSeen: [Int] = []
        while offset < jpeg.count {
            let end = min(jpeg.count, offset + 4096)
            let result = partial.append(jpeg.subdata(in: offset..<end))
            if result == .didLoadFrame { sawFrame = true }
            states.append(partial.state)
            scansSeen.append(partial.frameCount)
            offset = end
        }
        #expect(partial.type == .jpeg)
        #expect(partial.isProgressive)
        #expect(partial.dimensions == CGSize(width: 640, height: 480))
        #expect(sawFrame)
        #expect(scansSeen == scansSeen.sorted())
        #expect(states.contains(.loadingImage))
        #expect(partial.failure == nil)
        #expect(partial.progress <= 0.999 || partial.state == .complete)

        let first = partial.render(
            mode: .fullFrameProgress, targetDimensions: CGSize(width: 100, height: 100),
            targetContentMode: .scaleAspectFit)
        let again = partial.render(
            mode: .fullFrameProgress, targetDimensions: CGSize(width: 100, height: 100),
            targetContentMode: .scaleAspectFit)
        #expect(first != nil && first === again)  // reused while nothing new arrived
        #expect(first?.dimensions == CGSize(width: 100, height: 75))

        #expect(partial.finalize() == .didCompleteLoading)
        #expect(partial.state == .complete)
        #expect(partial.progress == 1)
        let final = try #require(
            partial.render(mode: .completeImage, targetDimensions: .zero, targetContentMode: .center))
        #expect(final.dimensions == CGSize(width: 640, height: 480))
        #expect(!final.isPartial)
        #expect(partial.data == jpeg)
    }

    @Test("one byte at a time still finds the type and the header")
    func tinyChunks() throws {
        let jpeg = try JPEGTestSupport.jpeg(width: 64, height: 48).data
        let partial = PartialImage(expectedLength: nil)
        for byte in jpeg.prefix(2048) { partial.append(Data([byte])) }
        #expect(partial.type == .jpeg)
        #expect(partial.dimensions == CGSize(width: 64, height: 48))
        #expect(partial.progress == 0)  // unknown length
    }

    @Test("bytes no codec knows end in unrecognizedFormat, without crashing or rendering")
    func unknownBytes() {
        let partial = PartialImage(expectedLength: 100)
        partial.append(Data(repeating: 0x41, count: 100))
        #expect(partial.finalize() == .didProgress)
        #expect(partial.failure == .unrecognizedFormat)
        #expect(partial.render(mode: .anyProgress, targetDimensions: .zero, targetContentMode: .center) == nil)
        #expect(partial.state == .loadingHeaders)
    }

    @Test("a truncated image renders what arrived but never completes")
    func truncated() throws {
        let jpeg = try JPEGTestSupport.jpeg(width: 320, height: 240, progressive: true).data
        let partial = PartialImage(expectedLength: jpeg.count)
        partial.append(jpeg.prefix(jpeg.count * 2 / 3))
        #expect(partial.finalize() != .didCompleteLoading)
        #expect(partial.state == .loadingImage)
        let image = partial.render(mode: .anyProgress, targetDimensions: .zero, targetContentMode: .center)
        #expect(image?.dimensions == CGSize(width: 320, height: 240))
    }
}
