import Foundation
import Testing

@testable import TIP

@Suite("Memory cache rules")
struct MemoryCacheRuleTests {
    let clock = TestClock()
    let configuration: GlobalConfiguration
    let cache: MemoryCache
    var domain: LockedCacheDomain { configuration.memoryDomain }

    init() {
        configuration = makeCacheTestConfiguration(clock: clock)
        configuration.memoryDomain.setLimits(maxBytes: 1 << 30, maxCount: 0, ratio: 0)
        cache = MemoryCache(domain: configuration.memoryDomain, configuration: configuration)
    }

    enum NewSize: CaseIterable { case smaller, equalSameDimensions, equalAreaOtherDimensions, larger }

    struct ReplacementCase: CustomTestStringConvertible, Sendable {
        let existingIsPlaceholder: Bool
        let newIsPlaceholder: Bool
        let size: NewSize
        let sameURL: Bool
        var testDescription: String {
            """
            existing \(existingIsPlaceholder ? "placeholder" : "real"), new \
            \(newIsPlaceholder ? "placeholder" : "real") \(size), \(sameURL ? "same" : "other") URL
            """
        }

        /// TIP's rule, written out independently of the implementation.
        var replaces: Bool {
            if existingIsPlaceholder && !newIsPlaceholder { return true }
            if !existingIsPlaceholder && newIsPlaceholder { return false }
            switch size {
            case .smaller: return false
            case .equalSameDimensions: return !sameURL
            case .equalAreaOtherDimensions, .larger: return true
            }
        }
    }

    static let replacementCases: [ReplacementCase] = [false, true].flatMap { existing in
        [false, true].flatMap { new in
            NewSize.allCases.flatMap { size in
                [false, true].map {
                    ReplacementCase(existingIsPlaceholder: existing, newIsPlaceholder: new, size: size, sameURL: $0)
                }
            }
        }
    }

    @Test(
        """
        Complete variants: real beats placeholder, placeholder never beats real, else larger-or-equal area wins \
        unless dimensions and URL are identical
        """,
        arguments: replacementCases)
    func completeReplacement(row: ReplacementCase) throws {
        cache.put(
            "id",
            MemoryTestValue.complete(10, 10, url: "old", bytes: 100, fill: 1, placeholder: row.existingIsPlaceholder))
        let dims: (Int, Int) =
            switch row.size {
            case .smaller: (5, 5)
            case .equalSameDimensions: (10, 10)
            case .equalAreaOtherDimensions: (20, 5)
            case .larger: (20, 20)
            }
        let changed = cache.put(
            "id",
            MemoryTestValue.complete(
                dims.0, dims.1, url: row.sameURL ? "old" : "new", bytes: 150,
                fill: 2, placeholder: row.newIsPlaceholder))
        #expect(changed == row.replaces)
        let stored = try #require(cache.peek("id")?.complete)
        #expect(stored.data.first == (row.replaces ? 2 : 1))
        #expect(stored.isPlaceholder == (row.replaces ? row.newIsPlaceholder : row.existingIsPlaceholder))
        #expect(domain.totals == (row.replaces ? 150 : 100, 1))
        #expect(cache.totalBytes == cache.inspectedBytes)
    }

    @Test(
        "After a complete replacement, a partial not larger in area is dropped",
        arguments: [(5, 5, false), (10, 10, false), (20, 5, false), (11, 10, true), (30, 30, true)])
    func partialDroppedByComplete(width: Int, height: Int, partialSurvives: Bool) throws {
        cache.put("id", partial: MemoryTestValue.partial(width, height, bytes: 40))
        #expect(cache.peek("id")?.partial != nil)
        #expect(cache.put("id", MemoryTestValue.complete(10, 10, bytes: 100)))
        let entry = try #require(cache.peek("id"))
        #expect((entry.partial != nil) == partialSurvives)
        #expect(domain.totals == (partialSurvives ? 140 : 100, 1))
    }

    @Test("A real variant displacing a placeholder drops the partial even when the partial is larger")
    func displacingPlaceholderDropsPartial() throws {
        cache.put("id", MemoryTestValue.complete(4, 4, bytes: 10, placeholder: true))
        #expect(cache.put("id", partial: MemoryTestValue.partial(50, 50, bytes: 40)))
        #expect(cache.peek("id")?.partial != nil)
        #expect(cache.put("id", MemoryTestValue.complete(8, 8, bytes: 20)))
        let entry = try #require(cache.peek("id"))
        #expect(entry.partial == nil && entry.complete?.isPlaceholder == false)
        #expect(domain.totals == (20, 1))
    }

    @Test("A placeholder cannot join an entry that holds only a real partial (as TIP)")
    func placeholderAgainstPartialOnly() throws {
        cache.put("id", partial: MemoryTestValue.partial(10, 10))
        #expect(!cache.put("id", MemoryTestValue.complete(20, 20, placeholder: true)))
        #expect(cache.peek("id")?.complete == nil)
        #expect(cache.put("id", MemoryTestValue.complete(20, 20)))
        #expect(cache.peek("id")?.partial == nil)
    }

    @Test(
        "Partials: larger-or-equal area wins; smaller loses",
        arguments: [(5, 5, false), (10, 10, true), (20, 5, true), (20, 20, true)])
    func partialReplacement(width: Int, height: Int, replaces: Bool) throws {
        cache.put("id", partial: MemoryTestValue.partial(10, 10, bytes: 40, fill: 1))
        #expect(cache.put("id", partial: MemoryTestValue.partial(width, height, bytes: 60, fill: 2)) == replaces)
        let partial = try #require(cache.peek("id")?.partial)
        #expect(partial.data.first == (replaces ? 2 : 1))
        #expect(domain.totals == (replaces ? 60 : 40, 1))
    }

    @Test("Partials are never placeholders")
    func placeholderPartials() {
        #expect(!cache.put("new", partial: MemoryTestValue.partial(10, 10, placeholder: true)))
        #expect(cache.peek("new") == nil)
        cache.put("id", partial: MemoryTestValue.partial(10, 10))
        #expect(!cache.put("id", partial: MemoryTestValue.partial(30, 30, placeholder: true)))
        #expect(!cache.put("forced", partial: MemoryTestValue.partial(10, 10, placeholder: true), force: true))
        #expect(cache.peek("forced") == nil)
        #expect(domain.totals == (40, 1))
    }

    @Test(
        "A partial is kept only when strictly larger in area than the complete variant beside it",
        arguments: [(5, 5, false), (10, 10, false), (10, 11, true)])
    func partialAgainstComplete(width: Int, height: Int, kept: Bool) throws {
        // Arriving later…
        cache.put("later", MemoryTestValue.complete(10, 10))
        #expect(cache.put("later", partial: MemoryTestValue.partial(width, height)) == kept)
        #expect((cache.peek("later")?.partial != nil) == kept)
        // …or together with the complete variant.
        cache.put("together", MemoryTestValue.complete(10, 10), partial: MemoryTestValue.partial(width, height))
        #expect((cache.peek("together")?.partial != nil) == kept)
        #expect(cache.totalBytes == cache.inspectedBytes)
    }

    @Test("Nothing without bytes is cached")
    func noBytes() {
        #expect(!cache.put("a", MemoryTestValue.complete(10, 10, bytes: 0)))
        #expect(!cache.put("b"))
        #expect(!cache.put("c", partial: MemoryTestValue.partial(10, 10, bytes: 0)))
        #expect(!cache.put("", MemoryTestValue.complete(10, 10)))
        #expect(cache.count == 0 && domain.totals == (0, 0))
        cache.put("a", MemoryTestValue.complete(10, 10))
        #expect(!cache.put("a", MemoryTestValue.complete(90, 90, bytes: 0)))
        #expect(cache.peek("a")?.complete?.dimensions == CGSize(width: 10, height: 10))
    }

    @Test("Forced replacement skips the comparisons; forced with no bytes removes the entry")
    func forced() throws {
        cache.put(
            "id", MemoryTestValue.complete(20, 20, url: "big", bytes: 100), partial: MemoryTestValue.partial(40, 40))
        #expect(
            cache.put("id", MemoryTestValue.complete(5, 5, url: "small", bytes: 30, placeholder: true), force: true))
        let entry = try #require(cache.peek("id"))
        #expect(entry.complete?.url == MemoryTestValue.url("small") && entry.complete?.isPlaceholder == true)
        #expect(entry.partial == nil)
        #expect(domain.totals == (30, 1))
        // Identical dimensions and URL: kept unforced, replaced forced.
        #expect(!cache.put("id", MemoryTestValue.complete(5, 5, url: "small", bytes: 31, placeholder: true)))
        #expect(
            cache.put("id", MemoryTestValue.complete(5, 5, url: "small", bytes: 31, placeholder: true), force: true))
        #expect(domain.totals == (31, 1))
        #expect(cache.put("id", force: true))
        #expect(cache.peek("id") == nil && domain.totals == (0, 0))
    }

    @Test("Over the per-entry cap, a new entry sheds its partial, then its complete variant")
    func capOnNewEntries() throws {
        domain.setLimits(maxBytes: 600, ratio: 6)  // cap: 100 bytes
        cache.put(
            "shedsPartial", MemoryTestValue.complete(10, 10, bytes: 80),
            partial: MemoryTestValue.partial(20, 20, bytes: 40))
        let entry = try #require(cache.peek("shedsPartial"))
        #expect(entry.complete != nil && entry.partial == nil)
        #expect(
            !cache.put(
                "shedsAll", MemoryTestValue.complete(10, 10, bytes: 120),
                partial: MemoryTestValue.partial(20, 20, bytes: 10)))
        #expect(cache.peek("shedsAll") == nil)
        #expect(cache.put("partialOnly", partial: MemoryTestValue.partial(20, 20, bytes: 100)))
        #expect(!cache.put("partialTooBig", partial: MemoryTestValue.partial(20, 20, bytes: 101)))
        #expect(domain.totals == (180, 2))
    }

    @Test("Updates stay within the per-entry cap")
    func capOnUpdates() throws {
        domain.setLimits(maxBytes: 600, ratio: 6)  // cap: 100 bytes
        cache.put(
            "id", MemoryTestValue.complete(10, 10, bytes: 50), partial: MemoryTestValue.partial(30, 30, bytes: 40))
        // A larger variant that fits only without the (still larger) partial: the partial goes.
        #expect(cache.put("id", MemoryTestValue.complete(20, 20, bytes: 70)))
        var entry = try #require(cache.peek("id"))
        #expect(entry.complete?.byteCount == 70 && entry.partial == nil)
        // A variant over the cap is refused outright.
        #expect(!cache.put("id", MemoryTestValue.complete(40, 40, bytes: 101)))
        // A partial that would take the entry over the cap is refused.
        #expect(!cache.put("id", partial: MemoryTestValue.partial(50, 50, bytes: 31)))
        #expect(cache.put("id", partial: MemoryTestValue.partial(50, 50, bytes: 30)))
        entry = try #require(cache.peek("id"))
        #expect(entry.byteCount == 100 && domain.totals == (100, 1))
        // Budget 0: nothing at all.
        domain.setLimits(maxBytes: 0)
        #expect(!cache.put("other", MemoryTestValue.complete(1, 1, bytes: 1)))
        #expect(domain.totals == (0, 0))
    }

    @Test("Reads return a copy and slide the last access; doNotResetExpiryOnAccess reads slide nothing")
    func readsSlideLastAccess() throws {
        cache.put("sliding", MemoryTestValue.complete(10, 10))
        cache.put("fixed", MemoryTestValue.complete(10, 10, updateExpiryOnAccess: false))
        let start = clock.date
        #expect(cache.peek("sliding")?.complete?.lastAccess == start)
        clock.advance(60)
        var copy = try #require(cache.entry(withIdentifier: "sliding"))
        #expect(copy.complete?.lastAccess == start + 60)
        copy.complete?.data = Data()
        #expect(cache.peek("sliding")?.complete?.data.count == 100)
        #expect(cache.entry(withIdentifier: "fixed")?.complete?.lastAccess == start)
        clock.advance(60)
        #expect(cache.peek("sliding")?.complete?.lastAccess == start + 60)
        cache.touchImage(withIdentifier: "sliding")
        #expect(cache.peek("sliding")?.complete?.lastAccess == start + 120)
    }

    @Test("Deferred touches (the synchronous rendered hit's) are applied soon, in order, as a batch")
    func deferredTouches() async {
        cache.put("a", MemoryTestValue.complete(10, 10))
        cache.put("b", MemoryTestValue.complete(10, 10))
        cache.put("c", MemoryTestValue.complete(10, 10))
        let start = clock.date
        clock.advance(30)
        cache.touchImageLater(withIdentifier: "a")
        cache.touchImageLater(withIdentifier: "b")
        let cache = self.cache
        #expect(await eventually { cache.identifiersNewestFirst == ["b", "a", "c"] })
        #expect(cache.peek("a")?.complete?.lastAccess == start + 30)
        #expect(cache.peek("c")?.complete?.lastAccess == start)
    }

    @Test("A batch of touches refreshes each identifier once, in the place of its last mention")
    func batchedTouchesKeepLastMentionOrder() {
        cache.put("a", MemoryTestValue.complete(10, 10))
        cache.put("b", MemoryTestValue.complete(10, 10))
        cache.put("c", MemoryTestValue.complete(10, 10))
        cache.put("d", MemoryTestValue.complete(10, 10))
        let start = clock.date
        clock.advance(30)
        cache.touchImages(withIdentifiers: ["a", "b", "a", "c", "b", "gone"])
        // One by one: a, b, a, c, b leaves b newest, then c, then a; d untouched.
        #expect(cache.identifiersNewestFirst == ["b", "c", "a", "d"])
        #expect(cache.peek("a")?.complete?.lastAccess == start + 30)
        #expect(cache.peek("d")?.complete?.lastAccess == start)
        cache.touchImages(withIdentifiers: ["d"])
        #expect(cache.identifiersNewestFirst == ["d", "b", "c", "a"])
    }

    @Test("Reads refresh recency unless no part updates its expiry on access; peeks never do")
    func readsRefreshRecency() {
        domain.setLimits(maxCount: 3)
        cache.put("fixed", MemoryTestValue.complete(10, 10, updateExpiryOnAccess: false))
        cache.put("sliding", MemoryTestValue.complete(10, 10))
        cache.put("peeked", MemoryTestValue.complete(10, 10))
        #expect(cache.identifiersNewestFirst == ["peeked", "sliding", "fixed"])
        _ = cache.entry(withIdentifier: "fixed")
        _ = cache.peek("sliding")
        #expect(cache.identifiersNewestFirst == ["peeked", "sliding", "fixed"])
        _ = cache.entry(withIdentifier: "sliding")
        #expect(cache.identifiersNewestFirst == ["sliding", "peeked", "fixed"])
        cache.touchImage(withIdentifier: "peeked")
        #expect(cache.identifiersNewestFirst == ["peeked", "sliding", "fixed"])
        cache.put("new", MemoryTestValue.complete(10, 10))
        #expect(cache.identifiersNewestFirst == ["new", "peeked", "sliding"])
    }

    @Test("Time to live is lazy: parts expire on read once now - lastAccess > TTL")
    func timeToLive() throws {
        cache.put("sliding", MemoryTestValue.complete(10, 10, ttl: 10))
        cache.put("fixed", MemoryTestValue.complete(10, 10, ttl: 10, updateExpiryOnAccess: false))
        clock.advance(6)
        #expect(cache.entry(withIdentifier: "sliding") != nil)
        #expect(cache.entry(withIdentifier: "fixed") != nil)
        clock.advance(4)  // fixed: exactly 10 s since its last access, not expired
        #expect(cache.entry(withIdentifier: "fixed") != nil)
        clock.advance(1)
        #expect(cache.entry(withIdentifier: "fixed") == nil)
        #expect(cache.entry(withIdentifier: "sliding") != nil)  // 5 s since the slide
        #expect(domain.totals == (100, 1))
        clock.advance(10.5)
        #expect(cache.peek("sliding") == nil)
        #expect(domain.totals == (0, 0))
    }

    @Test("Complete and partial parts expire independently")
    func partsExpireIndependently() throws {
        cache.put(
            "id", MemoryTestValue.complete(10, 10, bytes: 100, ttl: 100),
            partial: MemoryTestValue.partial(20, 20, bytes: 40, ttl: 5))
        clock.advance(6)
        let entry = try #require(cache.entry(withIdentifier: "id"))
        #expect(entry.complete != nil && entry.partial == nil)
        #expect(domain.totals == (100, 1) && cache.totalBytes == 100)
        // An expired part no longer blocks a smaller variant.
        cache.put("x", MemoryTestValue.complete(50, 50, ttl: 5))
        clock.advance(6)
        #expect(cache.put("x", MemoryTestValue.complete(10, 10, url: "small", bytes: 30)))
        #expect(cache.peek("x")?.complete?.url == MemoryTestValue.url("small"))
        #expect(cache.totalBytes == cache.inspectedBytes)
    }

    @Test("Inspection lists complete and partial entries; progress is bytes / expected, at most 0.999")
    func inspection() throws {
        cache.put("c", MemoryTestValue.complete(10, 10, bytes: 100))
        cache.put("half", partial: MemoryTestValue.partial(10, 10, bytes: 50, expected: 100))
        cache.put("all", partial: MemoryTestValue.partial(10, 10, bytes: 100, expected: 100))
        cache.put("unknown", partial: MemoryTestValue.partial(10, 10, bytes: 10, expected: 0))
        let (complete, partial) = cache.inspectionEntries()
        #expect(complete.map(\.identifier) == ["c"])
        let c = try #require(complete.first)
        #expect(c.bytesUsed == 100 && c.progress == 1 && c.url == MemoryTestValue.url("a"))
        #expect(c.dimensions == CGSize(width: 10, height: 10) && c.lastAccess == clock.date)
        #expect(c.timeToLive == MemoryCacheCompleteImage.defaultTimeToLive)
        let progress = Dictionary(uniqueKeysWithValues: partial.map { ($0.identifier, $0.progress) })
        #expect(progress == ["half": 0.5, "all": 0.999, "unknown": 0])
        #expect(cache.inspectedBytes == 260 && cache.totalBytes == 260)
    }

    @Test("Clearing one identifier or everything subtracts exactly")
    func clearing() {
        cache.put(
            "a", MemoryTestValue.complete(10, 10, bytes: 100), partial: MemoryTestValue.partial(20, 20, bytes: 40))
        cache.put("b", MemoryTestValue.complete(10, 10, bytes: 70))
        #expect(domain.totals == (210, 2))
        cache.clearImage(withIdentifier: "a")
        cache.clearImage(withIdentifier: "missing")
        #expect(domain.totals == (70, 1) && cache.totalBytes == 70 && cache.count == 1)
        cache.clearAll()
        #expect(domain.totals == (0, 0) && cache.count == 0)
        #expect(cache.put("a", MemoryTestValue.complete(10, 10)))
    }

    @Test("Non-positive time to live means the 30-day default")
    func defaultTimeToLive() {
        #expect(MemoryTestValue.complete(1, 1, ttl: 0).timeToLive == 2_592_000)
        #expect(MemoryTestValue.partial(1, 1, ttl: -5).timeToLive == 2_592_000)
        #expect(MemoryTestValue.partial(1, 1).hasValidator)
    }
}
