import Foundation
import Testing

@testable import TIP

/// A partial download on disk is found by a fetch that starts while the manifest still loads.
@Suite("Disk cache partials while loading")
struct DiskCacheLoadingPartialTests {
    @Test("a partial on disk is copied for a resume even while the manifest loads (the copy waits for it)")
    func partialWhileLoading() throws {
        let env = DiskCacheTestEnvironment()
        let cache = env.cache()
        let file = try cache.openTemporaryFile(forIdentifier: "a")
        try file.append(diskTestBytes(6))
        #expect(file.finalize(metadata: env.metadata("a", expectedLength: 50), complete: false))
        cache.tearDown()

        let gate = DispatchSemaphore(value: 0)
        let loading = DiskCache(
            directory: env.directory(), domain: env.domain, configuration: env.configuration,
            metadataStorage: nil, manifestLoadHook: { gate.wait() })
        // The load is held until after the copy was asked for; the copy must wait for it, not miss.
        DispatchQueue.global().asyncAfter(deadline: .now() + 0.2) { gate.signal() }
        let copy = try #require(loading.copyPartialToTemporaryFile(withIdentifier: "a"))
        #expect(copy.partial.byteCount == 6)
        #expect(try Data(contentsOf: copy.file.fileURL) == diskTestBytes(6))
        copy.file.discard()
        #expect(loading.entry(withIdentifier: "a", includeComplete: false)?.partial?.byteCount == 6)

        // An identifier with no partial file does not wait for a load.
        let gate2 = DispatchSemaphore(value: 0)
        let loading2 = DiskCache(
            directory: env.directory("other"), domain: env.domain, configuration: env.configuration,
            metadataStorage: nil, manifestLoadHook: { gate2.wait() })
        #expect(loading2.copyPartialToTemporaryFile(withIdentifier: "a") == nil)
        gate2.signal()
        loading2.waitUntilManifestLoaded()
    }
}
