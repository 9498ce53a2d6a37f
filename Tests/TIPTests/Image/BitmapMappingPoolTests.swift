import Foundation
import Testing

@testable import TIP

@Suite("Bitmap mapping pool")
struct BitmapMappingPoolTests {
    private let megabyte = 1 << 20

    @Test("a released mapping serves the next request of the same size, or up to a quarter larger")
    func reuse() throws {
        let pool = BitmapMappingPool(capacity: 8 * megabyte)
        let first = try #require(pool.take(2 * megabyte))
        #expect(first.length >= 2 * megabyte && first.length % 4096 == 0)
        pool.give(first.pointer, length: first.length)
        #expect(pool.keptBytes == first.length)
        // Larger than a piece may be cut from, and too large for a request of half its size (it would waste
        // over a quarter): a new mapping.
        let small = try #require(pool.take(megabyte))
        #expect(small.pointer != first.pointer && small.isNew)
        PageMapping.unmap(small.pointer, length: small.length)
        // Within a quarter: the kept one, whole.
        let again = try #require(pool.take(2 * megabyte - 100_000))
        #expect(again.pointer == first.pointer && again.length == first.length)
        #expect(pool.keptBytes == 0)
        pool.give(again.pointer, length: again.length)
    }

    @Test("a request cuts its pages from a larger kept mapping of up to 1 MiB; the rest stays kept and rejoins")
    func cutting() throws {
        let page = PageMapping.pageSize
        let pool = BitmapMappingPool(capacity: 8 * megabyte)
        let decode = try #require(pool.take(BitmapMappingPool.largestCut, populated: true))
        UnsafeMutableRawBufferPointer(start: decode.pointer, count: decode.length).initializeMemory(
            as: UInt8.self, repeating: 0xCD)
        pool.give(decode.pointer, length: decode.length)
        // A thumbnail's 160,000 bytes (whole pages) from the start; the rest kept, the pages as left.
        let thumbnail = try #require(pool.take(160_000))
        let thumbnailLength = (160_000 + page - 1) / page * page
        #expect(!thumbnail.isNew && thumbnail.pointer == decode.pointer && thumbnail.length == thumbnailLength)
        #expect(thumbnail.pointer.load(fromByteOffset: thumbnailLength - 1, as: UInt8.self) == 0xCD)
        #expect(pool.keptBytes == decode.length - thumbnailLength)
        // The next request, too, cuts from what is left.
        let second = try #require(pool.take(300_000))
        #expect(second.pointer == decode.pointer + thumbnailLength && !second.isNew)
        // Given back in any order, the pieces join into the mapping they were cut from.
        pool.give(thumbnail.pointer, length: thumbnail.length)
        pool.give(second.pointer, length: second.length)
        #expect(pool.keptBytes == decode.length)
        let whole = try #require(pool.take(decode.length))
        #expect(whole.pointer == decode.pointer && whole.length == decode.length)
        #expect(pool.keptBytes == 0)
        PageMapping.unmap(whole.pointer, length: whole.length)
        // A rest under 64 KiB is not kept: it goes back to the system.
        let small = try #require(pool.take(40 * page))
        pool.give(small.pointer, length: small.length)
        let smaller = try #require(pool.take(30 * page))
        #expect(smaller.pointer == small.pointer && smaller.length == 30 * page && !smaller.isNew)
        #expect(pool.keptBytes == 0)
        PageMapping.unmap(smaller.pointer, length: smaller.length)
    }

    @Test("scratch memory takes a larger kept mapping whole, and a mapping over 1 MiB is never cut")
    func scratchAndLargeMappings() throws {
        let pool = BitmapMappingPool(capacity: 16 * megabyte)
        let large = try #require(pool.take(4 * megabyte))
        pool.give(large.pointer, length: large.length)
        let scratch = try #require(pool.take(megabyte, acceptingAnyLarger: true))
        #expect(scratch.pointer == large.pointer && scratch.length == large.length)
        pool.give(scratch.pointer, length: scratch.length)
        let thumbnail = try #require(pool.take(200_000))
        #expect(thumbnail.isNew && thumbnail.pointer != large.pointer)
        #expect(pool.keptBytes == large.length)
        PageMapping.unmap(thumbnail.pointer, length: thumbnail.length)
        pool.drain()
    }

    #if os(Linux)
    @Test("a new bitmap's pages are provided at once up to the limit; a larger one costs only what is written")
    func bitmapPagesProvided() throws {
        let page = Int(sysconf(Int32(_SC_PAGESIZE)))
        /// The share of `bitmap`'s pages that are resident.
        func residentShare(_ bitmap: Bitmap) -> Double {
            bitmap.withUnsafeBytes { bytes -> Double in
                let count = (bytes.count + page - 1) / page
                var vector = [UInt8](repeating: 0, count: count)
                let base = UnsafeMutableRawPointer(mutating: bytes.baseAddress!)
                guard mincore(base, bytes.count, &vector) == 0 else { return -1 }
                return Double(vector.filter { $0 & 1 != 0 }.count) / Double(count)
            }
        }
        // Rows of 4,096 bytes: no padding for the initialiser to write. 1,000 rows (an odd size, so no kept
        // mapping of the shared pool fits it): provided whole. 5,000 rows (20 MB, past the limit): untouched.
        let small = try #require(Bitmap(uninitializedWidth: 1024, height: 1000, format: .rgbx8))
        #expect(small.memoryCost <= BitmapStorage.populatedLimit && small.isMapped)
        #expect(residentShare(small) == 1)
        let large = try #require(Bitmap(uninitializedWidth: 1024, height: 5000, format: .rgbx8))
        #expect(large.memoryCost > BitmapStorage.populatedLimit && large.isMapped)
        #expect(residentShare(large) < 0.2)
    }
    #endif

    @Test("a new mapping says so and is all zero, its pages provided at once or not; a kept one is as left")
    func newMappings() throws {
        let pool = BitmapMappingPool(capacity: 8 * megabyte)
        for populated in [false, true] {
            let fresh = try #require(pool.take(megabyte, populated: populated))
            #expect(fresh.isNew)
            #expect(UnsafeRawBufferPointer(start: fresh.pointer, count: fresh.length).allSatisfy { $0 == 0 })
            fresh.pointer.storeBytes(of: 0xAB, as: UInt8.self)
            pool.give(fresh.pointer, length: fresh.length)
            let kept = try #require(pool.take(megabyte, populated: populated))
            #expect(!kept.isNew && kept.pointer == fresh.pointer)
            #expect(kept.pointer.load(as: UInt8.self) == 0xAB)
            PageMapping.unmap(kept.pointer, length: kept.length)
        }
    }

    @Test("a populated mapping of a huge page or more starts on a huge page, is all zero and wholly writable")
    func hugeMappings() throws {
        let length = 5 * megabyte + 100
        let mapping = try #require(PageMapping.map(length, populated: true))
        defer { PageMapping.unmap(mapping.pointer, length: mapping.length) }
        #expect(mapping.length >= length && mapping.length % 4096 == 0 && mapping.length - length < 65536)
        if let huge = PageMapping.hugePageSize, mapping.length >= huge {
            #expect(Int(bitPattern: mapping.pointer) % huge == 0)
        }
        let bytes = UnsafeMutableRawBufferPointer(start: mapping.pointer, count: mapping.length)
        #expect(bytes.allSatisfy { $0 == 0 })
        bytes[0] = 1
        bytes[mapping.length - 1] = 2
        #expect(bytes[0] == 1 && bytes[mapping.length - 1] == 2)
    }

    @Test("the shared pool keeps 8 MiB per processor, at least 16 and at most 64 MiB")
    func defaultCapacity() {
        #expect(BitmapMappingPool.defaultCapacity(processors: 1) == 16 * megabyte)
        #expect(BitmapMappingPool.defaultCapacity(processors: 2) == 16 * megabyte)
        #expect(BitmapMappingPool.defaultCapacity(processors: 4) == 32 * megabyte)
        #expect(BitmapMappingPool.defaultCapacity(processors: 64) == 64 * megabyte)
        #expect(
            BitmapMappingPool.shared.capacity
                == BitmapMappingPool.defaultCapacity(processors: ProcessInfo.processInfo.activeProcessorCount))
    }

    @Test("the pool never keeps more than its capacity: the oldest mappings go first")
    func capacityBound() throws {
        let pool = BitmapMappingPool(capacity: 3 * megabyte)
        let mappings = try (0..<5).map { _ in try #require(pool.take(megabyte)) }
        for mapping in mappings { pool.give(mapping.pointer, length: mapping.length) }
        #expect(pool.keptBytes == 3 * megabyte)
        // The three kept are the last three given.
        var reused: Set<UInt> = []
        for _ in 0..<3 {
            let mapping = try #require(pool.take(megabyte))
            reused.insert(UInt(bitPattern: mapping.pointer))
            PageMapping.unmap(mapping.pointer, length: mapping.length)
        }
        #expect(reused == Set(mappings.suffix(3).map { UInt(bitPattern: $0.pointer) }))
        // One larger than the whole pool is never kept.
        let huge = try #require(pool.take(4 * megabyte))
        pool.give(huge.pointer, length: huge.length)
        #expect(pool.keptBytes == 0)
    }

    @Test("draining unmaps everything kept")
    func drain() throws {
        let pool = BitmapMappingPool(capacity: 4 * megabyte)
        let mapping = try #require(pool.take(megabyte))
        pool.give(mapping.pointer, length: mapping.length)
        pool.drain()
        #expect(pool.keptBytes == 0)
    }

    @Test("thumbnail-sized bitmaps from 64 KiB up get mappings of their own; smaller ones stay on the heap")
    func thumbnailsAreMapped() throws {
        #expect(BitmapStorage.mappingThreshold == 64 * 1024)
        // 128x128 RGBX is exactly the threshold; 200x150 is a 200 px thumbnail of a 4:3 photo.
        for (width, height) in [(128, 128), (200, 150)] {
            let bitmap = try #require(Bitmap(uninitializedWidth: width, height: height, format: .rgbx8))
            #expect(bitmap.isMapped, "\(width)x\(height)")
        }
        for (width, height, format) in [(100, 100, PixelFormat.rgbx8), (128, 128, .gray8)] {
            let bitmap = try #require(Bitmap(uninitializedWidth: width, height: height, format: format))
            #expect(!bitmap.isMapped, "\(width)x\(height) \(format)")
        }
        // A copy made for a write is mapped as its source was, and keeps its own pixels.
        let source = try #require(Bitmap(width: 200, height: 150, format: .rgbx8))
        var copy = source
        copy.setPixel(x: 199, y: 149, SIMD4(9, 8, 7, 255))
        #expect(copy.isMapped && source.isMapped)
        #expect(source.pixel(x: 199, y: 149) == SIMD4(0, 0, 0, 255))
        #expect(copy.pixel(x: 199, y: 149) == SIMD4(9, 8, 7, 255))
    }

    @Test("a bitmap made on a reused buffer is still all zero, and the last user's pixels stay with it")
    func zeroedAfterReuse() throws {
        // Big enough to be mapped; the same size twice so the second comes from the shared pool (or a fresh
        // mapping when another test took it meanwhile: zero either way).
        let side = 512
        do {
            var dirty = try #require(Bitmap(width: side, height: side, format: .rgba8Premultiplied))
            dirty.withUnsafeMutableBytes { _ = $0.initializeMemory(as: UInt8.self, repeating: 0xAB) }
            #expect(dirty.pixel(x: side - 1, y: side - 1) == SIMD4(repeating: 0xAB))
        }
        let clean = try #require(Bitmap(width: side, height: side, format: .rgba8Premultiplied))
        #expect(clean.withUnsafeBytes { $0.allSatisfy { $0 == 0 } })
        let opaque = try #require(Bitmap(width: side, height: side, format: .rgbx8))
        #expect(opaque.pixel(x: 7, y: 300) == SIMD4(0, 0, 0, 255))
        // Copy-on-write still copies into a buffer of its own.
        var copy = clean
        copy.setPixel(x: 0, y: 0, SIMD4(1, 2, 3, 255))
        #expect(clean.pixel(x: 0, y: 0) == SIMD4(0, 0, 0, 0))
        #expect(copy.pixel(x: 0, y: 0) == SIMD4(1, 2, 3, 255))
    }
}
