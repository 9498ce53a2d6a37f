import Foundation
import Testing

@testable import TIP

/// The disk cache's index of stored processed images by their original (what drops an original's processed images
/// without a walk over every entry): the same entries go as a walk comparing prefixes would drop, and the index follows
/// every change of the manifest (stores, removals, eviction, a reload, a clear of everything).
@Suite("Disk cache: the index of processed images by original")
struct DiskCacheProcessedIndexTests {
    static let marker = ImageFetchProcessing.processedMarker

    /// A processed identifier of `original` (`variant` tells them apart).
    static func processed(_ original: String, _ variant: String) -> String { original + marker + variant + ")" }

    /// The index as the cache holds it (names by original).
    static func index(_ cache: DiskCache) -> [String: Set<String>] {
        cache.domain.sync { cache.processedEntryNames }
    }

    /// The index of processed entries known only by their hashed names (names by the original's file name).
    static func unattached(_ cache: DiskCache) -> [String: Set<String>] {
        cache.domain.sync { cache.unattachedProcessedEntryNames }
    }

    @Test("An original's change drops exactly its processed images, also after the manifest reloads")
    func dropsExactlyItsOwn() throws {
        let env = DiskCacheTestEnvironment()
        let cache = env.cache()
        // "A" and "AB" share a prefix; the NFD spelling of "é" is the same identifier as the NFC one for Swift.
        let nfc = "caf\u{E9}", nfd = "cafe\u{301}"
        let identifiers = [
            "A", "AB", Self.processed("A", "1"), Self.processed("A", "2"), Self.processed("AB", "1"), nfc,
            Self.processed(nfd, "1"),
        ]
        for (i, identifier) in identifiers.enumerated() {
            #expect(cache.updateImageEntry(metadata: env.metadata(identifier), source: .data(diskTestBytes(8 + i))))
        }
        #expect(Self.index(cache).keys.sorted() == ["A", "AB", nfd])
        cache.clearProcessedImages(of: "A")
        #expect(cache.entry(withIdentifier: Self.processed("A", "1")) == nil)
        #expect(cache.entry(withIdentifier: Self.processed("A", "2")) == nil)
        for kept in ["A", "AB", Self.processed("AB", "1")] {
            #expect(cache.entry(withIdentifier: kept)?.complete != nil, "\(kept)")
        }
        cache.clearProcessedImages(of: nfc)
        #expect(cache.entry(withIdentifier: Self.processed(nfd, "1")) == nil)
        #expect(Self.index(cache).keys.sorted() == ["AB"])

        // Stored again, then read by a new cache: its index comes from the manifest.
        #expect(
            cache.updateImageEntry(metadata: env.metadata(Self.processed("A", "3")), source: .data(diskTestBytes(5))))
        cache.tearDown()
        let reloaded = env.cache()
        reloaded.waitUntilManifestLoaded()
        #expect(Self.index(reloaded).keys.sorted() == ["A", "AB"])
        reloaded.clearProcessedImages(of: "AB")
        #expect(reloaded.entry(withIdentifier: Self.processed("AB", "1")) == nil)
        #expect(reloaded.entry(withIdentifier: Self.processed("A", "3"))?.complete != nil)
        #expect(reloaded.count == 4)
    }

    @Test("An original whose own identifier holds the marker: its processed images go by a walk, as before")
    func markerInTheOriginal() throws {
        let env = DiskCacheTestEnvironment()
        let cache = env.cache()
        let odd = Self.processed("X", "user")  // an original a caller named like a processed image
        let ofOdd = Self.processed(odd, "1")
        for identifier in ["X", odd, ofOdd] {
            #expect(cache.updateImageEntry(metadata: env.metadata(identifier), source: .data(diskTestBytes(6))))
        }
        cache.clearImages(withIdentifierPrefix: ImageFetchProcessing.processedIdentifierPrefix(of: odd))
        #expect(cache.entry(withIdentifier: ofOdd) == nil)
        #expect(cache.entry(withIdentifier: odd)?.complete != nil)
        #expect(cache.entry(withIdentifier: "X")?.complete != nil)
        #expect(Self.index(cache) == ["X": [SafeIdentifier.fileName(for: odd)]])
    }

    @Test("Removal, eviction and a clear of everything leave no stale name in the index")
    func followsEveryRemoval() throws {
        let env = DiskCacheTestEnvironment(maxCount: 3)
        let cache = env.cache()
        let first = Self.processed("A", "1"), second = Self.processed("A", "2")
        #expect(cache.updateImageEntry(metadata: env.metadata(first), source: .data(diskTestBytes(6))))
        #expect(cache.updateImageEntry(metadata: env.metadata(second), source: .data(diskTestBytes(6))))
        cache.clearImage(withIdentifier: second)
        #expect(Self.index(cache) == ["A": [SafeIdentifier.fileName(for: first)]])
        // Three more entries under a budget of three: the processed one, least recently used, is evicted.
        for identifier in ["B", "C", "D"] {
            #expect(cache.updateImageEntry(metadata: env.metadata(identifier), source: .data(diskTestBytes(6))))
        }
        #expect(cache.entry(withIdentifier: first) == nil)
        #expect(Self.index(cache).isEmpty)
        #expect(
            cache.updateImageEntry(metadata: env.metadata(Self.processed("B", "1")), source: .data(diskTestBytes(6))))
        #expect(!Self.index(cache).isEmpty)
        let cleared = DispatchSemaphore(value: 0)
        cache.clearAll { cleared.signal() }
        cleared.wait()
        #expect(Self.index(cache).isEmpty)
    }

    @Test(
        "A processed image of an original whose identifier is too long for a file name, after a reload",
        arguments: [DiskCache.MetadataStorage.sidecar, .extendedAttributes])
    func longIdentifier(storage: DiskCache.MetadataStorage) throws {
        let env = DiskCacheTestEnvironment()
        let cache = env.cache(storage: storage)
        // Past the 1,024 bytes an extended attribute keeps of an identifier: a reload knows the entry by its hashed
        // name alone until a read by identifier re-attaches it.
        let long = String(repeating: "x", count: 1_500), processed = Self.processed(long, "1")
        #expect(cache.updateImageEntry(metadata: env.metadata(long), source: .data(diskTestBytes(6))))
        #expect(cache.updateImageEntry(metadata: env.metadata(processed), source: .data(diskTestBytes(7))))
        cache.tearDown()
        let reloaded = env.cache(storage: storage)
        reloaded.waitUntilManifestLoaded()
        #expect(reloaded.entry(withIdentifier: processed)?.complete != nil)
        #expect(Self.index(reloaded).keys.sorted() == [long])
        #expect(Self.unattached(reloaded).isEmpty)  // the read re-attached it: indexed by its original's identifier
        reloaded.clearProcessedImages(of: long)
        #expect(reloaded.entry(withIdentifier: processed) == nil)
        #expect(reloaded.entry(withIdentifier: long)?.complete != nil)
    }

    @Test(
        "A processed image read back without its identifier goes when its original changes before any read of it",
        arguments: [DiskCache.MetadataStorage.sidecar, .extendedAttributes], [1_500, 1_020])
    func unattachedAfterReload(storage: DiskCache.MetadataStorage, originalLength: Int) throws {
        let env = DiskCacheTestEnvironment()
        let cache = env.cache(storage: storage)
        // 1,500: the original's identifier is too long for an extended attribute too; 1,020: only its processed
        // images' are. Either way a reload knows those by their hashed names alone.
        let original = String(repeating: "x", count: originalLength), other = String(repeating: "z", count: 1_500)
        let processed = Self.processed(original, "1"), ofOther = Self.processed(other, "1")
        #expect(processed.utf8.count > DiskCacheMetadata.maximumAttributeIdentifierLength)
        for identifier in [original, processed, other, ofOther] {
            #expect(cache.updateImageEntry(metadata: env.metadata(identifier), source: .data(diskTestBytes(6))))
        }
        cache.tearDown()
        let reloaded = env.cache(storage: storage)
        reloaded.waitUntilManifestLoaded()
        if storage == .extendedAttributes {
            #expect(Self.index(reloaded).isEmpty)
            #expect(
                Self.unattached(reloaded) == [
                    SafeIdentifier.fileName(for: original): [SafeIdentifier.fileName(for: processed)],
                    SafeIdentifier.fileName(for: other): [SafeIdentifier.fileName(for: ofOther)],
                ])
        }
        // The original changes (a larger image stored) before anything reads its processed image.
        #expect(
            reloaded.updateImageEntry(
                metadata: env.metadata(original, width: 200, height: 200), source: .data(diskTestBytes(9))))
        reloaded.clearProcessedImages(of: original)
        #expect(reloaded.entry(withIdentifier: processed) == nil)
        #expect(reloaded.entry(withIdentifier: ofOther)?.complete != nil)
        #expect(reloaded.entry(withIdentifier: original)?.complete != nil)
        #expect(Self.unattached(reloaded).isEmpty)
        #expect(Self.index(reloaded) == [other: [SafeIdentifier.fileName(for: ofOther)]])
    }
}
