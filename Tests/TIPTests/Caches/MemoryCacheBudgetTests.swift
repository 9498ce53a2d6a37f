import Foundation
import Testing

@testable import TIP

@Suite("Memory cache budget")
struct MemoryCacheBudgetTests {
    let configuration = makeCacheTestConfiguration()
    var domain: LockedCacheDomain { configuration.memoryDomain }

    func makeCache() -> MemoryCache { MemoryCache(domain: domain, configuration: configuration) }
    func fill(_ cache: MemoryCache, _ prefix: String, _ range: ClosedRange<Int>, bytes: Int = 100) {
        for i in range { cache.put("\(prefix)\(i)", MemoryTestValue.complete(10, 10, bytes: bytes)) }
    }

    @Test("Two pipelines share the byte budget: filling B empties A's tail first, B is evicted last")
    func sharedBytes() {
        domain.setLimits(maxBytes: 1000, maxCount: 0, ratio: 0)
        let a = makeCache(), b = makeCache()
        fill(a, "a", 1...6)
        fill(b, "b", 1...6)
        #expect(a.identifiersNewestFirst == ["a6", "a5", "a4", "a3"])
        fill(b, "b", 7...14)
        #expect(a.count == 0)
        #expect(b.identifiersNewestFirst == (5...14).reversed().map { "b\($0)" })
        #expect(domain.totals == (1000, 10))
    }

    @Test("Each pruning round takes one entry from every other cache")
    func roundRobin() {
        domain.setLimits(maxBytes: 1 << 30, maxCount: 6, ratio: 0)
        let a = makeCache(), b = makeCache(), c = makeCache()
        fill(a, "a", 1...3)
        fill(b, "b", 1...3)
        fill(c, "c", 1...1)
        #expect(a.identifiersNewestFirst == ["a3", "a2"])
        #expect(b.identifiersNewestFirst == ["b3", "b2"])
        #expect(c.count == 1 && domain.totals.count == 5)
    }

    @Test("Growing an entry prunes others first, then this cache's oldest")
    func growthPrunes() {
        domain.setLimits(maxBytes: 500, maxCount: 0, ratio: 0)
        let a = makeCache(), b = makeCache()
        fill(a, "a", 1...2)
        fill(b, "b", 1...3)
        #expect(b.put("b3", partial: MemoryTestValue.partial(20, 20, bytes: 100)))
        #expect(a.identifiersNewestFirst == ["a2"])
        #expect(b.identifiersNewestFirst == ["b3", "b2", "b1"])
        #expect(b.put("b1", partial: MemoryTestValue.partial(30, 30, bytes: 200)))
        #expect(a.count == 0)
        // The update refreshed b1, so b2 is this cache's oldest.
        #expect(b.identifiersNewestFirst == ["b1", "b3"])
        #expect(domain.totals == (500, 2))
    }

    @Test("0 bytes disables the kind; a count of 0 is unlimited")
    func zeroLimits() {
        domain.setLimits(maxBytes: 1 << 30, maxCount: 0, ratio: 0)
        let a = makeCache()
        fill(a, "a", 0...299, bytes: 1)
        #expect(a.count == 300 && domain.totals == (300, 300))
        configuration.maxBytesForAllMemoryCaches = 0
        #expect(a.count == 0 && domain.totals == (0, 0))
        #expect(!a.put("x", MemoryTestValue.complete(1, 1, bytes: 1)))
    }

    @Test("Lowering limits prunes every cache")
    func limitChangePrunes() {
        domain.setLimits(maxBytes: 1 << 30, maxCount: 0, ratio: 0)
        let a = makeCache(), b = makeCache()
        fill(a, "a", 1...5)
        fill(b, "b", 1...5)
        domain.setLimits(maxBytes: 600)
        #expect(a.identifiersNewestFirst == ["a5", "a4", "a3"])
        #expect(b.identifiersNewestFirst == ["b5", "b4", "b3"])
        configuration.maxCountForAllMemoryCaches = 2
        #expect(a.identifiersNewestFirst == ["a5"] && b.identifiersNewestFirst == ["b5"])
        #expect(domain.totals == (200, 2))
    }

    @Test("Tear-down subtracts exactly this cache's bytes and count; later calls do nothing")
    func tearDown() {
        domain.setLimits(maxBytes: 1 << 30, maxCount: 0, ratio: 0)
        let a = makeCache(), b = makeCache()
        fill(a, "a", 1...3)
        a.put("a1", MemoryTestValue.complete(20, 20, bytes: 250), partial: MemoryTestValue.partial(30, 30, bytes: 40))
        fill(b, "b", 1...2, bytes: 70)
        a.tearDown()
        #expect(domain.totals == (140, 2))
        #expect(!a.put("late", MemoryTestValue.complete(1, 1)))
        a.tearDown()
        #expect(a.count == 0 && domain.totals == (140, 2))
        b.tearDown()
        #expect(domain.totals == (0, 0))
    }
}
