import Foundation
import Testing

@testable import TIP

/// `ImageFetchOptions.doNotResetExpiryOnAccess` on disk reads, as on memory reads.
@Suite("Fetch: reads that leave expiry alone")
struct ImageFetchExpiryOptionTests {
    @Test("a disk read with doNotResetExpiryOnAccess does not slide the file's expiry; a plain read does")
    func diskReadKeepsExpiry() async throws {
        let clock = TestClock()
        let env = try SteppedPipelineEnvironment(clock: clock)
        defer { env.tearDown() }
        let jpeg = try DownloaderTestEnvironment.jpeg(width: 64, height: 48)
        func diskOnly(_ name: String, options: ImageFetchOptions = []) async -> ImageFetchResult? {
            env.pipeline.clearMemoryCaches()
            var request = GenericImageFetchRequest(imageURL: SteppedPipelineEnvironment.url(name))
            request.options = options
            request.loadingSources = [.diskCache]
            return await env.fetchCached(request).result
        }
        // Stored with a 10 s time to live (a manual store: no HTTP freshness of its own).
        for name in ["kept.jpg", "slid.jpg"] {
            var store = GenericImageStoreRequest(imageURL: SteppedPipelineEnvironment.url(name))
            store.imageData = jpeg
            store.timeToLive = 10
            try await env.pipeline.storeImage(for: store)
        }
        clock.advance(6)
        #expect(await diskOnly("kept.jpg", options: [.doNotResetExpiryOnAccess])?.imageSource == .diskCache)
        #expect(await diskOnly("slid.jpg")?.imageSource == .diskCache)
        clock.advance(6)
        // Twelve seconds since the store: expired, unless a read slid the expiry six seconds ago.
        #expect(await diskOnly("kept.jpg") == nil)
        #expect(await diskOnly("slid.jpg")?.imageSource == .diskCache)
    }
}
