import Foundation
import Testing

@testable import TIP

/// HTTP freshness as the caches keep it: in the disk entry's metadata (both storages, across a restart), in the
/// memory cache's entries, and as the rendered cache's dirty flag.
@Suite("Cache freshness")
struct CacheFreshnessTests {
    @Test("disk metadata keeps fresh-until and the server's lifetime (FRU, FRL), packed and back; absent stays absent")
    func metadataRoundTrip() throws {
        let url = URL(string: "https://example.com/a.jpg")!
        var metadata = DiskCacheMetadata(
            identifier: "a", url: url, lastAccess: Date(timeIntervalSinceReferenceDate: 1_000),
            timeToLive: 3_600, width: 10, height: 10, entityTag: "\"t\"")
        let bare = try #require(metadata.packed.withUnsafeBytes { DiskCacheMetadata(packed: $0) })
        #expect(bare.freshness == nil && bare == metadata)
        for freshness in [
            CacheFreshness(freshUntil: Date(timeIntervalSinceReferenceDate: 1_060.5), serverLifetime: 60),
            CacheFreshness(freshUntil: Date(timeIntervalSinceReferenceDate: 4_600), serverLifetime: nil),
        ] {
            metadata.freshness = freshness
            let keys = Set(metadata.encodedValues.map(\.key))
            #expect(keys.contains("FRU") && keys.contains("FRL") == (freshness.serverLifetime != nil))
            #expect(
                !metadata.tipAttributeValues.contains { $0.key == "FRU" || $0.key == "FRL" }, "not among TIP's own keys"
            )
            let decoded = try #require(metadata.packed.withUnsafeBytes { DiskCacheMetadata(packed: $0) })
            #expect(decoded == metadata)
        }
        #expect(metadata.isStale(at: Date(timeIntervalSinceReferenceDate: 4_600)))
        #expect(!metadata.isStale(at: Date(timeIntervalSinceReferenceDate: 4_599)))
    }

    @Test(
        "renewing a file's freshness rewrites its metadata only; the new freshness survives a restart",
        arguments: [DiskCache.MetadataStorage.extendedAttributes, .sidecar])
    func diskRenewal(storage: DiskCache.MetadataStorage) throws {
        let env = DiskCacheTestEnvironment()
        let cache = env.cache(storage: storage)
        var metadata = env.metadata("a", entityTag: "\"t\"")
        metadata.freshness = CacheFreshness(freshUntil: env.date + 10, serverLifetime: 10)
        #expect(cache.updateImageEntry(metadata: metadata, source: .data(diskTestBytes(64))))
        env.advance(20)
        #expect(cache.entry(withIdentifier: "a")?.complete?.metadata.isStale(at: env.date) == true)
        #expect(
            cache.updateCompleteMetadata(withIdentifier: "a", accepts: { $0.entityTag == "\"other\"" }) { _ in } == nil)
        let renewed = try #require(
            cache.updateCompleteMetadata(withIdentifier: "a", accepts: { $0.entityTag == "\"t\"" }) {
                $0.freshness = CacheFreshness(freshUntil: env.date + 10, serverLifetime: 10)
            })
        #expect(renewed.metadata.lastAccess == env.date)
        #expect(try Data(contentsOf: renewed.fileURL) == diskTestBytes(64))
        cache.tearDown()
        let reopened = env.cache(storage: storage)
        let part = try #require(reopened.entry(withIdentifier: "a")?.complete)
        #expect(part.metadata.freshness == CacheFreshness(freshUntil: env.date + 10, serverLifetime: 10))
        #expect(!part.metadata.isStale(at: env.date))
        #expect(reopened.totalBytes == 64)
    }

    @Test("a file whose TTL ran out is not renewed: it is deleted")
    func expiredIsNotRenewed() {
        let env = DiskCacheTestEnvironment()
        let cache = env.cache()
        #expect(
            cache.updateImageEntry(
                metadata: env.metadata("a", ttl: 10, entityTag: "\"t\""), source: .data(diskTestBytes(8))))
        env.advance(11)
        #expect(cache.updateCompleteMetadata(withIdentifier: "a", accepts: { _ in true }) { _ in } == nil)
        #expect(env.files().isEmpty && cache.totalBytes == 0)
    }

    @Test(
        """
        memory cache: metadata renewed in place (bytes and budget unchanged); a complete variant removed, its \
        partial kept
        """
    )
    func memoryRenewalAndRemoval() throws {
        let clock = TestClock()
        let configuration = makeCacheTestConfiguration(clock: clock)
        let domain = configuration.memoryDomain
        let cache = MemoryCache(domain: domain, configuration: configuration)
        let url = URL(string: "https://example.com/m.jpg")!
        cache.updateEntry(
            MemoryCacheEntry(
                identifier: "m",
                complete: MemoryCacheCompleteImage(
                    data: Data(count: 100), url: url, dimensions: CGSize(width: 10, height: 10),
                    freshness: CacheFreshness(freshUntil: clock.date, serverLifetime: 5), entityTag: "\"t\""),
                partial: MemoryCachePartialImage(
                    data: Data(count: 40), url: url, dimensions: CGSize(width: 20, height: 20),
                    expectedLength: 80, entityTag: "\"n\"")))
        let totals = domain.totals
        let renewed = cache.updateCompleteImage(withIdentifier: "m", accepts: { $0.entityTag == "\"t\"" }) {
            $0.freshness = CacheFreshness(freshUntil: clock.date + 5, serverLifetime: 5)
        }
        #expect(renewed?.freshness?.freshUntil == clock.date + 5)
        #expect(cache.entry(withIdentifier: "m", touch: false)?.complete?.isStale(at: clock.date) == false)
        #expect(domain.totals == totals)
        #expect(
            cache.updateCompleteImage(withIdentifier: "m", accepts: { _ in true }) { $0.data = Data() } == nil,
            "changing the bytes is refused")
        #expect(cache.removeCompleteImage(withIdentifier: "m") { $0.entityTag == "\"t\"" })
        let left = try #require(cache.entry(withIdentifier: "m", touch: false))
        #expect(left.complete == nil && left.partial?.entityTag == "\"n\"")
        #expect(domain.totals == (40, 1))
        #expect(cache.removeCompleteImage(withIdentifier: "m") { _ in true } == false)
    }

    @Test("rendered cache: a stale image turns dirty at its lookup, and a fresher rendering replaces it")
    func renderedStaleness() throws {
        let clock = TestClock()
        let configuration = makeCacheTestConfiguration(clock: clock)
        let cache = RenderedCache(domain: configuration.renderedDomain, configuration: configuration)
        let size = CGSize(width: 20, height: 20)
        cache.store(
            RenderedTestImage.make(20, 20), identifier: "r", transformerIdentifier: nil, originalDimensions: size,
            isPlaceholder: false, freshUntil: clock.date + 10)
        #expect(cache.exact("r", size)?.isDirty == false)
        clock.advance(10)
        #expect(cache.exact("r", size)?.isDirty == true)
        clock.advance(-5)
        #expect(cache.exact("r", size)?.isDirty == true, "dirty stays dirty until replaced")
        let newer = RenderedTestImage.make(20, 20)
        cache.store(
            newer, identifier: "r", transformerIdentifier: nil, originalDimensions: size, isPlaceholder: false,
            freshUntil: clock.date + 60)
        let hit = try #require(cache.exact("r", size))
        #expect(!hit.isDirty && hit.image === newer)
        // A rendering no fresher than the clean one held is dropped (TIP's rule for equal sizes).
        cache.store(
            RenderedTestImage.make(20, 20), identifier: "r", transformerIdentifier: nil, originalDimensions: size,
            isPlaceholder: false, freshUntil: clock.date + 30)
        #expect(cache.exact("r", size)?.image === newer)
    }
}
