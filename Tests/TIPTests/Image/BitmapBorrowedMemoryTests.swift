import Foundation
import Testing

@testable import TIP

/// `Bitmap(width:height:format:borrowing:owner:)`: a bitmap over memory it does not own (image tables).
@Suite("Bitmap over borrowed memory")
struct BitmapBorrowedMemoryTests {
    /// 64-byte-aligned memory that counts how long it lives.
    final class Buffer: @unchecked Sendable {
        // `pointer` is written only before the first bitmap is made, then only read.
        let pointer: UnsafeMutableRawPointer
        let count: Int
        let released: Locked<Bool>

        init(count: Int, released: Locked<Bool>) {
            self.count = count
            self.released = released
            pointer = UnsafeMutableRawPointer.allocate(byteCount: count, alignment: 64)
            pointer.initializeMemory(as: UInt8.self, repeating: 0, count: count)
        }

        deinit {
            pointer.deallocate()
            released.withLock { $0 = true }
        }
    }

    @Test("reads the borrowed pixels without copying them", arguments: PixelFormat.allCases)
    func reads(format: PixelFormat) throws {
        let released = Locked(false)
        let source = Bitmap(width: 5, height: 3, format: format)!
        var reference = source
        for y in 0..<3 {
            for x in 0..<5 { reference.setPixel(x: x, y: y, SIMD4(UInt8(x * 40), UInt8(y * 80), 7, 255)) }
        }
        let buffer = Buffer(count: reference.memoryCost, released: released)
        reference.withUnsafeBytes { buffer.pointer.copyMemory(from: $0.baseAddress!, byteCount: $0.count) }
        let view = try #require(Bitmap(width: 5, height: 3, format: format, borrowing: buffer.pointer, owner: buffer))
        #expect(view == reference)
        #expect(view.isBorrowingMemory && !reference.isBorrowingMemory)
        #expect(view.bytesPerRow == reference.bytesPerRow && view.memoryCost == reference.memoryCost)
        view.withUnsafeBytes { #expect($0.baseAddress == UnsafeRawPointer(buffer.pointer)) }
    }

    @Test("mutating copies the pixels out first: the borrowed memory never changes")
    func copyOnWrite() throws {
        let released = Locked(false)
        let buffer = Buffer(count: 64 * 2, released: released)
        var view = try #require(
            Bitmap(width: 2, height: 2, format: .rgba8Premultiplied, borrowing: buffer.pointer, owner: buffer))
        let unique = view.isStorageUniquelyReferenced()
        #expect(unique, "the only copy, yet it must not write in place")
        view.setPixel(x: 1, y: 1, SIMD4(9, 9, 9, 9))
        #expect(!view.isBorrowingMemory)
        #expect(view.pixel(x: 1, y: 1) == SIMD4(9, 9, 9, 9))
        #expect(UnsafeRawBufferPointer(start: buffer.pointer, count: buffer.count).allSatisfy { $0 == 0 })
    }

    @Test("the owner lives as long as any copy of the bitmap, and no longer")
    func ownerLifetime() throws {
        let released = Locked(false)
        var copies: [Bitmap] = []
        do {
            let buffer = Buffer(count: 64, released: released)
            let view = try #require(
                Bitmap(width: 1, height: 1, format: .gray8, borrowing: buffer.pointer, owner: buffer))
            copies = [view, view]
        }
        #expect(!released.withLock { $0 })
        copies.removeFirst()
        #expect(!released.withLock { $0 })
        copies.removeAll()
        #expect(released.withLock { $0 })
    }

    @Test("uniqueness tells whether another copy shares the storage")
    func uniqueness() throws {
        let released = Locked(false)
        let buffer = Buffer(count: 64, released: released)
        var view = try #require(Bitmap(width: 1, height: 1, format: .gray8, borrowing: buffer.pointer, owner: buffer))
        let alone = view.isStorageUniquelyReferenced()
        let other = view
        let shared = !view.isStorageUniquelyReferenced()
        #expect(alone && shared)
        withExtendedLifetime(other) {}
    }

    @Test("memory that is not 64-byte aligned, or a bad size, is refused")
    func refused() {
        let released = Locked(false)
        let buffer = Buffer(count: 256, released: released)
        #expect(Bitmap(width: 2, height: 2, format: .rgbx8, borrowing: buffer.pointer + 4, owner: buffer) == nil)
        #expect(Bitmap(width: 0, height: 2, format: .rgbx8, borrowing: buffer.pointer, owner: buffer) == nil)
        #expect(Bitmap(width: 2, height: -1, format: .rgbx8, borrowing: buffer.pointer, owner: buffer) == nil)
    }
}
