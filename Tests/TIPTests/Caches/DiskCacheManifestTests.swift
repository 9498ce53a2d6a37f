import Foundation
import Testing

@testable import TIP

@Suite("Disk cache manifest")
struct DiskCacheManifestTests {
    static let storages: [DiskCache.MetadataStorage] = [.extendedAttributes, .sidecar]

    /// Fills a directory with `count` complete entries (and a partial for every tenth) and tears the cache down.
    private func populate(_ env: DiskCacheTestEnvironment, count: Int, storage: DiskCache.MetadataStorage) throws {
        let cache = env.cache(storage: storage)
        for index in 0..<count {
            #expect(
                cache.updateImageEntry(
                    metadata: env.metadata("e\(index)", ttl: 1e9), source: .data(diskTestBytes(10 + index % 7))))
            if index % 10 == 0 {
                let file = try cache.openTemporaryFile(forIdentifier: "e\(index)")
                try file.append(diskTestBytes(3))
                #expect(
                    file.finalize(
                        metadata: env.metadata("e\(index)", width: 300, ttl: 1e9, expectedLength: 10), complete: false))
            }
            env.advance(1)
        }
        cache.tearDown()
    }

    @Test(
        "Restart: a new cache finds complete and partial entries, in last-access order, with exact totals",
        arguments: storages)
    func restart(storage: DiskCache.MetadataStorage) throws {
        let env = DiskCacheTestEnvironment()
        try populate(env, count: 30, storage: storage)
        #expect(env.domain.sync { env.domain.budget.totalBytes } == 0)
        let cache = env.cache(storage: storage)
        #expect(cache.isManifestLoaded)
        #expect(cache.count == 30)
        #expect(cache.totalBytes == env.dataBytes(storage: storage))
        #expect(env.domain.sync { env.domain.budget.totalBytes } == cache.totalBytes)
        #expect(env.domain.sync { env.domain.budget.totalCount } == 30)
        let inspection = cache.inspectionEntries()
        #expect(inspection.complete.map(\.identifier) == (0..<30).reversed().map { "e\($0)" })
        #expect(inspection.partial.count == 3)
        #expect(inspection.partial.allSatisfy { abs($0.progress - 0.3) < 0.001 })
        #expect(cache.entry(withIdentifier: "e10")?.partial?.metadata.expectedLength == 10)
    }

    @Test(
        "Stray temporary files, files without metadata, mismatched and symlinked files are deleted at load",
        arguments: storages)
    func invalidFilesDeleted(storage: DiskCache.MetadataStorage) throws {
        let env = DiskCacheTestEnvironment()
        try populate(env, count: 3, storage: storage)
        let directory = env.directory()
        try Data("torn".utf8).write(to: directory.appendingPathComponent("#tip-tmp-deadbeef"))
        try Data("no metadata".utf8).write(to: directory.appendingPathComponent("orphan"))
        // e1's file renamed to another identifier's name: its ID no longer matches.
        try FileManager.default.moveItem(
            at: directory.appendingPathComponent("e1"), to: directory.appendingPathComponent("e99"))
        if storage == .sidecar {
            try FileManager.default.moveItem(
                at: directory.appendingPathComponent("e1#meta"), to: directory.appendingPathComponent("e99#meta"))
            // e2's data replaced by a file of another size: the sidecar no longer matches.
            try Data("different".utf8).write(to: directory.appendingPathComponent("e2"))
        }
        try FileManager.default.createSymbolicLink(
            atPath: directory.appendingPathComponent("link").path, withDestinationPath: "/etc/hostname")
        let cache = env.cache(storage: storage)
        let expectedAlive = storage == .sidecar ? ["e0"] : ["e0", "e2"]
        #expect(cache.inspectionEntries().complete.map(\.identifier).sorted() == expectedAlive)
        var expectedFiles = expectedAlive + ["e0.tmp"]
        if storage == .sidecar { expectedFiles += expectedFiles.map { $0 + "#meta" } }
        #expect(env.files() == expectedFiles.sorted())
        #expect(cache.totalBytes == env.dataBytes(storage: storage))
    }

    @Test("Reads, writes, clears and renames while the manifest loads keep the totals exact", arguments: storages)
    func operationsWhileLoading(storage: DiskCache.MetadataStorage) throws {
        let env = DiskCacheTestEnvironment()
        try populate(env, count: 200, storage: storage)
        let gate = DispatchSemaphore(value: 0)
        let cache = DiskCache(
            directory: env.directory(), domain: env.domain, configuration: env.configuration,
            metadataStorage: storage, manifestLoadHook: { gate.wait() })
        #expect(!cache.isManifestLoaded)
        // Complete files are served straight from disk; partials are not.
        #expect(cache.completeData(withIdentifier: "e5")?.data == diskTestBytes(15))
        #expect(cache.entry(withIdentifier: "e10")?.partial == nil)
        #expect(cache.entry(withIdentifier: "e10")?.complete != nil)
        #expect(cache.entry(withIdentifier: "missing") == nil)
        // Changes meanwhile.
        #expect(cache.updateImageEntry(metadata: env.metadata("new"), source: .data(diskTestBytes(1_000))))
        #expect(
            cache.updateImageEntry(
                metadata: env.metadata("e3", url: "https://example.com/other"), source: .data(diskTestBytes(500))))
        cache.clearImage(withIdentifier: "e4")
        cache.clearImage(withIdentifier: "e20")
        try cache.changeIdentifier(from: "e6", to: "renamed")
        let file = try cache.openTemporaryFile(forIdentifier: "e7")
        try file.append(diskTestBytes(4))
        #expect(file.finalize(metadata: env.metadata("e7", width: 500, expectedLength: 9), complete: false))
        #expect(cache.count == 0)
        gate.signal()
        cache.waitUntilManifestLoaded()
        #expect(cache.isManifestLoaded)
        // 200 + "new" − "e4" − "e20" ("e6" renamed, "e7" gained a partial).
        #expect(cache.count == 199)
        #expect(cache.totalBytes == env.dataBytes(storage: storage))
        #expect(env.domain.sync { env.domain.budget.totalBytes } == cache.totalBytes)
        #expect(env.domain.sync { env.domain.budget.totalCount } == 199)
        #expect(cache.entry(withIdentifier: "e3")?.complete?.byteCount == 500)
        #expect(cache.entry(withIdentifier: "e4") == nil)
        #expect(cache.entry(withIdentifier: "renamed") != nil)
        #expect(cache.entry(withIdentifier: "e7")?.partial?.byteCount == 4)
        #expect(cache.entry(withIdentifier: "e10")?.partial != nil)
        // The entries touched meanwhile are the most recent.
        #expect(cache.inspectionEntries().complete.last?.identifier == "e0")
    }

    @Test("clearAll while the manifest loads leaves an empty, consistent cache")
    func clearWhileLoading() throws {
        let env = DiskCacheTestEnvironment()
        try populate(env, count: 50, storage: .extendedAttributes)
        let gate = DispatchSemaphore(value: 0)
        let cache = DiskCache(
            directory: env.directory(), domain: env.domain, configuration: env.configuration,
            metadataStorage: .extendedAttributes, manifestLoadHook: { gate.wait() })
        let cleared = DispatchSemaphore(value: 0)
        cache.clearAll { cleared.signal() }
        cleared.wait()
        #expect(cache.updateImageEntry(metadata: env.metadata("after"), source: .data(diskTestBytes(10))))
        gate.signal()
        cache.waitUntilManifestLoaded()
        #expect(cache.count == 1)
        #expect(cache.totalBytes == 10)
        #expect(env.files() == ["after"])
        #expect(env.domain.sync { env.domain.budget.totalBytes } == 10)
    }

    @Test("Manifest of many entries loads in the background; reads are served meanwhile")
    func manyEntries() throws {
        let env = DiskCacheTestEnvironment()
        // TIP_DISK_MANIFEST_ENTRIES=10000 measures a bigger cache.
        let count = ProcessInfo.processInfo.environment["TIP_DISK_MANIFEST_ENTRIES"].flatMap { Int($0) } ?? 400
        try populate(env, count: count, storage: .extendedAttributes)
        let start = Date()
        let cache = DiskCache(
            directory: env.directory(), domain: env.domain, configuration: env.configuration, metadataStorage: nil)
        var servedWhileLoading = 0
        for index in stride(from: 1, to: count, by: 97) where !cache.isManifestLoaded {
            if cache.completeData(withIdentifier: "e\(index)")?.data == diskTestBytes(10 + index % 7) {
                servedWhileLoading += 1
            }
        }
        cache.waitUntilManifestLoaded()
        let elapsed = Date().timeIntervalSince(start)
        #expect(cache.count == count)
        #expect(cache.totalBytes == env.dataBytes(storage: .extendedAttributes))
        print(
            """
            disk manifest: \(count) entries loaded in \(Int(elapsed * 1000)) ms (\(servedWhileLoading) reads \
            served while loading)
            """
        )
    }
}
