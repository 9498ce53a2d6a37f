import CTIFF
import CTurboJPEG
import Foundation
import Testing

@testable import TIP

/// A JPEG with restart markers and a TIFF in several strips split into bands decoded on the processors the decode
/// gate finds idle, and decode sequentially while other decodes keep them busy. Each test steps a gate of its own
/// by hand: threads hold its slots until released, and the test waits on the gate's occupancy.
@Suite("Parallel band decoding")
struct ParallelBandDecodingTests {
    /// Threads holding `running` slots of `gate` and `waiting` more waiting for one, until `release()`.
    private final class Holders: Sendable {
        private let count: Int
        private let go = DispatchSemaphore(value: 0)
        private let done = DispatchSemaphore(value: 0)

        init(_ gate: DecodeGate, running: Int, waiting: Int = 0) throws {
            count = running + waiting
            for _ in 0..<count {
                Thread.detachNewThread { [gate, go, done] in
                    gate.run { go.wait() }
                    done.signal()
                }
            }
            let settled = gate.wait(
                until: { $0.running == running && $0.waiting == waiting }, deadline: Date().addingTimeInterval(60))
            try #require(settled)
        }

        /// Lets every holder (and waiter) through the gate, and waits until all have left it.
        func release() {
            for _ in 0..<count { go.signal() }
            for _ in 0..<count { done.wait() }
        }
    }

    @Test("bands: the caller's own and one per free slot, at most the processors and 4; none with every slot held")
    func bandsFollowTheGate() throws {
        let gate = DecodeGate(slots: 4)
        #expect(gate.parallelism(processors: 2) == 2)
        #expect(gate.parallelism(processors: 8) == 4)
        // A pipeline's decode holds a slot of its own: with one slot of two held, one processor is idle; with
        // both held, none.
        let two = DecodeGate(slots: 2)
        let caller = try Holders(two, running: 1)
        #expect(two.parallelism(processors: 2) == 2)
        caller.release()
        let both = try Holders(two, running: 2)
        #expect(two.parallelism(processors: 2) == 1)
        both.release()
        // Every slot busy, and a decode waiting: sequential.
        let busy = try Holders(gate, running: 4, waiting: 1)
        #expect(gate.parallelism(processors: 8) == 1)
        busy.release()
        let three = try Holders(gate, running: 3)
        #expect(gate.parallelism(processors: 8) == 2)
        three.release()
    }

    @Test("carnival.jpg splits into bands on an idle gate, and not while every slot is busy")
    func busyGateDecodesSequentially() throws {
        guard let data = Fixtures.data("carnival.jpg") else {
            print(Fixtures.skipMessage)
            return
        }
        let full = try JPEGCodec().decoder.decode(data, options: ImageDecodingOptions()).image
        let scale = JPEGScaleSelection(
            width: full.width, height: full.height, orientation: .up,
            targetDimensions: CGSize(width: full.width, height: full.height), contentMode: .scaleToFill)
        let pitch = scale.scaledWidth * 4
        var pixels = [UInt8](repeating: 0, count: pitch * scale.scaledHeight)
        func parallel(_ gate: DecodeGate) -> Bool {
            data.withUnsafeBytes { bytes in
                pixels.withUnsafeMutableBytes { destination in
                    JPEGDecoder.decodeInParallel(
                        bytes.bindMemory(to: UInt8.self).baseAddress!, count: bytes.count, scale: scale,
                        pixelFormat: Int32(TJPF_RGBX.rawValue), destination: destination.baseAddress!, pitch: pitch,
                        gate: gate)
                }
            }
        }
        let gate = DecodeGate(slots: 2)
        #expect(parallel(gate) == (Processors.active >= 2))
        let holders = try Holders(gate, running: 2)
        #expect(!parallel(gate))
        holders.release()
    }

    @Test("a TIFF in several strips splits into bands on an idle gate, and not while every slot is busy")
    func busyGateDecodesTIFFSequentially() throws {
        let codec = TIFFCodec()
        let source = TestImages.photo(width: 700, height: 500)
        let data = try #require(codec.encoder).encode(ImageContainer(image: source), options: [], quality: 1)
        func parallel(_ gate: DecodeGate) throws -> Bool {
            try data.withUnsafeBytes { bytes in
                var info = tip_tiff_info()
                var message = [CChar](repeating: 0, count: 256)
                let base = bytes.bindMemory(to: UInt8.self).baseAddress
                let image = try #require(tip_tiff_open(base, bytes.count, UInt64.max, &info, &message, message.count))
                defer { tip_tiff_close(image) }
                #expect(info.rows_per_piece > 0 && info.rows_per_piece < info.height)
                var bitmap = try #require(Bitmap(uninitializedWidth: 700, height: 500, format: .rgbx8))
                let split = TIFFDecoder.decodeInParallel(
                    bytes, first: image, info: info, allocationLimit: UInt64.max, into: &bitmap, gate: gate)
                if split { #expect(ImageComparison.maxDifference(bitmap, source) == 0) }
                return split
            }
        }
        let gate = DecodeGate(slots: 2)
        #expect(try parallel(gate) == (Processors.active >= 2))
        let holders = try Holders(gate, running: 2)
        #expect(try !parallel(gate))
        holders.release()
    }

    @Test("resampling and processing passes split into bands on an idle gate, and run whole while every slot is busy")
    func busyGateResamplesInOneBand() throws {
        let bands = Locked<[Range<Int>]>([])
        func run(_ gate: DecodeGate, work: Int = 1 << 30) -> [Range<Int>] {
            bands.withLock { $0.removeAll() }
            Resampler.forEachBand(rows: 100, work: work, threshold: 1 << 20, gate: gate) { band in
                bands.withLock { $0.append(band) }
            }
            return bands.withLock { $0 }.sorted { $0.lowerBound < $1.lowerBound }
        }
        let gate = DecodeGate(slots: 2)
        let idle = run(gate)
        #expect(idle.count == (Processors.active >= 2 ? 4 : 1))
        #expect(idle.first?.lowerBound == 0 && idle.last?.upperBound == 100)
        #expect(run(gate, work: 1 << 20) == [0..<100])  // not past the threshold: whole
        let holders = try Holders(gate, running: 2)
        #expect(run(gate) == [0..<100])
        holders.release()
    }
}
