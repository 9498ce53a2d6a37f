import Foundation
import Testing

@testable import TIP

@Suite("Disk cache TTL, LRU and shared budget")
struct DiskCacheBudgetTests {
    @Test(
        "TTL expiry on the injected clock: now − last access > TTL misses and deletes",
        arguments: [DiskCache.MetadataStorage.extendedAttributes, .sidecar])
    func ttlExpiry(storage: DiskCache.MetadataStorage) {
        let env = DiskCacheTestEnvironment()
        let cache = env.cache(storage: storage)
        #expect(cache.updateImageEntry(metadata: env.metadata("a", ttl: 10), source: .data(diskTestBytes(50))))
        env.advance(10)
        #expect(cache.entry(withIdentifier: "a") != nil)  // exactly TTL: alive; the hit slides last access
        env.advance(10)
        #expect(cache.entry(withIdentifier: "a") != nil)
        env.advance(10.5)
        #expect(cache.entry(withIdentifier: "a") == nil)
        #expect(env.files().isEmpty)
        #expect(cache.count == 0)
        #expect(cache.totalBytes == 0)
        #expect(env.domain.sync { env.domain.budget.totalCount } == 0)
    }

    @Test("Last access is persisted on reads and expiry is checked at manifest load")
    func ttlAcrossRestart() {
        let env = DiskCacheTestEnvironment()
        let cache = env.cache()
        #expect(cache.updateImageEntry(metadata: env.metadata("a", ttl: 10), source: .data(diskTestBytes(5))))
        #expect(cache.updateImageEntry(metadata: env.metadata("b", ttl: 10), source: .data(diskTestBytes(7))))
        env.advance(8)
        #expect(cache.entry(withIdentifier: "a")?.complete?.metadata.lastAccess == env.date)
        cache.tearDown()
        env.advance(5)  // b expired (13 s), a alive (5 s since its read)
        let reopened = env.cache()
        #expect(reopened.count == 1)
        #expect(reopened.totalBytes == 5)
        #expect(env.files() == ["a"])
        #expect(env.domain.sync { env.domain.budget.totalBytes } == 5)
    }

    @Test("doNotResetExpiryOnAccess: reads neither slide last access nor bump the LRU")
    func noResetOnAccess() {
        let env = DiskCacheTestEnvironment(maxBytes: 300)
        let cache = env.cache()
        #expect(
            cache.updateImageEntry(
                metadata: env.metadata("fixed", ttl: 10, updatesExpiry: false), source: .data(diskTestBytes(100))))
        env.advance(1)
        #expect(cache.updateImageEntry(metadata: env.metadata("other"), source: .data(diskTestBytes(100))))
        env.advance(6)
        let hit = cache.entry(withIdentifier: "fixed")
        #expect(hit?.complete?.metadata.lastAccess == env.date.addingTimeInterval(-7))
        // Not bumped: "fixed" is still the LRU tail and goes first.
        #expect(cache.updateImageEntry(metadata: env.metadata("third"), source: .data(diskTestBytes(100))))
        #expect(cache.updateImageEntry(metadata: env.metadata("fourth"), source: .data(diskTestBytes(100))))
        #expect(cache.entry(withIdentifier: "fixed") == nil)
        #expect(cache.entry(withIdentifier: "other") != nil)

        let env2 = DiskCacheTestEnvironment()
        let cache2 = env2.cache()
        #expect(
            cache2.updateImageEntry(
                metadata: env2.metadata("fixed", ttl: 10, updatesExpiry: false), source: .data(diskTestBytes(1))))
        env2.advance(6)
        #expect(cache2.entry(withIdentifier: "fixed") != nil)
        env2.advance(6)
        #expect(cache2.entry(withIdentifier: "fixed") == nil)
    }

    @Test("Byte budget shared by two caches: the other cache's tail goes first, then the writer's own")
    func sharedByteBudget() {
        let env = DiskCacheTestEnvironment(maxBytes: 5_000)
        let a = env.cache("a")
        let b = env.cache("b")
        for name in ["a1", "a2", "a3"] {
            #expect(a.updateImageEntry(metadata: env.metadata(name), source: .data(diskTestBytes(1_000))))
            env.advance(1)
        }
        _ = a.entry(withIdentifier: "a1")  // a1 becomes A's most recent; a2 is its tail
        for name in ["b1", "b2"] {
            #expect(b.updateImageEntry(metadata: env.metadata(name), source: .data(diskTestBytes(1_000))))
        }
        #expect(b.updateImageEntry(metadata: env.metadata("b3"), source: .data(diskTestBytes(1_000))))
        #expect(a.entry(withIdentifier: "a2") == nil)
        #expect(!env.files("a").contains("a2"))
        #expect(a.count == 2)
        #expect(b.updateImageEntry(metadata: env.metadata("b4"), source: .data(diskTestBytes(1_000))))
        #expect(a.entry(withIdentifier: "a3") == nil)
        #expect(a.entry(withIdentifier: "a1") != nil)
        #expect(b.updateImageEntry(metadata: env.metadata("b5"), source: .data(diskTestBytes(1_000))))
        #expect(a.count == 0)
        #expect(b.count == 5)
        #expect(b.updateImageEntry(metadata: env.metadata("b6"), source: .data(diskTestBytes(1_000))))
        #expect(b.entry(withIdentifier: "b1") == nil)
        #expect(b.count == 5)
        #expect(env.domain.sync { env.domain.budget.totalBytes } == 5_000)
        #expect(
            env.dataBytes("a", storage: .extendedAttributes) + env.dataBytes("b", storage: .extendedAttributes) == 5_000
        )
    }

    @Test("Count budget shared by two caches, and tear-down subtracts exactly one cache's totals")
    func sharedCountBudget() {
        let env = DiskCacheTestEnvironment(maxCount: 3)
        let a = env.cache("a")
        let b = env.cache("b")
        #expect(a.updateImageEntry(metadata: env.metadata("a1"), source: .data(diskTestBytes(10))))
        #expect(a.updateImageEntry(metadata: env.metadata("a2"), source: .data(diskTestBytes(10))))
        #expect(b.updateImageEntry(metadata: env.metadata("b1"), source: .data(diskTestBytes(20))))
        #expect(b.updateImageEntry(metadata: env.metadata("b2"), source: .data(diskTestBytes(20))))
        #expect(a.entry(withIdentifier: "a1") == nil)
        #expect(a.count == 1)
        #expect(env.domain.sync { env.domain.budget.totalCount } == 3)
        b.tearDown()
        #expect(env.domain.sync { env.domain.budget.totalCount } == 1)
        #expect(env.domain.sync { env.domain.budget.totalBytes } == 10)
        #expect(env.files("b") == ["b1", "b2"])
        b.tearDown()
        #expect(env.domain.sync { env.domain.budget.totalBytes } == 10)
    }

    @Test("A zero byte budget evicts everything and refuses stores")
    func zeroBudget() {
        let env = DiskCacheTestEnvironment()
        let cache = env.cache()
        #expect(cache.updateImageEntry(metadata: env.metadata("a"), source: .data(diskTestBytes(10))))
        env.domain.sync { env.domain.budget.setLimits(maxBytes: 0) }
        #expect(cache.count == 0)
        #expect(env.files().isEmpty)
        #expect(!cache.updateImageEntry(metadata: env.metadata("b"), source: .data(diskTestBytes(10))))
        #expect(env.files().isEmpty)
    }

    @Test("Concurrent stores, downloads, reads, renames and clears on two caches keep every total exact")
    func concurrentAccounting() throws {
        let env = DiskCacheTestEnvironment(maxBytes: 40_000, maxCount: 25)
        let caches = [env.cache("a"), env.cache("b")]
        DispatchQueue.concurrentPerform(iterations: 4) { lane in
            var random = SplitMix64(seed: UInt64(lane + 1))
            for step in 0..<120 {
                let cache = caches[Int(random.next() % 2)]
                let identifier = "id\(random.next() % 20)"
                let size = 100 + Int(random.next() % 3_000)
                let width = 10 + Int(random.next() % 100)
                switch random.next() % 6 {
                case 0, 1:
                    cache.updateImageEntry(
                        metadata: env.metadata(identifier, url: "https://x/\(step)", width: width),
                        source: .data(diskTestBytes(size)), forced: random.next() % 2 == 0)
                case 2:
                    guard let file = try? cache.openTemporaryFile(forIdentifier: identifier) else { continue }
                    try? file.append(diskTestBytes(size))
                    let partial = random.next() % 2 == 0
                    file.finalize(
                        metadata: env.metadata(identifier, width: width, expectedLength: partial ? Int64(size * 2) : 0),
                        complete: !partial)
                case 3:
                    _ = cache.completeData(withIdentifier: identifier)
                case 4:
                    try? cache.changeIdentifier(from: identifier, to: "id\(random.next() % 20)")
                default:
                    cache.clearImage(withIdentifier: identifier)
                }
            }
        }
        let bytes = caches.map(\.totalBytes).reduce(0, +)
        #expect(caches[0].totalBytes == env.dataBytes("a", storage: .extendedAttributes))
        #expect(caches[1].totalBytes == env.dataBytes("b", storage: .extendedAttributes))
        #expect(env.domain.sync { env.domain.budget.totalBytes } == bytes)
        #expect(env.domain.sync { env.domain.budget.totalCount } == caches.map(\.count).reduce(0, +))
        #expect(bytes <= 40_000)
        #expect(caches.map(\.count).reduce(0, +) <= 25)
        #expect(!(env.files("a") + env.files("b")).contains { $0.hasPrefix(DiskCacheFiles.temporaryPrefix) })
    }
}
