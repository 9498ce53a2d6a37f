import Foundation
import Testing

@testable import TIP

@Suite("Disk cache operations")
struct DiskCacheOperationTests {
    static let storages: [DiskCache.MetadataStorage] = [.extendedAttributes, .sidecar]

    private func storeBoth(_ env: DiskCacheTestEnvironment, _ cache: DiskCache, _ identifier: String) throws {
        #expect(cache.updateImageEntry(metadata: env.metadata(identifier), source: .data(diskTestBytes(40))))
        let file = try cache.openTemporaryFile(forIdentifier: identifier)
        try file.append(diskTestBytes(6))
        #expect(file.finalize(metadata: env.metadata(identifier, width: 400, expectedLength: 60), complete: false))
    }

    @Test("Changing an identifier renames both files and their metadata; missing ⇒ ENOENT", arguments: storages)
    func changeIdentifier(storage: DiskCache.MetadataStorage) throws {
        let env = DiskCacheTestEnvironment()
        let cache = env.cache(storage: storage)
        try storeBoth(env, cache, "old")
        #expect(cache.updateImageEntry(metadata: env.metadata("new"), source: .data(diskTestBytes(3))))
        try cache.changeIdentifier(from: "old", to: "new")
        #expect(cache.entry(withIdentifier: "old") == nil)
        let moved = try #require(cache.entry(withIdentifier: "new"))
        #expect(moved.complete?.metadata.identifier == "new")
        #expect(moved.partial?.metadata.identifier == "new")
        #expect(cache.completeData(withIdentifier: "new")?.data == diskTestBytes(40))
        #expect(cache.count == 1)
        #expect(cache.totalBytes == 46)
        #expect(throws: POSIXError(.ENOENT)) { try cache.changeIdentifier(from: "old", to: "x") }
        cache.tearDown()
        let reopened = env.cache(storage: storage)
        #expect(reopened.entry(withIdentifier: "new")?.partial?.byteCount == 6)
        #expect(reopened.totalBytes == 46)
    }

    @Test("Copying the complete file out, and seeding a resume from the partial")
    func copies() throws {
        let env = DiskCacheTestEnvironment()
        let cache = env.cache()
        try storeBoth(env, cache, "id")
        let copy = try cache.copyCompleteFile(withIdentifier: "id")
        defer { try? FileManager.default.removeItem(at: copy) }
        #expect(try Data(contentsOf: copy) == diskTestBytes(40))
        #expect(!copy.path.hasPrefix(env.directory().path))
        #expect(throws: POSIXError(.ENOENT)) { try cache.copyCompleteFile(withIdentifier: "nope") }

        let (file, partial) = try #require(cache.copyPartialToTemporaryFile(withIdentifier: "id"))
        #expect(file.byteCount == 6)
        #expect(partial.metadata.expectedLength == 60)
        try file.append(diskTestBytes(54, seed: 9))
        #expect(file.finalize(metadata: env.metadata("id", width: 400), complete: true))
        #expect(cache.completeData(withIdentifier: "id")?.data == diskTestBytes(6) + diskTestBytes(54, seed: 9))
        #expect(cache.entry(withIdentifier: "id")?.partial == nil)
        #expect(cache.totalBytes == 60)
        #expect(cache.copyPartialToTemporaryFile(withIdentifier: "id") == nil)
    }

    @Test("Large files are mapped and stay readable after eviction")
    func largeFileRead() throws {
        let env = DiskCacheTestEnvironment()
        let cache = env.cache()
        let bytes = diskTestBytes(300_000, seed: 5)
        #expect(cache.updateImageEntry(metadata: env.metadata("big"), source: .data(bytes)))
        let read = try #require(cache.completeData(withIdentifier: "big"))
        cache.clearImage(withIdentifier: "big")
        #expect(env.files().isEmpty)
        #expect(read.data == bytes)
    }

    @Test("Clearing one image and everything", arguments: storages)
    func clearing(storage: DiskCache.MetadataStorage) throws {
        let env = DiskCacheTestEnvironment()
        let cache = env.cache(storage: storage)
        try storeBoth(env, cache, "a")
        try storeBoth(env, cache, "b")
        cache.clearImage(withIdentifier: "a")
        #expect(cache.entry(withIdentifier: "a") == nil)
        #expect(env.files().allSatisfy { $0.hasPrefix("b") })
        #expect(cache.totalBytes == 46)
        let open = try cache.openTemporaryFile(forIdentifier: "c")
        try open.append(diskTestBytes(5))
        let done = DispatchSemaphore(value: 0)
        cache.clearAll { done.signal() }
        done.wait()
        #expect(env.files().isEmpty)
        #expect(cache.count == 0)
        #expect(env.domain.sync { env.domain.budget.totalBytes } == 0)
        // A download whose temporary file was cleared away is dropped without a fault.
        #expect(!open.finalize(metadata: env.metadata("c"), complete: true))
        #expect(env.recorder.count(.diskCacheWriteFailed) == 0)
        #expect(cache.updateImageEntry(metadata: env.metadata("d"), source: .data(diskTestBytes(8))))
        #expect(cache.totalBytes == 8)
    }

    @Test(
        "Files are flushed before the rename only when writes are durable; both ways they are installed whole",
        arguments: storages)
    func durability(storage: DiskCache.MetadataStorage) throws {
        let env = DiskCacheTestEnvironment()
        let cache = env.cache(storage: storage)
        #expect(!env.configuration.diskCacheWritesAreDurable, "off by default, as in TIP")
        #expect(cache.updateImageEntry(metadata: env.metadata("a"), source: .data(diskTestBytes(40))))
        let download = try cache.openTemporaryFile(forIdentifier: "b")
        try download.append(diskTestBytes(30))
        #expect(download.finalize(metadata: env.metadata("b"), complete: true))
        #expect(cache.flushCount.withLock { $0 } == 0)

        env.configuration.diskCacheWritesAreDurable = true
        #expect(cache.updateImageEntry(metadata: env.metadata("c"), source: .data(diskTestBytes(20))))
        let durable = try cache.openTemporaryFile(forIdentifier: "d")
        try durable.append(diskTestBytes(10))
        #expect(durable.finalize(metadata: env.metadata("d"), complete: true))
        // One flush per image file, plus one per sidecar when metadata lives in sidecars.
        #expect(cache.flushCount.withLock { $0 } == (storage == .sidecar ? 4 : 2))
        for (identifier, count) in [("a", 40), ("b", 30), ("c", 20), ("d", 10)] {
            #expect(cache.completeData(withIdentifier: identifier)?.1 == diskTestBytes(count))
        }
    }

    @Test("A discarded or dropped temporary file leaves nothing behind")
    func temporaryFileLifecycle() throws {
        let env = DiskCacheTestEnvironment()
        let cache = env.cache()
        let file = try cache.openTemporaryFile(forIdentifier: "x")
        try file.append(diskTestBytes(5))
        #expect(env.files().count == 1)
        file.discard()
        #expect(env.files().isEmpty)
        #expect(!file.finalize(metadata: env.metadata("x"), complete: true))
        do {
            let dropped = try cache.openTemporaryFile(forIdentifier: "y")
            try dropped.append(diskTestBytes(5))
        }
        #expect(env.files().isEmpty)
    }
}
