import Dispatch
import Foundation
import Synchronization
import Testing

@testable import TIP

@Suite("Rendered cache stress")
struct RenderedCacheStressTests {
    @Test("Concurrent stores, lookups, clears, weak mode, limit changes and tear-downs keep the shared totals exact")
    func concurrentOperations() throws {
        let configuration = makeCacheTestConfiguration()
        let domain = configuration.renderedDomain
        let unit = RenderedTestImage.bytes(16, 16)
        domain.setLimits(maxBytes: 40 * unit, maxCount: 12, ratio: 6)
        let caches = Locked((0..<3).map { _ in RenderedCache(domain: domain, configuration: configuration) })
        let pool = [(16, 16), (16, 8), (8, 16), (32, 32), (16, 64), (4, 4)].map { RenderedTestImage.make($0.0, $0.1) }
        let failures = Locked<[String]>([])
        let operations = Atomic<Int>(0)
        let deadline = Date().addingTimeInterval(1.5)

        DispatchQueue.concurrentPerform(iterations: 6) { worker in
            var rng = SplitMix64(seed: UInt64(worker) &* 7919 &+ 1)
            while Date() < deadline {
                let cache = caches.withLock { $0[Int(rng.next() % 3)] }
                let identifier = "id\(rng.next() % 20)"
                let image = pool[Int(rng.next() % UInt64(pool.count))]
                let transformer: String? = rng.next() % 4 == 0 ? "t" : nil
                switch rng.next() % 100 {
                case 0..<45:
                    cache.store(
                        image, identifier, transformer: transformer,
                        source: CGSize(width: Int(rng.next() % 400) + 1, height: Int(rng.next() % 400) + 1))
                case 45..<80:
                    if let hit = cache.image(
                        withIdentifier: identifier, targetDimensions: image.dimensions,
                        targetContentMode: .scaleToFill, transformerIdentifier: transformer),
                        hit.image.dimensions != image.dimensions
                    {
                        failures.withLock { $0.append("hit of the wrong size \(hit.image.dimensions)") }
                    }
                case 80..<86: cache.dirtyImages(withIdentifier: identifier)
                case 86..<92: cache.clearImages(withIdentifier: identifier)
                case 92: cache.clearAll()
                case 93, 94: cache.enterWeakMode()
                case 95, 96: cache.exitWeakMode()
                case 97: domain.setLimits(maxBytes: Int64(rng.next() % 60 + 1) * unit, maxCount: Int(rng.next() % 16))
                case 98: _ = cache.inspectionEntries()
                default:
                    // A pipeline goes away and another takes its place.
                    let fresh = RenderedCache(domain: domain, configuration: configuration)
                    let old = caches.withLock { list -> RenderedCache in
                        let index = Int(rng.next() % 3)
                        defer { list[index] = fresh }
                        return list[index]
                    }
                    old.tearDown()
                }
                let state = domain.withLock { ($0.totalBytes, $0.totalCount, $0.maxBytes, $0.maxCount) }
                if state.0 < 0 || state.1 < 0 || state.0 > state.2 || (state.3 > 0 && state.1 > state.3) {
                    failures.withLock { $0.append("totals out of bounds: \(state)") }
                }
                operations.add(1, ordering: .relaxed)
            }
        }

        let live = caches.withLock { $0 }
        for cache in live { cache.exitWeakMode() }
        let totals = domain.totals
        #expect(failures.withLock { $0 }.isEmpty, "\(failures.withLock { $0.prefix(5) })")
        #expect(totals.bytes == live.reduce(0) { $0 + $1.totalBytes })
        #expect(totals.count == live.reduce(0) { $0 + $1.count })
        for cache in live {
            #expect(cache.totalBytes >= 0 && cache.totalBytes == cache.inspectedBytes)
            #expect(cache.count == Set(cache.inspectionEntries().map(\.identifier)).count)
        }
        #expect(operations.load(ordering: .relaxed) > 1000)
        for cache in live { cache.tearDown() }
        #expect(domain.totals == (0, 0))
    }
}
