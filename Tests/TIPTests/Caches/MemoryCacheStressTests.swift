import Dispatch
import Foundation
import Synchronization
import Testing

@testable import TIP

@Suite("Memory cache stress")
struct MemoryCacheStressTests {
    @Test("Concurrent updates, reads, expiry, clears, limit changes and tear-downs keep the shared totals exact")
    func concurrentOperations() throws {
        let clock = TestClock()
        let configuration = makeCacheTestConfiguration(clock: clock)
        let domain = configuration.memoryDomain
        domain.setLimits(maxBytes: 4000, maxCount: 12, ratio: 6)
        let caches = Locked((0..<3).map { _ in MemoryCache(domain: domain, configuration: configuration) })
        let failures = Locked<[String]>([])
        let operations = Atomic<Int>(0)
        let deadline = Date().addingTimeInterval(1.5)

        DispatchQueue.concurrentPerform(iterations: 6) { worker in
            var rng = SplitMix64(seed: UInt64(worker) &* 104_729 &+ 3)
            while Date() < deadline {
                let cache = caches.withLock { $0[Int(rng.next() % 3)] }
                let identifier = "id\(rng.next() % 20)"
                let side = Int(rng.next() % 40) + 1
                let url = "u\(rng.next() % 3)"
                switch rng.next() % 100 {
                case 0..<30:
                    cache.put(
                        identifier,
                        MemoryTestValue.complete(
                            side, side, url: url, bytes: Int(rng.next() % 700) + 1,
                            placeholder: rng.next() % 5 == 0,
                            ttl: TimeInterval(rng.next() % 60 + 1),
                            updateExpiryOnAccess: rng.next() % 3 != 0),
                        force: rng.next() % 10 == 0)
                case 30..<45:
                    cache.put(
                        identifier,
                        partial: MemoryTestValue.partial(
                            side, side, url: url, bytes: Int(rng.next() % 300) + 1,
                            ttl: TimeInterval(rng.next() % 60 + 1)))
                case 45..<75:
                    if let entry = cache.entry(withIdentifier: identifier, touch: rng.next() % 4 != 0),
                        entry.byteCount == 0 || entry.identifier != identifier
                    {
                        failures.withLock { $0.append("bad entry for \(identifier)") }
                    }
                case 75..<82: cache.touchImage(withIdentifier: identifier)
                case 82..<88: cache.clearImage(withIdentifier: identifier)
                case 88: cache.clearAll()
                case 89..<94: clock.advance(TimeInterval(rng.next() % 5))
                case 94: domain.setLimits(maxBytes: Int64(rng.next() % 6000), maxCount: Int(rng.next() % 16))
                case 95, 96: _ = cache.inspectionEntries()
                default:
                    let fresh = MemoryCache(domain: domain, configuration: configuration)
                    let old = caches.withLock { list -> MemoryCache in
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
        let totals = domain.totals
        #expect(failures.withLock { $0 }.isEmpty, "\(failures.withLock { $0.prefix(5) })")
        #expect(totals.bytes == live.reduce(0) { $0 + $1.totalBytes })
        #expect(totals.count == live.reduce(0) { $0 + $1.count })
        for cache in live {
            #expect(cache.totalBytes >= 0 && cache.totalBytes == cache.inspectedBytes)
            let (complete, partial) = cache.inspectionEntries()
            #expect(cache.count == Set((complete + partial).map(\.identifier)).count)
        }
        #expect(operations.load(ordering: .relaxed) > 1000)
        for cache in live { cache.tearDown() }
        #expect(domain.totals == (0, 0))
    }
}
