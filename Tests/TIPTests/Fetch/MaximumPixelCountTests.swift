import Foundation
import Testing

@testable import TIP

/// The pixel limit fetches apply: GlobalConfiguration.maximumPixelCount, or the request's own.
@Suite("Maximum pixel count for fetches")
struct MaximumPixelCountTests {
    @Test("GlobalConfiguration.maximumPixelCount: 100 megapixels by default; below 1 restores it")
    func setting() {
        let configuration = GlobalConfiguration(cachesRootDirectory: FileManager.default.temporaryDirectory)
        #expect(configuration.maximumPixelCount == 100_000_000)
        configuration.maximumPixelCount = 5_000
        #expect(configuration.maximumPixelCount == 5_000)
        configuration.maximumPixelCount = 0
        #expect(configuration.maximumPixelCount == ImageDecodingOptions.defaultMaximumPixelCount)
        #expect(
            ImageDecodingError.dimensionsTooLarge(width: 2, height: 2, maximumPixelCount: 1).description
                .contains("GlobalConfiguration.maximumPixelCount"))
    }

    @Test("an image over the configured limit fails naming the setting, and is not cached; the request may raise it")
    func limitReachesFetches() async throws {
        let env = try SteppedPipelineEnvironment()
        defer { env.tearDown() }
        env.configuration.maximumPixelCount = 1_000
        let jpeg = try DownloaderTestEnvironment.jpeg(width: 64, height: 48)
        let url = SteppedPipelineEnvironment.url("big.jpg")

        let error = try #require(
            try await env.fetch(GenericImageFetchRequest(imageURL: url), serving: jpeg).error as? ImageFetchError)
        #expect(error.code == .couldNotDecodeImage)
        #expect(
            error.message.contains("64x48") && error.message.contains("GlobalConfiguration.shared.maximumPixelCount"),
            "\(error.message)")
        #expect(env.pipeline.diskCache.entry(withIdentifier: url.absoluteString) == nil)
        #expect(env.pipeline.memoryCache.entry(withIdentifier: url.absoluteString, touch: false) == nil)

        var raising = GenericImageFetchRequest(imageURL: url)
        raising.maximumPixelCount = 10_000
        let allowed = try await env.fetch(raising, serving: jpeg).result
        #expect(allowed?.imageContainer.dimensions == CGSize(width: 64, height: 48))
        #expect(GenericImageFetchRequest(raising).maximumPixelCount == 10_000)
    }

    @Test("a cached image refused by one request's lower limit stays cached for the fetches that may have it")
    func refusedCacheHitIsKept() async throws {
        let env = try SteppedPipelineEnvironment()
        defer { env.tearDown() }
        let jpeg = try DownloaderTestEnvironment.jpeg(width: 64, height: 48)
        let url = SteppedPipelineEnvironment.url("kept.jpg")
        #expect(try await env.fetch(GenericImageFetchRequest(imageURL: url), serving: jpeg).result != nil)
        #expect(await eventually { env.pipeline.diskCache.entry(withIdentifier: url.absoluteString) != nil })
        env.pipeline.clearMemoryCaches()

        var lower = GenericImageFetchRequest(imageURL: url)
        lower.maximumPixelCount = 1_000
        lower.loadingSources = [.diskCache]
        let refused = await env.fetchCached(lower)
        #expect(refused.result == nil && refused.error != nil)
        #expect(env.problems.count(.diskCacheEntryCouldNotBeDecoded) == 1)
        #expect(env.pipeline.diskCache.entry(withIdentifier: url.absoluteString)?.complete != nil, "kept")

        var plain = GenericImageFetchRequest(imageURL: url)
        plain.loadingSources = [.diskCache]
        let hit = await env.fetchCached(plain)
        #expect(hit.result?.imageSource == .diskCache)
        #expect(hit.result?.imageContainer.dimensions == CGSize(width: 64, height: 48))
    }
}
