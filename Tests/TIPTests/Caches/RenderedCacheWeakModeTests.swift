import Foundation
import Testing

@testable import TIP

@Suite("Rendered cache weak mode")
struct RenderedCacheWeakModeTests {
    let configuration = makeCacheTestConfiguration()
    var domain: LockedCacheDomain { configuration.renderedDomain }
    let cache: RenderedCache
    static let size = CGSize(width: 16, height: 16)
    static let unit = RenderedTestImage.bytes(16, 16)

    init() {
        configuration.renderedDomain.setLimits(maxBytes: 1 << 30, maxCount: 0, ratio: 0)
        cache = RenderedCache(domain: configuration.renderedDomain, configuration: configuration)
    }

    @Test("Weak mode drops the totals and inspection; images still alive come back on exit, released ones do not")
    func aliveVersusReleased() throws {
        var kept: ImageContainer? = RenderedTestImage.make(16, 16)
        var released: ImageContainer? = RenderedTestImage.make(16, 16)
        cache.store(try #require(kept), "kept")
        cache.store(try #require(released), "released")
        #expect(domain.totals == (2 * Self.unit, 2))
        cache.enterWeakMode()
        #expect(cache.isInWeakMode)
        #expect(domain.totals == (0, 0))
        #expect(cache.totalBytes == 0 && cache.count == 0)
        #expect(cache.inspectionEntries().isEmpty)
        weak let releasedWeakly = released
        released = nil
        #expect(releasedWeakly == nil, "the cache must not keep the image alive while weak")
        cache.exitWeakMode()
        #expect(!cache.isInWeakMode)
        #expect(domain.totals == (Self.unit, 1))
        #expect(cache.identifiersNewestFirst == ["kept"])
        #expect(try #require(cache.exact("kept", Self.size)).image === kept)
        #expect(cache.exact("released", Self.size) == nil)
        // Strong again: the cache now keeps the image alive by itself.
        weak let keptWeakly = kept
        kept = nil
        #expect(keptWeakly != nil)
    }

    @Test("A lookup while weak ends weak mode and restores what is alive")
    func lookupRestores() throws {
        let kept = RenderedTestImage.make(16, 16)
        let other = RenderedTestImage.make(16, 8)
        cache.store(kept, "a")
        cache.store(other, "b")
        cache.enterWeakMode()
        let hit = try #require(cache.exact("a", Self.size))
        #expect(hit.image === kept)
        #expect(!cache.isInWeakMode)
        #expect(domain.totals == (Self.unit + RenderedTestImage.bytes(16, 8), 2))
        withExtendedLifetime(other) {}
    }

    @Test("Recency order survives a weak round trip")
    func orderSurvives() {
        let images = (0..<4).map { _ in RenderedTestImage.make(16, 16) }
        for (i, image) in images.enumerated() { cache.store(image, "i\(i)") }
        _ = cache.exact("i1", Self.size)
        let before = cache.identifiersNewestFirst
        #expect(before == ["i1", "i3", "i2", "i0"])
        cache.enterWeakMode()
        cache.exitWeakMode()
        #expect(cache.identifiersNewestFirst == before)
        withExtendedLifetime(images) {}
    }

    @Test("Stores while weak add weak items: they count only once back, and only if still alive")
    func storeWhileWeak() throws {
        cache.enterWeakMode()
        var held: ImageContainer? = RenderedTestImage.make(16, 16)
        cache.store(try #require(held), "held")
        cache.store(RenderedTestImage.make(16, 16), "dropped")
        #expect(domain.totals == (0, 0))
        #expect(cache.inspectionEntries().isEmpty)
        cache.exitWeakMode()
        #expect(cache.identifiersNewestFirst == ["held"])
        #expect(try #require(cache.exact("held", Self.size)).image === held)
        held = nil
        #expect(domain.totals == (Self.unit, 1))
    }

    @Test("Equal-size rules apply while weak, ignoring items whose image is gone")
    func rulesWhileWeak() throws {
        var first: ImageContainer? = RenderedTestImage.make(16, 16)
        cache.store(try #require(first), "a", source: CGSize(width: 400, height: 400))
        cache.enterWeakMode()
        first = nil
        // The released item had larger source dimensions, but it no longer counts.
        let second = RenderedTestImage.make(16, 16)
        cache.store(second, "a", source: CGSize(width: 100, height: 100))
        cache.exitWeakMode()
        let hit = try #require(cache.exact("a", Self.size))
        #expect(hit.image === second && hit.originalDimensions == CGSize(width: 100, height: 100))
        #expect(cache.inspectionEntries().count == 1)
    }

    @Test("Dirtying and clearing work on weak items")
    func dirtyAndClearWhileWeak() throws {
        let a = RenderedTestImage.make(16, 16)
        let b = RenderedTestImage.make(16, 16)
        cache.store(a, "a")
        cache.store(b, "b")
        cache.enterWeakMode()
        cache.dirtyImages(withIdentifier: "a")
        cache.clearImages(withIdentifier: "b")
        cache.exitWeakMode()
        #expect(try #require(cache.exact("a", Self.size)).isDirty)
        #expect(cache.exact("b", Self.size) == nil)
        cache.enterWeakMode()
        cache.clearAll()
        #expect(cache.isInWeakMode)
        cache.exitWeakMode()
        #expect(cache.count == 0 && domain.totals == (0, 0))
        withExtendedLifetime((a, b)) {}
    }

    @Test("Coming back re-checks the shared budget with this cache evicted last")
    func restoreRechecksBudget() {
        domain.setLimits(maxCount: 4)
        let other = RenderedCache(domain: domain, configuration: configuration)
        let mine = (0..<3).map { _ in RenderedTestImage.make(16, 16) }
        for (i, image) in mine.enumerated() { cache.store(image, "m\(i)") }
        cache.enterWeakMode()
        for i in 0..<4 { other.store(RenderedTestImage.make(16, 16), "o\(i)") }
        #expect(domain.totals.count == 4)
        cache.exitWeakMode()
        #expect(cache.count == 3)
        #expect(other.identifiersNewestFirst == ["o3"])
        #expect(domain.totals == (4 * Self.unit, 4))
        withExtendedLifetime(mine) {}
    }

    @Test("Entering weak mode twice and exiting when not weak are harmless")
    func idempotent() throws {
        let a = RenderedTestImage.make(16, 16)
        cache.store(a, "a")
        cache.exitWeakMode()
        #expect(domain.totals == (Self.unit, 1))
        cache.enterWeakMode()
        cache.enterWeakMode()
        #expect(domain.totals == (0, 0))
        cache.exitWeakMode()
        cache.exitWeakMode()
        #expect(domain.totals == (Self.unit, 1))
        cache.tearDown()
        #expect(domain.totals == (0, 0))
        withExtendedLifetime(a) {}
    }
}
