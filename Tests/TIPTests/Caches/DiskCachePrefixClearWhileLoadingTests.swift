import Foundation
import Testing

@testable import TIP

/// Clearing an image's processed variants while the manifest loads: reads miss them at once, not only once the load
/// ends (a new process that clears an image right after launch must not serve the old processed image meanwhile).
@Suite("Disk cache: processed images cleared while the manifest loads")
struct DiskCachePrefixClearWhileLoadingTests {
    @Test("cleared variants are missed and deleted while loading; the original stays; totals are exact after")
    func clearedWhileLoading() throws {
        let env = DiskCacheTestEnvironment()
        let first = env.cache()
        let processed = "C" + ImageFetchProcessing.processedMarker + "tip.crop(target,centre)@32x32/2)"
        #expect(first.updateImageEntry(metadata: env.metadata("C"), source: .data(diskTestBytes(10))))
        #expect(first.updateImageEntry(metadata: env.metadata(processed), source: .data(diskTestBytes(4, seed: 2))))
        first.tearDown()

        let gate = DispatchSemaphore(value: 0)
        let loading = DiskCache(
            directory: env.directory(), domain: env.domain, configuration: env.configuration,
            metadataStorage: nil, manifestLoadHook: { gate.wait() })
        loading.clearImages(withIdentifierPrefix: ImageFetchProcessing.processedIdentifierPrefix(of: "C"))
        #expect(loading.entry(withIdentifier: processed) == nil)
        #expect(loading.entry(withIdentifier: "C")?.complete != nil)
        gate.signal()
        loading.waitUntilManifestLoaded()
        #expect(loading.entry(withIdentifier: processed) == nil)
        #expect(loading.count == 1 && loading.totalBytes == 10)
    }

    @Test("a processed image known only by its hashed name (identifier over 1 KiB) is missed too while loading")
    func unattachedClearedWhileLoading() throws {
        let env = DiskCacheTestEnvironment()
        let first = env.cache(storage: .extendedAttributes)
        let original = String(repeating: "c", count: 1_500)
        let processed = original + ImageFetchProcessing.processedMarker + "tip.crop(target,centre)@32x32/2)"
        #expect(first.updateImageEntry(metadata: env.metadata(original), source: .data(diskTestBytes(10))))
        #expect(first.updateImageEntry(metadata: env.metadata(processed), source: .data(diskTestBytes(4, seed: 2))))
        first.tearDown()

        let gate = DispatchSemaphore(value: 0)
        let loading = DiskCache(
            directory: env.directory(), domain: env.domain, configuration: env.configuration,
            metadataStorage: .extendedAttributes, manifestLoadHook: { gate.wait() })
        loading.clearImages(withIdentifierPrefix: ImageFetchProcessing.processedIdentifierPrefix(of: original))
        #expect(loading.entry(withIdentifier: processed) == nil)
        #expect(loading.entry(withIdentifier: original)?.complete != nil)
        gate.signal()
        loading.waitUntilManifestLoaded()
        #expect(loading.entry(withIdentifier: processed) == nil)
        #expect(loading.count == 1 && loading.totalBytes == 10)
    }
}
