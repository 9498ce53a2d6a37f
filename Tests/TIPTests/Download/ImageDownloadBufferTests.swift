import Foundation
import Testing

@testable import TIP

@Suite("Download body")
struct ImageDownloadBodyTests {
    /// `count` pseudo-random bytes.
    private func bytes(_ count: Int, seed: UInt64) -> Data {
        var random = SplitMix64(seed: seed)
        return Data((0..<count).map { _ in UInt8(truncatingIfNeeded: random.next()) })
    }

    @Test("a small body stays on the heap and is handed over byte for byte")
    func smallBody() {
        let body = ImageDownloadBuffer()
        let data = bytes(20_000, seed: 1)
        #expect(body.append(data.prefix(7_000)))
        #expect(body.append(data.suffix(from: 7_000)))
        #expect(body.count == data.count && !body.isMapped)
        let taken = body.take()
        #expect(taken == data)
        #expect(body.isEmpty && body.count == 0)
    }

    @Test("growing past the threshold in random chunks moves the bytes into a mapping, unchanged")
    func growsIntoMapping() {
        let body = ImageDownloadBuffer()
        let data = bytes(3 * ImageDownloadBuffer.mappingThreshold + 123, seed: 2)
        var random = SplitMix64(seed: 3)
        var offset = 0
        while offset < data.count {
            let end = min(data.count, offset + 1 + Int(random.next() % 40_000))
            #expect(body.append(data.subdata(in: offset..<end)))
            offset = end
            if offset >= ImageDownloadBuffer.mappingThreshold { #expect(body.isMapped) }
        }
        #expect(body.isMapped)
        #expect(body.withUnsafeBytes { Data($0) } == data)
        #expect(body.take() == data)
    }

    @Test("reserving the announced length maps at once; the handed-over data outlives the body")
    func reservedMapping() {
        let data = bytes(ImageDownloadBuffer.mappingThreshold * 2, seed: 4)
        var taken = Data()
        do {
            let body = ImageDownloadBuffer()
            #expect(body.reserve(data.count))
            #expect(body.isMapped && body.isEmpty)
            #expect(body.append(data))
            taken = body.take()
        }
        // The body is gone; the data owns the mapping. Copies and mutations stay independent.
        var changed = taken
        changed[0] &+= 1
        changed.append(contentsOf: [1, 2, 3])
        #expect(taken == data)
        #expect(changed.count == data.count + 3 && changed[0] == data[0] &+ 1)
    }

    #if os(Linux)
    @Test("a mapped body's pages are provided a window at a time as bytes arrive, never up to an announced length")
    func pagesProvidedAhead() throws {
        let page = Int(sysconf(Int32(_SC_PAGESIZE)))
        let window = ImageDownloadBuffer.provisionWindow
        // MADV_POPULATE_WRITE came with Linux 5.14; without it pages arrive on first write and there is nothing
        // to observe.
        let probe = try #require(PageMapping.map(page))
        defer { PageMapping.unmap(probe.pointer, length: probe.length) }
        guard madvise(probe.pointer, page, 23) == 0 else { return }
        let body = ImageDownloadBuffer()
        // Far: past 4 MiB, beyond the two huge pages a system with transparent huge pages always on may give
        // the first windows.
        let announced = 64 * window, far = 16 * window
        #expect(body.reserve(announced))
        /// Which pages of the body's first `announced` bytes are resident.
        func resident() -> [Bool] {
            body.withUnsafeBytes { buffer -> [Bool] in
                var vector = [UInt8](repeating: 0, count: announced / page)
                let base = UnsafeMutableRawPointer(mutating: buffer.baseAddress!)
                #expect(mincore(base, announced, &vector) == 0)
                return vector.map { $0 & 1 != 0 }
            }
        }
        #expect(body.append(bytes(1_000, seed: 5)))
        var pages = resident()
        #expect(pages.prefix(window / page).allSatisfy { $0 }, "the first window, at once")
        #expect(!pages.suffix(from: far / page).contains(true), "nothing far past the bytes held")
        #expect(body.append(bytes(window, seed: 6)))
        pages = resident()
        #expect(pages.prefix(2 * window / page).allSatisfy { $0 }, "the next window once bytes reach it")
        #expect(!pages.suffix(from: far / page).contains(true), "still nothing far ahead")
    }
    #endif

    #if os(Linux)
    @Test("a body taken before its announced length arrived gives back the pages past its bytes")
    func takenPartialGivesBackItsTail() throws {
        let page = PageMapping.pageSize
        let body = ImageDownloadBuffer()
        #expect(body.reserve(16 * ImageDownloadBuffer.provisionWindow))
        #expect(body.append(bytes(10_000, seed: 7)))
        let data = body.take()
        #expect(data == bytes(10_000, seed: 7))
        let held = (10_000 + page - 1) / page * page
        data.withUnsafeBytes { buffer in
            let base = UnsafeMutableRawPointer(mutating: buffer.baseAddress!)
            var vector = [UInt8](repeating: 0, count: held / page)
            #expect(mincore(base, held, &vector) == 0, "the pages of the bytes stay")
            // The next page is no longer mapped: mincore refuses an unmapped range with ENOMEM. (A new mapping of
            // another thread would be placed at the top of the freed range, not at its start.)
            #expect(mincore(base + held, page, &vector) == -1 && errno == ENOMEM, "the tail went back")
        }
    }
    #endif

    @Test("a copy does not see later bytes; clearing empties the body for reuse")
    func copyAndClear() {
        let body = ImageDownloadBuffer()
        let first = bytes(ImageDownloadBuffer.mappingThreshold + 10, seed: 5)
        #expect(body.append(first))
        let copy = body.copy()
        #expect(body.append(Data([9, 9, 9])))
        #expect(copy == first)
        body.clear()
        #expect(body.isEmpty && !body.isMapped && body.take().isEmpty)
        #expect(body.append(Data([1, 2])))
        #expect(body.take() == Data([1, 2]))
    }

    @Test("the completeness check reads the body in place")
    func completenessInPlace() throws {
        let body = ImageDownloadBuffer()
        let jpeg = try DownloaderTestEnvironment.jpeg(width: 64, height: 48, progressive: false, seed: 7)
        #expect(body.append(jpeg.prefix(jpeg.count - 2)))
        #expect(!body.withUnsafeBytes { ImageDownloadHeaderReader.looksComplete($0, type: .jpeg) })
        #expect(body.append(jpeg.suffix(2)))
        #expect(body.withUnsafeBytes { ImageDownloadHeaderReader.looksComplete($0, type: .jpeg) })
    }
}
