import Foundation
import Testing

@testable import TIP

#if os(Linux)
import Glibc

/// Small populated mappings cut from huge pages: each slice zero, writable, its own, and released alone.
@Suite("Huge page carver")
struct HugePageCarverTests {
    private let region = 2 << 20
    private let page = PageMapping.pageSize

    /// Whether every page of `length` bytes at `address` is mapped (mincore fails with ENOMEM on a hole).
    private func isMapped(_ address: UnsafeMutableRawPointer, _ length: Int) -> Bool {
        var vector = [UInt8](repeating: 0, count: (length + page - 1) / page)
        return mincore(address, length, &vector) == 0
    }

    /// Whether every page of `length` bytes at `address` is resident (provided already).
    private func isResident(_ address: UnsafeMutableRawPointer, _ length: Int) -> Bool {
        var vector = [UInt8](repeating: 0, count: (length + page - 1) / page)
        return mincore(address, length, &vector) == 0 && vector.allSatisfy { $0 & 1 != 0 }
    }

    @Test("slices of a region follow each other, are zero and provided, and each is released alone")
    func slices() throws {
        let carver = HugePageCarver(regionSize: region)
        let length = 256 << 10
        let slices = try (0..<3).map { _ in try #require(carver.slice(length)) }
        #expect(slices[1] == slices[0] + length && slices[2] == slices[1] + length)
        for (index, slice) in slices.enumerated() {
            let bytes = UnsafeMutableRawBufferPointer(start: slice, count: length)
            #expect(bytes.allSatisfy { $0 == 0 })
            #expect(isResident(slice, length))
            bytes.initializeMemory(as: UInt8.self, repeating: UInt8(index + 1))
        }
        PageMapping.unmap(slices[1], length: length)
        #expect(!isMapped(slices[1], length))
        for index in [0, 2] {
            #expect(isMapped(slices[index], length))
            #expect(UnsafeRawBufferPointer(start: slices[index], count: length).allSatisfy { $0 == UInt8(index + 1) })
        }
        PageMapping.unmap(slices[0], length: length)
        PageMapping.unmap(slices[2], length: length)
    }

    @Test("a slice the region has no room for starts a new one, and the old region's tail goes back")
    func newRegion() throws {
        let carver = HugePageCarver(regionSize: region)
        let length = 768 << 10
        let first = try #require(carver.slice(length))
        let second = try #require(carver.slice(length))
        #expect(second == first + length)
        let tail = second + length
        #expect(isMapped(tail, region - 2 * length))
        let third = try #require(carver.slice(length))
        #expect(third != tail)
        #expect(!isMapped(tail, region - 2 * length))
        #expect(Int(bitPattern: third) % region == 0 && Int(bitPattern: first) % region == 0)
        for slice in [first, second, third] { PageMapping.unmap(slice, length: length) }
    }

    @Test("with a taker for leftovers, the old region's tail goes to it, provided and untouched, not back")
    func leftoversTaken() throws {
        let taken = Locked<[(address: UInt, length: Int)]>([])
        let carver = HugePageCarver(regionSize: region) { pointer, length in
            taken.withLock { $0.append((UInt(bitPattern: pointer), length)) }
        }
        let length = 768 << 10
        let first = try #require(carver.slice(length))
        let second = try #require(carver.slice(length))
        let third = try #require(carver.slice(length))
        let tail = second + length
        let leftovers = taken.withLock { $0 }
        #expect(leftovers.count == 1)
        #expect(leftovers.first?.address == UInt(bitPattern: tail) && leftovers.first?.length == region - 2 * length)
        #expect(isResident(tail, region - 2 * length))
        #expect(UnsafeRawBufferPointer(start: tail, count: region - 2 * length).allSatisfy { $0 == 0 })
        for slice in [first, second, third] { PageMapping.unmap(slice, length: length) }
        PageMapping.unmap(tail, length: region - 2 * length)
        // A tail under the pool's smallest piece is unmapped all the same.
        let small = HugePageCarver(regionSize: region) { _, _ in Issue.record("a tail under 64 KiB was handed on") }
        let shortTail = BitmapMappingPool.smallestPiece - page
        let a = try #require(small.slice(region / 2))
        let b = try #require(small.slice(region / 2 - shortTail))
        let c = try #require(small.slice(region / 2))
        PageMapping.unmap(a, length: region / 2)
        PageMapping.unmap(b, length: region / 2 - shortTail)
        PageMapping.unmap(c, length: region / 2)
    }

    @Test("sizes it does not cut: none, more than half a region, not whole pages")
    func refusals() {
        let carver = HugePageCarver(regionSize: region)
        #expect(carver.slice(0) == nil)
        #expect(carver.slice(region / 2 + page) == nil)
        #expect(carver.slice(page + 1) == nil)
        let largest = carver.slice(region / 2)
        #expect(largest != nil)
        if let largest { PageMapping.unmap(largest, length: region / 2) }
    }

    @Test("slices cut from several threads at once never overlap")
    func concurrentSlices() async throws {
        let carver = HugePageCarver(regionSize: region)
        let length = 96 << 10
        let addresses = await withTaskGroup(of: [UInt].self) { group in
            for _ in 0..<8 {
                group.addTask {
                    (0..<40).compactMap { _ in carver.slice(length).map { UInt(bitPattern: $0) } }
                }
            }
            return await group.reduce(into: [UInt]()) { $0 += $1 }
        }
        #expect(addresses.count == 320)
        let sorted = addresses.sorted()
        #expect(zip(sorted, sorted.dropFirst()).allSatisfy { $1 - $0 >= UInt(length) })
        for address in sorted {
            let slice = try #require(UnsafeMutableRawPointer(bitPattern: address))
            #expect(UnsafeRawBufferPointer(start: slice, count: length).allSatisfy { $0 == 0 })
            PageMapping.unmap(slice, length: length)
        }
    }
}
#endif
