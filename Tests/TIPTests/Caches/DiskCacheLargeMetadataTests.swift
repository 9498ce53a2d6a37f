import Foundation
import Testing

@testable import TIP

/// Metadata that outgrows the file system's extended attributes (ext4 keeps about 4 KB per file): a URL of
/// 5,000 characters, an 8 KB entity tag. Such an entry keeps its metadata in a sidecar, is served, survives a
/// restart and goes with its sidecar.
@Suite("Disk cache: metadata too large for extended attributes")
struct DiskCacheLargeMetadataTests {
    @Test(
        "a 5,000-character URL and an 8 KB entity tag: stored, served, reloaded, removed with the sidecar",
        arguments: [(5_000, 10), (200, 8_192)])
    func largeMetadata(urlLength: Int, tagLength: Int) throws {
        let env = DiskCacheTestEnvironment()
        let cache = env.cache(storage: .extendedAttributes)
        let url = "https://example.com/" + String(repeating: "p", count: urlLength) + ".jpg"
        let tag = "\"" + String(repeating: "t", count: tagLength) + "\""
        let identifier = "long-metadata"
        let bytes = diskTestBytes(3_000)
        cache.updateImageEntry(metadata: env.metadata(identifier, url: url, entityTag: tag), source: .data(bytes))
        let entry = try #require(cache.entry(withIdentifier: identifier)?.complete, "the entry was not written")
        #expect(entry.metadata.url.absoluteString == url)
        #expect(entry.metadata.entityTag == tag)
        #expect(cache.completeData(of: entry) == bytes)
        #expect(env.files().contains { $0.hasSuffix("#meta") })
        #expect(env.recorder.count(.diskCacheWriteFailed) == 0)

        // A new cache on the same directory (a restart) finds it through its manifest.
        cache.tearDown()
        let reopened = env.cache(storage: .extendedAttributes)
        let reloaded = try #require(reopened.entry(withIdentifier: identifier)?.complete)
        #expect(reloaded.metadata.url.absoluteString == url)
        #expect(reopened.completeData(of: reloaded) == bytes)

        reopened.clearImage(withIdentifier: identifier)
        #expect(env.files().isEmpty, "no file left: \(env.files())")
    }
}
