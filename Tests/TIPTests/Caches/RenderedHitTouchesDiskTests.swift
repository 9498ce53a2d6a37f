import Foundation
import Testing

@testable import TIP

/// A rendered-cache hit refreshes the image's disk entry, as TIP's does: it keeps the head of the LRU and slides its
/// expiry while it is on screen, instead of ageing out of the disk cache.
@Suite("Rendered hits touch the disk cache")
struct RenderedHitTouchesDiskTests {
    @Test("a rendered hit slides the file's expiry and moves it to the LRU head; doNotResetExpiryOnAccess does neither")
    func renderedHitTouchesDisk() async throws {
        let clock = TestClock()
        let env = try SteppedPipelineEnvironment(clock: clock)
        defer { env.tearDown() }
        let jpeg = try DownloaderTestEnvironment.jpeg(width: 64, height: 48)
        let disk = env.pipeline.diskCache
        func request(_ name: String, _ options: ImageFetchOptions = []) -> GenericImageFetchRequest {
            var request = GenericImageFetchRequest(
                imageURL: SteppedPipelineEnvironment.url(name), identifier: nil,
                targetDimensions: CGSize(width: 32, height: 24),
                targetContentMode: .scaleAspectFit)
            request.options = options
            return request
        }
        @Sendable func lastAccess(_ name: String) -> Date? {
            disk.entry(withIdentifier: SteppedPipelineEnvironment.url(name).absoluteString, refreshes: false)?
                .complete?.metadata.lastAccess
        }
        @Sendable func newest() -> String? { disk.domain.sync { disk.lru.first?.value.identifier } }

        // Stored with a 10 s time to live, "shown" first (so the last one stored heads the LRU), then each fetched
        // once at the target: the rendered cache has all three.
        let names = ["shown.jpg", "kept.jpg", "idle.jpg"]
        for name in names {
            var store = GenericImageStoreRequest(imageURL: SteppedPipelineEnvironment.url(name))
            store.imageData = jpeg
            store.timeToLive = 10
            try await env.pipeline.storeImage(for: store)
        }
        for name in names { _ = try await env.pipeline.fetchImage(for: request(name)) }
        let stored = try #require(lastAccess("shown.jpg"))
        #expect(newest() == SteppedPipelineEnvironment.url("idle.jpg").absoluteString)

        clock.advance(6)
        let kept = try await env.pipeline.fetchImage(for: request("kept.jpg", [.doNotResetExpiryOnAccess]))
        let shown = try await env.pipeline.fetchImage(for: request("shown.jpg"))
        #expect(shown.imageSource == .memoryCache && kept.imageSource == .memoryCache)
        // The touch comes a few milliseconds later, off the fetch's thread.
        #expect(await eventually { lastAccess("shown.jpg") == stored.addingTimeInterval(6) })
        #expect(newest() == SteppedPipelineEnvironment.url("shown.jpg").absoluteString)
        #expect(lastAccess("kept.jpg") == stored)

        clock.advance(6)
        // Twelve seconds since the store: expired, unless the rendered hit six seconds ago slid the expiry.
        #expect(lastAccess("shown.jpg") != nil)
        #expect(lastAccess("kept.jpg") == nil)
        #expect(lastAccess("idle.jpg") == nil)
    }

    @Test("a fetch that goes through the fetch queue and hits the rendered cache touches the disk too")
    func queuedRenderedHitTouchesDisk() async throws {
        let clock = TestClock()
        let env = try SteppedPipelineEnvironment(clock: clock)
        defer { env.tearDown() }
        let url = SteppedPipelineEnvironment.url("queued.jpg")
        var store = GenericImageStoreRequest(imageURL: url)
        store.imageData = try DownloaderTestEnvironment.jpeg(width: 64, height: 48)
        store.timeToLive = 10
        try await env.pipeline.storeImage(for: store)
        let request = GenericImageFetchRequest(
            imageURL: url, identifier: nil, targetDimensions: CGSize(width: 32, height: 24),
            targetContentMode: .scaleAspectFit)
        _ = try await env.pipeline.fetchImage(for: request)
        let stored = try #require(
            env.pipeline.diskCache.entry(withIdentifier: url.absoluteString, refreshes: false)?.complete?.metadata)
        clock.advance(6)
        // Started off the callback queue: no synchronous hit; the operation finds the rendered image when it runs.
        let (result, _) = await env.fetchCached(request)
        #expect(result?.imageSource == .memoryCache)
        #expect(
            await eventually {
                env.pipeline.diskCache.entry(withIdentifier: url.absoluteString, refreshes: false)?.complete?.metadata
                    .lastAccess == stored.lastAccess.addingTimeInterval(6)
            })
    }
}
