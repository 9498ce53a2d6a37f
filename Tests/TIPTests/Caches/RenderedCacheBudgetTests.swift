import Foundation
import Testing

@testable import TIP

@Suite("Rendered cache budget")
struct RenderedCacheBudgetTests {
    let configuration = makeCacheTestConfiguration()
    var domain: LockedCacheDomain { configuration.renderedDomain }
    /// Every test image here is 16 x 16 gray: 1 KiB.
    static let unit = RenderedTestImage.bytes(16, 16)

    func makeCache() -> RenderedCache { RenderedCache(domain: domain, configuration: configuration) }
    func fill(_ cache: RenderedCache, _ prefix: String, _ range: ClosedRange<Int>) {
        for i in range { cache.store(RenderedTestImage.make(16, 16), "\(prefix)\(i)") }
    }

    @Test("Two pipelines share the byte budget: filling B empties A's tail first, B is evicted last")
    func sharedBytes() {
        domain.setLimits(maxBytes: 10 * Self.unit, maxCount: 0, ratio: 0)
        let a = makeCache(), b = makeCache()
        fill(a, "a", 1...6)
        fill(b, "b", 1...6)
        #expect(a.identifiersNewestFirst == ["a6", "a5", "a4", "a3"])
        #expect(b.count == 6)
        #expect(domain.totals == (10 * Self.unit, 10))
        fill(b, "b", 7...14)
        #expect(a.count == 0)
        #expect(b.identifiersNewestFirst == (5...14).reversed().map { "b\($0)" })
        #expect(domain.totals == (10 * Self.unit, 10))
        #expect(a.totalBytes + b.totalBytes == domain.totals.bytes)
    }

    @Test("The count budget is shared too; each pruning round takes one entry from every other cache")
    func roundRobin() {
        domain.setLimits(maxBytes: 1 << 30, maxCount: 6, ratio: 0)
        let a = makeCache(), b = makeCache(), c = makeCache()
        fill(a, "a", 1...3)
        fill(b, "b", 1...3)
        c.store(RenderedTestImage.make(16, 16), "c1")
        // Over by one, yet the round takes the tail of both A and B (as TIP).
        #expect(a.identifiersNewestFirst == ["a3", "a2"])
        #expect(b.identifiersNewestFirst == ["b3", "b2"])
        #expect(c.identifiersNewestFirst == ["c1"])
        #expect(domain.totals.count == 5)
    }

    @Test("A cache alone over budget evicts its own least recently used identifiers")
    func selfEviction() {
        domain.setLimits(maxBytes: 1 << 30, maxCount: 3, ratio: 0)
        let a = makeCache()
        fill(a, "a", 1...3)
        _ = a.exact("a1", CGSize(width: 16, height: 16))
        a.store(RenderedTestImage.make(16, 16), "a4")
        #expect(a.identifiersNewestFirst == ["a4", "a1", "a3"])
    }

    @Test("0 bytes disables the kind: existing images go, new ones are refused")
    func zeroBytes() {
        domain.setLimits(maxBytes: 100 * Self.unit, maxCount: 0, ratio: 0)
        let a = makeCache(), b = makeCache()
        fill(a, "a", 1...3)
        fill(b, "b", 1...3)
        domain.setLimits(maxBytes: 0)
        #expect(a.count == 0 && b.count == 0 && domain.totals == (0, 0))
        a.store(RenderedTestImage.make(1, 1), "x")
        #expect(a.count == 0 && domain.totals == (0, 0))
        // The public setter gets the same result.
        domain.setLimits(maxBytes: 100 * Self.unit)
        fill(a, "a", 1...2)
        configuration.maxBytesForAllRenderedCaches = 0
        #expect(a.count == 0 && domain.totals == (0, 0))
    }

    @Test("A count budget of 0 is unlimited")
    func unlimitedCount() {
        domain.setLimits(maxBytes: 1 << 30, maxCount: 0, ratio: 0)
        let a = makeCache()
        for i in 0..<300 { a.store(RenderedTestImage.make(1, 1), "a\(i)") }
        #expect(a.count == 300 && domain.totals.count == 300)
    }

    @Test("Lowering limits prunes every cache, one tail per cache per round")
    func limitChangePrunes() {
        domain.setLimits(maxBytes: 100 * Self.unit, maxCount: 0, ratio: 0)
        let a = makeCache(), b = makeCache()
        fill(a, "a", 1...5)
        fill(b, "b", 1...5)
        domain.setLimits(maxBytes: 6 * Self.unit)
        #expect(a.identifiersNewestFirst == ["a5", "a4", "a3"])
        #expect(b.identifiersNewestFirst == ["b5", "b4", "b3"])
        configuration.maxCountForAllRenderedCaches = 4
        #expect(a.identifiersNewestFirst == ["a5", "a4"])
        #expect(b.identifiersNewestFirst == ["b5", "b4"])
        #expect(domain.totals == (4 * Self.unit, 4))
        #expect(a.totalBytes + b.totalBytes == domain.totals.bytes)
    }

    @Test(
        "Per-entry cap: maxBytes / ratio; ratio 0 or 1 removes it; negative means 6",
        arguments: [(6, 6), (3, 3), (0, nil), (1, nil), (-1, 6)] as [(Int, Int?)])
    func entryCap(ratio: Int, effective: Int?) {
        domain.setLimits(maxBytes: 12 * Self.unit, maxCount: 0, ratio: ratio)
        let a = makeCache()
        // 16 x h gray images take h * 64 bytes; the cap is 12 KiB / ratio.
        let capRows = effective.map { Int(12 * Self.unit) / $0 / 64 } ?? 8 * 16
        a.store(RenderedTestImage.make(16, capRows), "fits")
        #expect(a.identifiersNewestFirst == ["fits"])
        a.store(RenderedTestImage.make(16, capRows + 1), "over")
        // Without a cap, the larger image is stored (and the first one pruned to make room).
        #expect(a.identifiersNewestFirst == (effective == nil ? ["over"] : ["fits"]))
        #expect(a.totalBytes == a.inspectedBytes)
    }

    @Test("Replacing images of an identifier adjusts the totals by the difference")
    func replacementAccounting() {
        domain.setLimits(maxBytes: 1 << 30, maxCount: 0, ratio: 0)
        let a = makeCache()
        a.store(RenderedTestImage.make(16, 16), "x", source: CGSize(width: 16, height: 16))
        a.store(RenderedTestImage.make(16, 16), "x", source: CGSize(width: 32, height: 32))
        #expect(domain.totals == (Self.unit, 1))
        for h in [8, 24, 40, 56] { a.store(RenderedTestImage.make(16, h), "x") }
        #expect(
            domain.totals == (
                RenderedTestImage.bytes(16, 24) + RenderedTestImage.bytes(16, 40) + RenderedTestImage.bytes(16, 56), 1
            ))
        #expect(a.totalBytes == a.inspectedBytes)
    }

    @Test("Tear-down subtracts exactly this cache's bytes and count; later calls do nothing")
    func tearDown() {
        domain.setLimits(maxBytes: 1 << 30, maxCount: 0, ratio: 0)
        let a = makeCache(), b = makeCache()
        fill(a, "a", 1...4)
        a.store(RenderedTestImage.make(16, 32), "a1")
        fill(b, "b", 1...3)
        let bBytes = b.totalBytes
        a.tearDown()
        #expect(domain.totals == (bBytes, 3))
        a.store(RenderedTestImage.make(16, 16), "late")
        a.tearDown()
        a.clearAll()
        #expect(a.count == 0 && domain.totals == (bBytes, 3))
        #expect(a.exact("a2", CGSize(width: 16, height: 16)) == nil)
        // A torn-down cache is no longer pruned; the live one still is.
        domain.setLimits(maxCount: 2)
        #expect(b.identifiersNewestFirst == ["b3", "b2"])
        b.tearDown()
        #expect(domain.totals == (0, 0))
    }
}
