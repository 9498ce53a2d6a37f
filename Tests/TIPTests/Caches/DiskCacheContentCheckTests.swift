import Foundation
import Testing

@testable import TIP

/// Every disk-cache file records its length and CRC-32; bytes that no longer match are never served.
@Suite("Disk cache: contents checked against their length and checksum")
struct DiskCacheContentCheckTests {
    static let storages: [DiskCache.MetadataStorage] = [.extendedAttributes, .sidecar]

    /// Rewrites a file's bytes in place: the same inode, so its extended attributes (and a sidecar's inode) stay.
    private func overwriteInPlace(_ url: URL, with bytes: Data) throws {
        let handle = try FileHandle(forWritingTo: url)
        try handle.truncate(atOffset: 0)
        try handle.write(contentsOf: bytes)
        try handle.close()
    }

    private func completeFile(_ cache: DiskCache, _ identifier: String) throws -> URL {
        try #require(cache.entry(withIdentifier: identifier)?.complete?.fileURL)
    }

    @Test("the length and CRC-32 are recorded at install and survive a restart", arguments: storages)
    func recorded(storage: DiskCache.MetadataStorage) throws {
        let env = DiskCacheTestEnvironment()
        let bytes = diskTestBytes(5_000)
        do {
            let cache = env.cache(storage: storage)
            #expect(cache.updateImageEntry(metadata: env.metadata("a"), source: .data(bytes)))
            let metadata = try #require(cache.entry(withIdentifier: "a")?.complete?.metadata)
            #expect(metadata.contentLength == 5_000)
            #expect(metadata.contentChecksum == ContentChecksum.of(bytes))
        }
        let reopened = env.cache(storage: storage)
        let metadata = try #require(reopened.entry(withIdentifier: "a")?.complete?.metadata)
        #expect(metadata.contentLength == 5_000)
        #expect(metadata.contentChecksum == ContentChecksum.of(bytes))
        #expect(reopened.completeData(withIdentifier: "a")?.data == bytes)
    }

    @Test("CRC-32 is the standard one (check value of \"123456789\")")
    func checkValue() {
        #expect(ContentChecksum.of(Data("123456789".utf8)) == 0xCBF4_3926)
        #expect(ContentChecksum.of(Data()) == 0)
    }

    @Test("a file truncated while the cache runs is removed, reported and missed", arguments: storages)
    func truncatedAtRunTime(storage: DiskCache.MetadataStorage) throws {
        let env = DiskCacheTestEnvironment()
        let cache = env.cache(storage: storage)
        let bytes = diskTestBytes(80_000)
        #expect(cache.updateImageEntry(metadata: env.metadata("a"), source: .data(bytes)))
        let file = try completeFile(cache, "a")
        try overwriteInPlace(file, with: bytes.prefix(40_000))

        #expect(cache.completeData(withIdentifier: "a") == nil)
        #expect(!FileManager.default.fileExists(atPath: file.path))
        #expect(cache.entry(withIdentifier: "a") == nil)
        #expect(cache.totalBytes == 0)
        let infos = env.recorder.infos(.diskCacheEntryDamaged)
        #expect(infos.count == 1)
        #expect(infos.first?[ProblemInfoKey.imageIdentifier] as? String == "a")
        #expect(infos.first?[ProblemInfoKey.path] as? String == file.path)
        #expect((infos.first?[ProblemInfoKey.error] as? String)?.contains("40000 bytes, 80000 were written") == true)
    }

    @Test("a file truncated while the cache was closed is dropped when the cache opens", arguments: storages)
    func truncatedAtRest(storage: DiskCache.MetadataStorage) throws {
        let env = DiskCacheTestEnvironment()
        let bytes = diskTestBytes(3_000)
        let file: URL
        do {
            let cache = env.cache(storage: storage)
            #expect(cache.updateImageEntry(metadata: env.metadata("a"), source: .data(bytes)))
            #expect(cache.updateImageEntry(metadata: env.metadata("b"), source: .data(bytes)))
            file = try completeFile(cache, "a")
        }
        try overwriteInPlace(file, with: bytes.prefix(1_500))
        let reopened = env.cache(storage: storage)
        #expect(reopened.entry(withIdentifier: "a") == nil)
        #expect(!FileManager.default.fileExists(atPath: file.path))
        #expect(reopened.completeData(withIdentifier: "b")?.data == bytes)
        #expect(reopened.totalBytes == 3_000)
    }

    @Test(
        "flipped bytes (same length) are caught by the checksum, at run time and after a restart", arguments: storages)
    func flippedBytes(storage: DiskCache.MetadataStorage) throws {
        let env = DiskCacheTestEnvironment()
        let bytes = diskTestBytes(10_000)
        var flipped = bytes
        flipped[7_777] ^= 0x01
        do {
            let cache = env.cache(storage: storage)
            #expect(cache.updateImageEntry(metadata: env.metadata("run"), source: .data(bytes)))
            #expect(cache.updateImageEntry(metadata: env.metadata("rest"), source: .data(bytes)))
            try overwriteInPlace(try completeFile(cache, "run"), with: flipped)
            #expect(cache.completeData(withIdentifier: "run") == nil)
            #expect(cache.entry(withIdentifier: "run") == nil)
            try overwriteInPlace(try completeFile(cache, "rest"), with: flipped)
        }
        let reopened = env.cache(storage: storage)
        // Same length: the entry loads, and its first read finds the damage.
        #expect(reopened.entry(withIdentifier: "rest") != nil)
        #expect(reopened.completeData(withIdentifier: "rest") == nil)
        #expect(reopened.entry(withIdentifier: "rest") == nil)
        #expect(reopened.totalBytes == 0)
        let errors = env.recorder.infos(.diskCacheEntryDamaged).compactMap { $0[ProblemInfoKey.error] as? String }
        #expect(errors.count == 2)
        #expect(errors.allSatisfy { $0.contains("CRC-32") })
    }

    @Test(
        "two entries' files swapped (same length, each keeping the other's metadata) serve neither picture",
        arguments: storages)
    func swappedFiles(storage: DiskCache.MetadataStorage) throws {
        let env = DiskCacheTestEnvironment()
        let cat = diskTestBytes(4_096, seed: 1)
        let dog = diskTestBytes(4_096, seed: 2)
        let cache = env.cache(storage: storage)
        #expect(cache.updateImageEntry(metadata: env.metadata("cat"), source: .data(cat)))
        #expect(cache.updateImageEntry(metadata: env.metadata("dog"), source: .data(dog)))
        try overwriteInPlace(try completeFile(cache, "cat"), with: dog)
        try overwriteInPlace(try completeFile(cache, "dog"), with: cat)
        #expect(cache.completeData(withIdentifier: "cat") == nil)
        #expect(cache.completeData(withIdentifier: "dog") == nil)
        #expect(env.recorder.count(.diskCacheEntryDamaged) == 2)
        #expect(env.files().filter { !$0.hasPrefix("#") }.isEmpty)
    }

    @Test("a damaged copy is never handed out: copyCompleteFile removes it and throws ENOENT")
    func copyOut() throws {
        let env = DiskCacheTestEnvironment()
        let cache = env.cache()
        let bytes = diskTestBytes(2_000)
        #expect(cache.updateImageEntry(metadata: env.metadata("a"), source: .data(bytes)))
        var damaged = bytes
        damaged[0] ^= 0x80
        try overwriteInPlace(try completeFile(cache, "a"), with: damaged)
        #expect(throws: POSIXError(.ENOENT)) { try cache.copyCompleteFile(withIdentifier: "a") }
        #expect(cache.entry(withIdentifier: "a") == nil)
        #expect(env.recorder.count(.diskCacheEntryDamaged) == 1)
    }

    @Test("a damaged partial is not resumed: it is removed and reported, the complete file stays", arguments: storages)
    func damagedPartial(storage: DiskCache.MetadataStorage) throws {
        let env = DiskCacheTestEnvironment()
        let cache = env.cache(storage: storage)
        #expect(cache.updateImageEntry(metadata: env.metadata("id"), source: .data(diskTestBytes(40))))
        let file = try cache.openTemporaryFile(forIdentifier: "id")
        try file.append(diskTestBytes(600))
        #expect(file.finalize(metadata: env.metadata("id", width: 400, expectedLength: 1_000), complete: false))
        let partial = try #require(cache.entry(withIdentifier: "id")?.partial)
        var damaged = diskTestBytes(600)
        damaged[300] ^= 0xFF
        try overwriteInPlace(partial.fileURL, with: damaged)

        #expect(cache.copyPartialToTemporaryFile(withIdentifier: "id") == nil)
        #expect(cache.entry(withIdentifier: "id")?.partial == nil)
        #expect(cache.completeData(withIdentifier: "id")?.data == diskTestBytes(40))
        #expect(env.recorder.count(.diskCacheEntryDamaged) == 1)
        #expect(cache.totalBytes == 40)
    }

    @Test("an intact partial resumes, and the completed file records the whole download's length and checksum")
    func resumedPartial() throws {
        let env = DiskCacheTestEnvironment()
        let cache = env.cache()
        let file = try cache.openTemporaryFile(forIdentifier: "id")
        try file.append(diskTestBytes(600))
        #expect(file.finalize(metadata: env.metadata("id", expectedLength: 1_000), complete: false))
        let (resumed, _) = try #require(cache.copyPartialToTemporaryFile(withIdentifier: "id"))
        try resumed.append(diskTestBytes(400, seed: 3))
        #expect(resumed.finalize(metadata: env.metadata("id"), complete: true))
        let whole = diskTestBytes(600) + diskTestBytes(400, seed: 3)
        let metadata = try #require(cache.entry(withIdentifier: "id")?.complete?.metadata)
        #expect(metadata.contentLength == 1_000)
        #expect(metadata.contentChecksum == ContentChecksum.of(whole))
        #expect(cache.completeData(withIdentifier: "id")?.data == whole)
        #expect(env.recorder.count(.diskCacheEntryDamaged) == 0)
    }

    @Test("entries written before lengths and checksums were recorded are still served")
    func legacyEntries() throws {
        let env = DiskCacheTestEnvironment()
        let bytes = diskTestBytes(1_234)
        let url: URL
        do {
            let cache = env.cache()
            #expect(cache.updateImageEntry(metadata: env.metadata("old"), source: .data(bytes)))
            url = try completeFile(cache, "old")
        }
        // Rewrite the attribute without `len` and `crc`, as an earlier version wrote it.
        var legacy = env.metadata("old")
        legacy.contentLength = nil
        legacy.contentChecksum = nil
        #expect(!legacy.encodedValues.contains { $0.key == "len" || $0.key == "crc" })
        try ExtendedAttributes(path: url.path).set(DiskCacheMetadata.packedAttributeName, bytes: legacy.packed)
        let reopened = env.cache()
        #expect(reopened.entry(withIdentifier: "old")?.complete?.metadata.contentChecksum == nil)
        #expect(reopened.completeData(withIdentifier: "old")?.data == bytes)
    }

    @Test("len and crc round-trip through the packed form; malformed values read as absent")
    func encoding() throws {
        let env = DiskCacheTestEnvironment()
        var metadata = env.metadata("x")
        metadata.contentLength = 123_456
        metadata.contentChecksum = 0xDEAD_BEEF
        let decoded = try #require(metadata.packed.withUnsafeBytes { DiskCacheMetadata(packed: $0) })
        #expect(decoded == metadata)

        var values = Dictionary(uniqueKeysWithValues: metadata.encodedValues.map { ($0.key, $0.bytes) })
        values["crc"] = [1, 2, 3]
        values["len"] = withUnsafeBytes(of: -5.0) { Array($0) }
        let malformed = try #require(DiskCacheMetadata(decoding: { values[$0] }))
        #expect(malformed.contentChecksum == nil)
        #expect(malformed.contentLength == nil)
    }
}
