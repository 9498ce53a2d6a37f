import Foundation
import Testing

@testable import TIP

/// A cache of fixed-size entries for budget tests; records evictions in a shared log.
private final class FakeCache: BudgetedCache {
    let name: String
    let budget: CacheBudget
    var entries: [Int64]  // oldest first
    var log: EvictionLog

    init(_ name: String, budget: CacheBudget, log: EvictionLog) {
        self.name = name
        self.budget = budget
        self.entries = []
        self.log = log
        budget.register(self)
    }

    func insert(_ bytes: Int64, prune: Bool = true) {
        entries.append(bytes)
        budget.add(bytes: bytes, count: 1)
        if prune { budget.prune(priorityCache: self) }
    }

    var _budgetedEntryCount: Int { entries.count }

    func _evictLeastRecentlyUsedEntry() -> Bool {
        guard !entries.isEmpty else { return false }
        let bytes = entries.removeFirst()
        budget.subtract(bytes: bytes, count: 1)
        log.evictions.append(name)
        return true
    }
}

private final class EvictionLog {
    var evictions: [String] = []
}

@Suite("Cache budget")
struct CacheBudgetTests {
    @Test("The written cache is protected: others lose their oldest entries first, one per round")
    func pruneOrder() {
        let budget = CacheBudget(maxBytes: 10, maxCount: 0, maxRatioSizeOfCacheEntry: 0)
        let log = EvictionLog()
        let a = FakeCache("a", budget: budget, log: log)
        let b = FakeCache("b", budget: budget, log: log)
        let c = FakeCache("c", budget: budget, log: log)
        for _ in 0..<3 { a.insert(1) }
        for _ in 0..<3 { b.insert(1) }
        #expect(log.evictions.isEmpty)
        // c writes 6 bytes: total 12 > 10. Round 1 takes one from a and one from b (total 10).
        c.insert(6)
        #expect(log.evictions == ["a", "b"])
        #expect(budget.totalBytes == 10 && budget.totalCount == 5)
        // c writes 5 more: 15. Round: a, b (13); round: a, b (11); a and b are now empty; c evicts its own
        // oldest (6) -> 5.
        log.evictions = []
        c.insert(5)
        #expect(log.evictions == ["a", "b", "a", "b", "c"])
        #expect(a.entries.isEmpty && b.entries.isEmpty && c.entries == [5])
        #expect(budget.totalBytes == 5)
    }

    @Test("Counts: 0 means unlimited; a positive count prunes")
    func counts() {
        let budget = CacheBudget(maxBytes: 1_000, maxCount: 0, maxRatioSizeOfCacheEntry: 0)
        let log = EvictionLog()
        let a = FakeCache("a", budget: budget, log: log)
        for _ in 0..<100 { a.insert(1) }
        #expect(budget.totalCount == 100 && log.evictions.isEmpty)
        budget.setLimits(maxCount: 10)
        #expect(budget.totalCount == 10 && a.entries.count == 10)
    }

    @Test("0 bytes disables: nothing is accepted and everything is evicted")
    func zeroBytes() {
        let budget = CacheBudget(maxBytes: 100, maxCount: 0, maxRatioSizeOfCacheEntry: 6)
        let log = EvictionLog()
        let a = FakeCache("a", budget: budget, log: log)
        a.insert(10)
        #expect(budget.accepts(bytes: 16) && !budget.accepts(bytes: 17))  // 100 / 6 = 16
        budget.setLimits(maxBytes: 0)
        #expect(a.entries.isEmpty && budget.totalBytes == 0)
        #expect(!budget.accepts(bytes: 1))
    }

    @Test("Entry cap: ratio 0 or 1 removes it, negative uses the default of 6")
    func entryCap() {
        #expect(CacheBudget(maxBytes: 600, maxCount: 0, maxRatioSizeOfCacheEntry: 1).maxBytesPerEntry == Int64.max)
        #expect(CacheBudget(maxBytes: 600, maxCount: 0, maxRatioSizeOfCacheEntry: 0).maxBytesPerEntry == Int64.max)
        #expect(CacheBudget(maxBytes: 600, maxCount: 0, maxRatioSizeOfCacheEntry: -3).maxBytesPerEntry == 100)
        #expect(CacheBudget(maxBytes: 600, maxCount: 0, maxRatioSizeOfCacheEntry: 4).maxBytesPerEntry == 150)
    }

    @Test("Unregistering subtracts exactly the departing cache's share")
    func unregister() {
        let budget = CacheBudget(maxBytes: 1_000, maxCount: 0, maxRatioSizeOfCacheEntry: 0)
        let log = EvictionLog()
        let a = FakeCache("a", budget: budget, log: log)
        let b = FakeCache("b", budget: budget, log: log)
        a.insert(7); a.insert(3); b.insert(11)
        budget.unregister(a, bytes: 10, count: 2)
        #expect(budget.totalBytes == 11 && budget.totalCount == 1)
        // a no longer takes part in pruning.
        budget.setLimits(maxBytes: 5)
        #expect(a.entries.count == 2 && b.entries.isEmpty)
    }

    @Test("Exhaustive small scenarios keep totals equal to the caches' contents and within budget")
    func exhaustive() {
        var rng = SplitMix64(seed: 11)
        for _ in 0..<300 {
            let maxBytes = Int64(rng.next() % 20)
            let maxCount = Int(rng.next() % 6)
            let budget = CacheBudget(maxBytes: maxBytes, maxCount: maxCount, maxRatioSizeOfCacheEntry: 0)
            let log = EvictionLog()
            let caches = (0..<3).map { FakeCache("\($0)", budget: budget, log: log) }
            for _ in 0..<30 {
                let cache = caches[Int(rng.next() % 3)]
                cache.insert(Int64(rng.next() % 5) + 1)
                let bytes = caches.reduce(0) { $0 + $1.entries.reduce(0, +) }
                let count = caches.reduce(0) { $0 + $1.entries.count }
                #expect(budget.totalBytes == bytes && budget.totalCount == count)
                #expect(!budget.isOverBudget)
            }
        }
    }
}

@Suite("Cache budget consistency")
struct CacheBudgetConsistencyTests {
    @Test("A subtraction below zero is reported and clamped; the configuration logs it")
    func negativeTotalsReported() throws {
        let budget = CacheBudget(maxBytes: 100, maxCount: 0, maxRatioSizeOfCacheEntry: 0)
        let reports = Locked<[String]>([])
        budget.inconsistencyHandler = { message in reports.withLock { $0.append(message) } }
        budget.add(bytes: 10, count: 1)
        budget.subtract(bytes: 30, count: 2)
        #expect(budget.totalBytes == 0 && budget.totalCount == 0)
        #expect(reports.withLock { $0.count } == 1)
        budget.subtract(bytes: 0, count: 0)
        #expect(reports.withLock { $0.count } == 1)

        // Through a configuration with asserts off: logged at error level, no assertion.
        final class Recorder: PipelineLogger {
            let levels = Locked<[PipelineLogLevel]>([])
            func log(_ level: PipelineLogLevel, file: String, function: String, line: Int, message: String) {
                levels.withLock { $0.append(level) }
            }
        }
        let (configuration, root) = try makeTestConfiguration()
        defer { try? FileManager.default.removeItem(at: root) }
        let recorder = Recorder()
        configuration.logger = recorder
        configuration.assertsEnabled = false
        configuration.memoryDomain.withLock { $0.subtract(bytes: 1, count: 1) }
        #expect(recorder.levels.withLock { $0 } == [.error])
    }
}
