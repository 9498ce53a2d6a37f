import Foundation
import Testing

@testable import TIP

@Suite("Disk cache tie-breaks")
struct DiskCacheTieBreakTests {
    struct Variant: Sendable, CustomStringConvertible {
        var width: Int
        var height: Int
        var url: String
        var placeholder = false
        var description: String { "\(width)x\(height) \(url)\(placeholder ? " placeholder" : "")" }
    }

    struct StoreCase: Sendable, CustomStringConvertible {
        var old: Variant?
        var new: Variant
        var forced = false
        var replaces: Bool
        var description: String { "\(old?.description ?? "none") ← \(new)\(forced ? " forced" : "") ⇒ \(replaces)" }
    }

    static let storeCases: [StoreCase] = [
        StoreCase(old: nil, new: Variant(width: 10, height: 10, url: "a"), replaces: true),
        StoreCase(
            old: Variant(width: 100, height: 100, url: "a"), new: Variant(width: 100, height: 100, url: "a"),
            replaces: false),
        StoreCase(
            old: Variant(width: 100, height: 100, url: "a"), new: Variant(width: 100, height: 100, url: "a"),
            forced: true, replaces: true),
        StoreCase(
            old: Variant(width: 100, height: 100, url: "a"), new: Variant(width: 10, height: 10, url: "b"),
            forced: true, replaces: true),
        StoreCase(
            old: Variant(width: 100, height: 100, url: "a"), new: Variant(width: 100, height: 100, url: "b"),
            replaces: true),
        StoreCase(
            old: Variant(width: 100, height: 100, url: "a"), new: Variant(width: 50, height: 200, url: "a"),
            replaces: true),
        StoreCase(
            old: Variant(width: 100, height: 100, url: "a"), new: Variant(width: 99, height: 100, url: "b"),
            replaces: false),
        StoreCase(
            old: Variant(width: 100, height: 100, url: "a"), new: Variant(width: 200, height: 200, url: "a"),
            replaces: true),
        StoreCase(
            old: Variant(width: 100, height: 100, url: "a", placeholder: true),
            new: Variant(width: 10, height: 10, url: "b"), replaces: true),
        StoreCase(
            old: Variant(width: 100, height: 100, url: "a"),
            new: Variant(width: 10, height: 10, url: "b", placeholder: true), replaces: false),
        // A placeholder never replaces a real image, however large (TIP's placeholder mismatch); another placeholder
        // it may.
        StoreCase(
            old: Variant(width: 100, height: 100, url: "a"),
            new: Variant(width: 200, height: 100, url: "b", placeholder: true), replaces: false),
        StoreCase(
            old: Variant(width: 100, height: 100, url: "a", placeholder: true),
            new: Variant(width: 200, height: 100, url: "b", placeholder: true), replaces: true),
        StoreCase(
            old: Variant(width: 100, height: 100, url: "a", placeholder: true),
            new: Variant(width: 50, height: 50, url: "b", placeholder: true), replaces: false),
    ]

    private func metadata(
        _ env: DiskCacheTestEnvironment, _ variant: Variant, expectedLength: Int64 = 0,
        lastModified: String? = "Mon, 01 Jan 2024 00:00:00 GMT", entityTag: String? = nil
    ) -> DiskCacheMetadata {
        env.metadata(
            "id", url: "https://example.com/\(variant.url)", width: variant.width, height: variant.height,
            placeholder: variant.placeholder, lastModified: lastModified, entityTag: entityTag,
            expectedLength: expectedLength)
    }

    @Test(
        "updateImageEntry: forced, placeholder→real, or larger-or-equal area with another URL/dims",
        arguments: storeCases)
    func store(_ test: StoreCase) {
        let env = DiskCacheTestEnvironment()
        let cache = env.cache()
        if let old = test.old {
            #expect(cache.updateImageEntry(metadata: metadata(env, old), source: .data(diskTestBytes(10, seed: 1))))
        }
        let stored = cache.updateImageEntry(
            metadata: metadata(env, test.new), source: .data(diskTestBytes(20, seed: 2)), forced: test.forced)
        #expect(stored == test.replaces)
        let expected = test.replaces ? test.new : test.old
        let complete = cache.entry(withIdentifier: "id")?.complete
        #expect(complete?.metadata.url.lastPathComponent == expected?.url)
        #expect(complete?.metadata.width == expected?.width)
        #expect(
            cache.completeData(withIdentifier: "id")?.data
                == diskTestBytes(test.replaces ? 20 : 10, seed: test.replaces ? 2 : 1))
        #expect(cache.totalBytes == (test.replaces ? 20 : 10))
    }

    struct DownloadCase: Sendable, CustomStringConvertible {
        var old: Variant?
        var new: Variant
        var replaces: Bool
        var description: String { "\(old?.description ?? "none") ← \(new) ⇒ \(replaces)" }
    }

    static let downloadCases: [DownloadCase] = [
        DownloadCase(old: nil, new: Variant(width: 10, height: 10, url: "a"), replaces: true),
        DownloadCase(
            old: Variant(width: 100, height: 100, url: "a"), new: Variant(width: 100, height: 100, url: "b"),
            replaces: false),
        DownloadCase(
            old: Variant(width: 100, height: 100, url: "a"), new: Variant(width: 50, height: 200, url: "b"),
            replaces: false),
        DownloadCase(
            old: Variant(width: 100, height: 100, url: "a"), new: Variant(width: 101, height: 100, url: "a"),
            replaces: true),
        DownloadCase(
            old: Variant(width: 100, height: 100, url: "a"), new: Variant(width: 50, height: 50, url: "b"),
            replaces: false),
        DownloadCase(
            old: Variant(width: 100, height: 100, url: "a", placeholder: true),
            new: Variant(width: 5, height: 5, url: "b"), replaces: true),
    ]

    @Test("Downloaded complete: replaces only when strictly larger or over a placeholder", arguments: downloadCases)
    func downloadComplete(_ test: DownloadCase) throws {
        let env = DiskCacheTestEnvironment()
        let cache = env.cache()
        if let old = test.old {
            #expect(cache.updateImageEntry(metadata: metadata(env, old), source: .data(diskTestBytes(10, seed: 1))))
        }
        let file = try cache.openTemporaryFile(forIdentifier: "id")
        try file.append(diskTestBytes(20, seed: 2))
        #expect(file.finalize(metadata: metadata(env, test.new), complete: true) == test.replaces)
        #expect(
            cache.completeData(withIdentifier: "id")?.data
                == diskTestBytes(test.replaces ? 20 : 10, seed: test.replaces ? 2 : 1))
        #expect(!env.files().contains { $0.hasPrefix("#") })
        #expect(cache.totalBytes == (test.replaces ? 20 : 10))
    }

    struct PartialCase: Sendable, CustomStringConvertible {
        var complete: Variant?
        var partial: Variant
        var lastModified: String?
        var entityTag: String?
        var kept: Bool
        var description: String {
            """
            \(complete?.description ?? "none") + partial \(partial) LMD:\(lastModified != nil) \
            ETag:\(entityTag != nil) ⇒ \(kept)
            """
        }
    }

    static let partialCases: [PartialCase] = [
        PartialCase(
            complete: nil, partial: Variant(width: 10, height: 10, url: "a"),
            lastModified: "Mon, 01 Jan 2024 00:00:00 GMT", kept: true),
        PartialCase(complete: nil, partial: Variant(width: 10, height: 10, url: "a"), entityTag: "\"e\"", kept: true),
        PartialCase(complete: nil, partial: Variant(width: 10, height: 10, url: "a"), kept: false),
        PartialCase(
            complete: nil, partial: Variant(width: 10, height: 10, url: "a", placeholder: true),
            lastModified: "Mon, 01 Jan 2024", kept: false),
        PartialCase(
            complete: Variant(width: 100, height: 100, url: "a"), partial: Variant(width: 100, height: 100, url: "b"),
            lastModified: "Mon, 01 Jan 2024", kept: false),
        PartialCase(
            complete: Variant(width: 100, height: 100, url: "a"), partial: Variant(width: 50, height: 50, url: "b"),
            lastModified: "Mon, 01 Jan 2024", kept: false),
        PartialCase(
            complete: Variant(width: 100, height: 100, url: "a"), partial: Variant(width: 101, height: 100, url: "b"),
            lastModified: "Mon, 01 Jan 2024", kept: true),
    ]

    @Test(
        "Downloaded partial: needs a validator, no placeholder, and a larger area than any complete",
        arguments: partialCases)
    func downloadPartial(_ test: PartialCase) throws {
        let env = DiskCacheTestEnvironment()
        let cache = env.cache()
        if let complete = test.complete {
            #expect(
                cache.updateImageEntry(metadata: metadata(env, complete), source: .data(diskTestBytes(10, seed: 1))))
        }
        let file = try cache.openTemporaryFile(forIdentifier: "id")
        try file.append(diskTestBytes(7, seed: 3))
        let kept = file.finalize(
            metadata: metadata(
                env, test.partial, expectedLength: 100, lastModified: test.lastModified, entityTag: test.entityTag),
            complete: false)
        #expect(kept == test.kept)
        let entry = cache.entry(withIdentifier: "id")
        #expect((entry?.partial != nil) == test.kept)
        #expect(entry?.complete?.byteCount == (test.complete == nil ? nil : 10))
        #expect(cache.totalBytes == (test.complete == nil ? 0 : 10) + (test.kept ? 7 : 0))
        if let partial = entry?.partial {
            #expect(cache.data(of: partial) == diskTestBytes(7, seed: 3))
        }
    }

    @Test(
        "Completing a download removes a partial of smaller or equal area and keeps a larger one",
        arguments: [(100, false), (150, false), (151, true)])
    func completionDropsSmallerPartial(partialWidth: Int, survives: Bool) throws {
        let env = DiskCacheTestEnvironment()
        let cache = env.cache()
        let partialFile = try cache.openTemporaryFile(forIdentifier: "id")
        try partialFile.append(diskTestBytes(5))
        #expect(
            partialFile.finalize(
                metadata: metadata(env, Variant(width: partialWidth, height: 100, url: "p"), expectedLength: 50),
                complete: false))
        let completeFile = try cache.openTemporaryFile(forIdentifier: "id")
        try completeFile.append(diskTestBytes(30))
        #expect(
            completeFile.finalize(metadata: metadata(env, Variant(width: 150, height: 100, url: "c")), complete: true))
        #expect((cache.entry(withIdentifier: "id")?.partial != nil) == survives)
        #expect(env.files().contains("id.tmp") == survives)
        #expect(cache.totalBytes == 30 + (survives ? 5 : 0))

        // The store path applies the same rule.
        let env2 = DiskCacheTestEnvironment()
        let cache2 = env2.cache()
        let partial2 = try cache2.openTemporaryFile(forIdentifier: "id")
        try partial2.append(diskTestBytes(5))
        #expect(
            partial2.finalize(
                metadata: metadata(env2, Variant(width: partialWidth, height: 100, url: "p"), expectedLength: 50),
                complete: false))
        #expect(
            cache2.updateImageEntry(
                metadata: metadata(env2, Variant(width: 150, height: 100, url: "c")), source: .data(diskTestBytes(30))))
        #expect((cache2.entry(withIdentifier: "id")?.partial != nil) == survives)
    }

    @Test("Per-entry cap: an oversize store is refused, the replaced file deleted, and a problem posted")
    func perEntryCap() {
        let env = DiskCacheTestEnvironment(maxBytes: 6_000, ratio: 6)
        let cache = env.cache()
        #expect(env.domain.sync { env.domain.budget.maxBytesPerEntry } == 1_000)
        #expect(
            cache.updateImageEntry(
                metadata: env.metadata("id", url: "https://x/a"), source: .data(diskTestBytes(1_000))))
        #expect(
            !cache.updateImageEntry(
                metadata: env.metadata("id", url: "https://x/b"), source: .data(diskTestBytes(1_001))))
        #expect(env.recorder.count(.imageTooLargeToStoreInDiskCache) == 1)
        #expect(cache.entry(withIdentifier: "id") == nil)
        #expect(env.files().isEmpty)
        #expect(cache.totalBytes == 0)
        #expect(env.domain.sync { env.domain.budget.totalBytes } == 0)
        // Not replacing (same URL and dims): nothing happens and nothing is deleted.
        #expect(
            cache.updateImageEntry(metadata: env.metadata("id2", url: "https://x/a"), source: .data(diskTestBytes(10))))
        #expect(
            !cache.updateImageEntry(
                metadata: env.metadata("id2", url: "https://x/a"), source: .data(diskTestBytes(5_000))))
        #expect(cache.entry(withIdentifier: "id2") != nil)
        #expect(env.recorder.count(.imageTooLargeToStoreInDiskCache) == 1)
    }

    @Test(
        """
        Per-entry cap on downloads: an oversize complete or partial file is discarded (a complete one posts the \
        problem), the entry keeps what it had and no other cache loses an entry
        """)
    func perEntryCapOnDownloads() throws {
        let env = DiskCacheTestEnvironment(maxBytes: 6_000, ratio: 6)
        let cache = env.cache(), other = env.cache("other")
        #expect(
            cache.updateImageEntry(
                metadata: env.metadata("id", width: 10, height: 10), source: .data(diskTestBytes(900))))
        #expect(other.updateImageEntry(metadata: env.metadata("kept"), source: .data(diskTestBytes(1_000))))

        // Larger in area, so it would replace the cached image, but over 6,000 / 6 bytes.
        let oversize = try cache.openTemporaryFile(forIdentifier: "id")
        try oversize.append(diskTestBytes(1_001, seed: 2))
        #expect(!oversize.finalize(metadata: env.metadata("id", width: 200, height: 200), complete: true))
        #expect(env.recorder.count(.imageTooLargeToStoreInDiskCache) == 1)
        #expect(cache.completeData(withIdentifier: "id")?.data == diskTestBytes(900))
        #expect(other.completeData(withIdentifier: "kept")?.data == diskTestBytes(1_000))
        #expect(env.domain.sync { env.domain.budget.totalBytes } == 1_900)

        let partial = try cache.openTemporaryFile(forIdentifier: "id")
        try partial.append(diskTestBytes(1_001, seed: 3))
        #expect(
            !partial.finalize(
                metadata: env.metadata("id", width: 300, height: 300, expectedLength: 5_000), complete: false))
        #expect(cache.entry(withIdentifier: "id")?.partial == nil)
        #expect(env.recorder.count(.imageTooLargeToStoreInDiskCache) == 1)

        // At the cap, a download is kept.
        let fitting = try cache.openTemporaryFile(forIdentifier: "id")
        try fitting.append(diskTestBytes(1_000, seed: 4))
        #expect(fitting.finalize(metadata: env.metadata("id", width: 200, height: 200), complete: true))
        #expect(cache.completeData(withIdentifier: "id")?.data == diskTestBytes(1_000, seed: 4))
        #expect(!env.files().contains { $0.hasPrefix("#") })
        #expect(env.domain.sync { env.domain.budget.totalBytes } == 2_000)
    }

    @Test("A store can copy another cache's file")
    func storeFromFile() throws {
        let env = DiskCacheTestEnvironment()
        let source = env.cache("one")
        let target = env.cache("two")
        #expect(source.updateImageEntry(metadata: env.metadata("id"), source: .data(diskTestBytes(500))))
        let part = try #require(source.entry(withIdentifier: "id")?.complete)
        #expect(target.updateImageEntry(metadata: part.metadata, source: .file(part.fileURL), forced: true))
        #expect(target.completeData(withIdentifier: "id")?.data == diskTestBytes(500))
        #expect(env.domain.sync { env.domain.budget.totalBytes } == 1_000)
    }
}
