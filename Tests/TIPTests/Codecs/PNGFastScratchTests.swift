import CPNG
import Foundation
import Testing

@testable import TIP

/// What the scratch allocator below was asked for and given back, in order.
private enum ScratchEvent: Equatable {
    case allocate(bytes: Int, pointer: UInt, length: Int)
    case release(pointer: UInt, length: Int)
}

/// How the allocator below answers: a block of `extra` more bytes than asked for (negative: fewer), or none.
private let scratchPlan = Locked<(extra: Int?, events: [ScratchEvent])>((0, []))

/// A scratch allocator that records its calls and hands out heap blocks full of 0xA5 (their contents are
/// the decoder's business, never zero as a new mapping would be).
private func plannedAllocate(_ bytes: Int, _ length: UnsafeMutablePointer<Int>?) -> UnsafeMutableRawPointer? {
    scratchPlan.withLock { plan -> UnsafeMutableRawPointer? in
        guard let extra = plan.extra else {
            plan.events.append(.allocate(bytes: bytes, pointer: 0, length: 0))
            return nil
        }
        let size = bytes + extra
        let pointer = UnsafeMutableRawPointer.allocate(byteCount: max(size, 1), alignment: 64)
        pointer.initializeMemory(as: UInt8.self, repeating: 0xA5, count: max(size, 1))
        length?.pointee = size
        plan.events.append(.allocate(bytes: bytes, pointer: UInt(bitPattern: pointer), length: size))
        return pointer
    }
}

private func plannedRelease(_ pointer: UnsafeMutableRawPointer?, _ length: Int) {
    scratchPlan.withLock { $0.events.append(.release(pointer: UInt(bitPattern: pointer), length: length)) }
    pointer?.deallocate()
}

/// `tip_png_fast_decode` inflates the rows of a large PNG into the caller's scratch memory and gives it back;
/// without it, or when it is refused or too short, the decode goes on in memory of its own.
@Suite("PNG fast path scratch memory", .serialized)
struct PNGFastScratchTests {
    /// Decodes `png` (RGB, `width` x `height`) to RGBX through the C fast path with the planned allocator
    /// (`extra`; nil: refuses) or none (`scratch` false); the canvas and the allocator's calls.
    private func decode(
        _ png: Data, width: Int, height: Int, scratch: Bool, extra: Int? = 0
    ) -> (status: Int32, canvas: [UInt8], events: [ScratchEvent]) {
        scratchPlan.withLock { $0 = (extra, []) }
        var canvas = [UInt8](repeating: 0, count: width * height * 4)
        var allocator = tip_png_scratch_allocator(allocate: plannedAllocate, release: plannedRelease)
        let status = png.withUnsafeBytes { bytes in
            canvas.withUnsafeMutableBufferPointer { pixels in
                withUnsafePointer(to: &allocator) { allocator in
                    tip_png_fast_decode(
                        bytes.baseAddress?.assumingMemoryBound(to: UInt8.self), bytes.count, UInt32(width),
                        UInt32(height), Int32(TIP_PNG_OUTPUT_RGBX8), pixels.baseAddress, width * 4,
                        scratch ? allocator : nil)
                }
            }
        }
        return (status, canvas, scratchPlan.withLock { $0.events })
    }

    private static func rgb(width: Int, height: Int) -> Data {
        var writer = PNGFlavour(colorType: 2, bitDepth: 8, withTransparency: false, interlaced: false).writer(
            width: width, height: height)
        writer.filters = [0, 1, 2, 3, 4]
        return writer.encoded()
    }

    @Test("a large image's rows are inflated into the scratch block, given back once, pixels unchanged")
    func scratchUsed() throws {
        // 400 x 300 RGB: 300 rows of 1 + 1,200 bytes, over the 256 KiB from which scratch memory is asked for.
        let (width, height) = (400, 300)
        let png = Self.rgb(width: width, height: height)
        let own = decode(png, width: width, height: height, scratch: false)
        #expect(own.status == Int32(TIP_PNG_FAST_OK) && own.events.isEmpty)
        let rows = height * (1 + width * 3) + 16
        for extra in [0, 4096] {
            let lent = decode(png, width: width, height: height, scratch: true, extra: extra)
            #expect(lent.status == Int32(TIP_PNG_FAST_OK))
            #expect(lent.canvas == own.canvas)
            let given = try #require(lent.events.first)
            guard case .allocate(let bytes, let pointer, let length) = given else {
                Issue.record("first call: \(given)")
                continue
            }
            #expect(bytes == rows && length == rows + extra)
            #expect(lent.events == [given, .release(pointer: pointer, length: length)])
        }
        // The same pixels as libpng's reader.
        let reader = PNGFastPathTests.outcome(png, fastPath: false)
        guard case .image(let bitmap, false) = reader else {
            Issue.record("reader: \(reader)")
            return
        }
        let pixels = bitmap.withUnsafeBytes { Array($0) }
        #expect(bitmap.bytesPerRow == width * 4 && pixels == own.canvas)
    }

    @Test("a refused or short scratch block: the decode uses memory of its own and gives a short block back")
    func scratchRefusedOrShort() throws {
        let (width, height) = (400, 300)
        let png = Self.rgb(width: width, height: height)
        let own = decode(png, width: width, height: height, scratch: false)
        let rows = height * (1 + width * 3) + 16

        let refused = decode(png, width: width, height: height, scratch: true, extra: nil)
        #expect(refused.status == Int32(TIP_PNG_FAST_OK) && refused.canvas == own.canvas)
        #expect(refused.events == [.allocate(bytes: rows, pointer: 0, length: 0)])

        let short = decode(png, width: width, height: height, scratch: true, extra: -1)
        #expect(short.status == Int32(TIP_PNG_FAST_OK) && short.canvas == own.canvas)
        let given = try #require(short.events.first)
        guard case .allocate(_, let pointer, let length) = given else {
            Issue.record("first call: \(given)")
            return
        }
        #expect(length == rows - 1)
        #expect(short.events == [given, .release(pointer: pointer, length: length)])
    }

    @Test("a small image's rows never ask for scratch memory")
    func smallImage() {
        // 100 x 100 RGB: 30,100 bytes of rows.
        let png = Self.rgb(width: 100, height: 100)
        let small = decode(png, width: 100, height: 100, scratch: true)
        #expect(small.status == Int32(TIP_PNG_FAST_OK) && small.events.isEmpty)
        #expect(small.canvas == decode(png, width: 100, height: 100, scratch: false).canvas)
    }
}
