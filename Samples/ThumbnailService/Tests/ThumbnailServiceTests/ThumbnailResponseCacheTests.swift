import Foundation
import Testing

@testable import ThumbnailService

@Suite struct ThumbnailResponseCacheTests {
    private func thumbnail(_ size: Int) -> Thumbnail {
        Thumbnail(body: Data(count: size), contentType: "image/png", entityTag: "\"t\"")
    }

    @Test func evictsLeastRecentlyUsedToFitTheBytes() {
        let cache = ThumbnailResponseCache(maxByteCount: 100)
        cache.insert(thumbnail(40), forKey: "a")
        cache.insert(thumbnail(40), forKey: "b")
        #expect(cache.thumbnail(forKey: "a") != nil)  // a is now the most recent
        cache.insert(thumbnail(40), forKey: "c")  // 120 > 100: b goes
        #expect(cache.keysByRecency == ["c", "a"])
        #expect(cache.byteCount == 80)
        #expect(cache.thumbnail(forKey: "b") == nil)
    }

    @Test func replacingAKeyKeepsTheBytesRight() {
        let cache = ThumbnailResponseCache(maxByteCount: 100)
        cache.insert(thumbnail(30), forKey: "a")
        cache.insert(thumbnail(50), forKey: "a")
        #expect(cache.byteCount == 50 && cache.count == 1)
    }

    @Test func tooLargeForTheWholeCacheIsNotKept() {
        let cache = ThumbnailResponseCache(maxByteCount: 100)
        cache.insert(thumbnail(10), forKey: "a")
        cache.insert(thumbnail(101), forKey: "big")
        #expect(cache.keysByRecency == ["a"])
        #expect(ThumbnailResponseCache(maxByteCount: 0).thumbnail(forKey: "a") == nil)
    }

    /// Every order of touching three entries, then one insert that forces one eviction.
    @Test(arguments: [
        ["a", "b", "c"], ["a", "c", "b"], ["b", "a", "c"], ["b", "c", "a"], ["c", "a", "b"], ["c", "b", "a"],
    ])
    func evictionFollowsEveryTouchOrder(_ order: [String]) {
        let cache = ThumbnailResponseCache(maxByteCount: 30)
        for key in ["a", "b", "c"] { cache.insert(thumbnail(10), forKey: key) }
        for key in order { _ = cache.thumbnail(forKey: key) }
        cache.insert(thumbnail(10), forKey: "d")
        #expect(cache.keysByRecency == ["d", order[2], order[1]])
    }
}
