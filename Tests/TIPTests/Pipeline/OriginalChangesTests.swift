import Foundation
import Testing

@testable import TIP

/// When an image's original changes (stored again, downloaded again, renamed, renamed over), nothing made from the old
/// one is served: not its stored processed images, not the memory entries of an identifier a rename replaced.
@Suite("An image's original changes: what was made from the old one goes")
struct OriginalChangesTests {
    static func url(_ name: String) -> URL { SteppedPipelineEnvironment.url(name) }

    static func store(_ env: SteppedPipelineEnvironment, _ name: String, _ jpeg: Data) async throws {
        var store = GenericImageStoreRequest(imageURL: url(name))
        store.imageData = jpeg
        try await env.pipeline.storeImage(for: store)
    }

    /// The caches-only result of the image named `name` (its own size) whose URL is `from`'s (a renamed image keeps
    /// the URL it was stored with), or nil.
    static func cached(
        _ env: SteppedPipelineEnvironment, _ name: String, from: String? = nil
    ) async -> ImageFetchResult? {
        var request = GenericImageFetchRequest(
            imageURL: url(from ?? name), identifier: url(name).absoluteString, targetDimensions: .zero,
            targetContentMode: .center)
        request.loadingSources = .cachesOnly
        return await env.fetchCached(request).result
    }

    static func rename(_ env: SteppedPipelineEnvironment, _ old: String, _ new: String) async -> (any Error)? {
        let outcome = Locked<(done: Bool, error: (any Error)?)>((false, nil))
        env.pipeline.changeIdentifierForImage(
            withIdentifier: url(old).absoluteString, toIdentifier: url(new).absoluteString
        ) { error in outcome.withLock { $0 = (true, error) } }
        _ = await eventually { outcome.withLock { $0.done } }
        return outcome.withLock { $0.error }
    }

    @Test("renaming onto an identifier the memory cache holds: the renamed image answers, from memory and from disk")
    func renameOverAnImageInMemory() async throws {
        let env = try SteppedPipelineEnvironment()
        defer { env.tearDown() }
        try await Self.store(env, "old.jpg", try DownloaderTestEnvironment.jpeg(width: 100, height: 50))
        try await Self.store(env, "new.jpg", try DownloaderTestEnvironment.jpeg(width: 200, height: 100, seed: 2))
        #expect(await Self.cached(env, "new.jpg")?.imageContainer.dimensions == CGSize(width: 200, height: 100))
        #expect(await Self.rename(env, "old.jpg", "new.jpg") == nil)
        let renamed = await Self.cached(env, "new.jpg", from: "old.jpg")
        #expect(renamed?.imageSource == .memoryCache)
        #expect(renamed?.imageContainer.dimensions == CGSize(width: 100, height: 50))
        // Not the image the rename replaced, from any cache, under its own URL either.
        #expect(await Self.cached(env, "new.jpg") == nil)
        #expect(await Self.cached(env, "old.jpg") == nil)
        env.pipeline.clearMemoryCaches()
        let fromDisk = await Self.cached(env, "new.jpg", from: "old.jpg")
        #expect(fromDisk?.imageSource == .diskCache)
        #expect(fromDisk?.imageContainer.dimensions == CGSize(width: 100, height: 50))
    }

    @Test("an image only in the memory cache is renamed there; an unknown one fails with ENOENT")
    func renameInMemoryOnly() async throws {
        let env = try SteppedPipelineEnvironment()
        defer { env.tearDown() }
        try await Self.store(env, "m.jpg", try DownloaderTestEnvironment.jpeg(width: 64, height: 48))
        env.pipeline.diskCache.clearImage(withIdentifier: Self.url("m.jpg").absoluteString)
        #expect(await Self.rename(env, "m.jpg", "n.jpg") == nil)
        let renamed = await Self.cached(env, "n.jpg", from: "m.jpg")
        #expect(renamed?.imageSource == .memoryCache)
        #expect(renamed?.imageContainer.dimensions == CGSize(width: 64, height: 48))
        #expect(await Self.cached(env, "m.jpg") == nil)
        #expect((await Self.rename(env, "none.jpg", "n2.jpg") as? POSIXError)?.code == .ENOENT)
    }

    /// The processed-image request of these tests, and its disk identifier.
    static func processedRequest(_ name: String) throws -> (GenericImageFetchRequest, String) {
        var request = GenericImageFetchRequest(
            imageURL: url(name), identifier: nil, targetDimensions: CGSize(width: 32, height: 32),
            targetContentMode: .scaleAspectFill)
        request.processors = [.cropToFill()]
        request.options = [.storeProcessedImageToDiskCache]
        request.loadingSources = .cachesOnly
        let identifier = try #require(
            ImageFetchProcessing(request: request).processedIdentifier(of: url(name).absoluteString))
        return (request, identifier)
    }

    @Test(
        "a stored processed image goes when its original is stored again or renamed; the next fetch shows the new one")
    func processedImagesFollowTheOriginal() async throws {
        let env = try SteppedPipelineEnvironment()
        defer { env.tearDown() }
        let (request, processed) = try Self.processedRequest("p.jpg")
        func solid(_ color: SIMD4<UInt8>) throws -> Data {
            try CodecCatalogue.shared.encodeImage(
                ImageContainer(image: TestImages.solid(width: 64, height: 48, color, format: .rgbx8)), type: .jpeg,
                quality: 0.9)
        }
        let red = try solid(SIMD4(230, 20, 20, 255))
        let blue = try solid(SIMD4(20, 20, 230, 255))
        try await Self.store(env, "p.jpg", blue)
        #expect(await env.fetchCached(request).result?.imageWasProcessed == true)
        #expect(await eventually { env.diskEntry(processed)?.complete != nil })

        try await Self.store(env, "p.jpg", red)
        #expect(env.diskEntry(processed) == nil)
        env.pipeline.clearMemoryCaches()
        let again = try #require(await env.fetchCached(request).result)
        let pixel = again.imageContainer.image.pixel(x: 16, y: 16)
        #expect(pixel[0] > 180 && pixel[2] < 80, "red, not the blue processed image: \(pixel)")
        #expect(await eventually { env.diskEntry(processed)?.complete != nil })

        // Renamed away: the old identifier's processed image goes with its original.
        #expect(await Self.rename(env, "p.jpg", "q.jpg") == nil)
        #expect(env.diskEntry(processed) == nil)
        env.pipeline.clearMemoryCaches()
        #expect(await env.fetchCached(request).result == nil)
    }
}
