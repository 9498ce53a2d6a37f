import Foundation
import Testing

@testable import TIP

/// Nuke's request options in TIP's terms: loading sources for reads, options for writes.
@Suite("Fetch: request options (Nuke's equivalents)")
struct ImageFetchRequestOptionsTests {
    private static let size = CGSize(width: 80, height: 80)

    private func request(_ name: String, sources: ImageFetchLoadingSources = .all, options: ImageFetchOptions = [])
        -> GenericImageFetchRequest
    {
        var request = GenericImageFetchRequest(
            imageURL: SteppedPipelineEnvironment.url(name), identifier: nil,
            targetDimensions: Self.size, targetContentMode: .scaleAspectFit)
        request.loadingSources = sources
        request.options = options
        return request
    }

    @Test("return cached data only (.cachesOnly): a miss fails with couldNotLoadImage and sends no request")
    func cachesOnlyMiss() async throws {
        let env = try SteppedPipelineEnvironment()
        defer { env.tearDown() }
        let outcome = await env.fetchCached(request("missing.jpg", sources: .cachesOnly))
        #expect((outcome.error as? ImageFetchError)?.code == .couldNotLoadImage)
        #expect(env.provider.count == 0)
        // A hit is served.
        _ = try await env.fetch(
            request("there.jpg"), serving: DownloaderTestEnvironment.jpeg(width: 160, height: 120, seed: 1))
        #expect(await env.fetchCached(request("there.jpg", sources: .cachesOnly)).result?.imageSource == .memoryCache)
    }

    @Test("reload ignoring the caches ([.network]): downloads again although every cache holds the image")
    func reload() async throws {
        let env = try SteppedPipelineEnvironment()
        defer { env.tearDown() }
        let jpeg = try DownloaderTestEnvironment.jpeg(width: 160, height: 120, seed: 2)
        _ = try await env.fetch(request("r.jpg"), serving: jpeg)
        #expect(await env.isSynchronousHit(request("r.jpg")))
        let outcome = try await env.fetch(request("r.jpg", sources: .network), serving: jpeg)
        #expect(outcome.result?.imageSource == .network)
        #expect(env.provider.count == 2)
    }

    @Test("skip memory reads: the disk answers; skip disk reads: the network does")
    func skipReads() async throws {
        let env = try SteppedPipelineEnvironment()
        defer { env.tearDown() }
        let jpeg = try DownloaderTestEnvironment.jpeg(width: 160, height: 120, seed: 3)
        _ = try await env.fetch(request("s.jpg"), serving: jpeg)
        #expect(
            env.pipeline.memoryCache.entry(
                withIdentifier: SteppedPipelineEnvironment.url("s.jpg").absoluteString, touch: false) != nil)
        let noMemory = await env.fetchCached(
            request("s.jpg", sources: ImageFetchLoadingSources.all.subtracting(.memoryCache)))
        #expect(noMemory.result?.imageSource == .diskCache)
        let noCaches = try await env.fetch(
            request("s.jpg", sources: ImageFetchLoadingSources.all.subtracting([.memoryCache, .diskCache])),
            serving: jpeg)
        #expect(noCaches.result?.imageSource == .network)
    }

    @Test("skip memory writes and skip disk writes")
    func skipWrites() async throws {
        let env = try SteppedPipelineEnvironment()
        defer { env.tearDown() }
        let jpeg = try DownloaderTestEnvironment.jpeg(width: 160, height: 120, seed: 4)
        let memoryID = SteppedPipelineEnvironment.url("no-memory.jpg").absoluteString
        _ = try await env.fetch(request("no-memory.jpg", options: .skipStoringToMemoryCache), serving: jpeg)
        #expect(env.pipeline.memoryCache.entry(withIdentifier: memoryID, touch: false) == nil)
        #expect(env.diskEntry(memoryID)?.complete != nil)
        // A disk hit is not copied into memory either.
        env.pipeline.clearRenderedMemoryCacheImage(withIdentifier: memoryID)
        #expect(
            await env.fetchCached(request("no-memory.jpg", options: .skipStoringToMemoryCache)).result?.imageSource
                == .diskCache)
        #expect(env.pipeline.memoryCache.entry(withIdentifier: memoryID, touch: false) == nil)

        let diskID = SteppedPipelineEnvironment.url("no-disk.jpg").absoluteString
        _ = try await env.fetch(request("no-disk.jpg", options: .skipStoringToDiskCache), serving: jpeg)
        #expect(env.diskEntry(diskID) == nil)
        #expect(env.pipeline.memoryCache.entry(withIdentifier: diskID, touch: false)?.complete != nil)
        #expect(await env.isSynchronousHit(request("no-disk.jpg")))
    }
}
