import Foundation
import Testing

@testable import TIP

@Suite("Pipeline: disk files handed out and cleared")
struct ImagePipelineDiskFilesTests {
    private func known(_ configuration: GlobalConfiguration) async -> Set<String> {
        await withCheckedContinuation { continuation in
            configuration.knownImagePipelineIdentifiers { continuation.resume(returning: $0) }
        }
    }

    private func store(_ pipeline: ImagePipeline, _ request: GenericImageStoreRequest) async -> Bool {
        await withCheckedContinuation { continuation in
            pipeline.storeImage(with: request) { stored, _ in continuation.resume(returning: stored) }
        }
    }

    @Test("a cleared pipeline's directory is removed: it is no longer a known pipeline")
    func clearedPipelineIsForgotten() async throws {
        let (configuration, root) = try makeTestConfiguration()
        defer { try? FileManager.default.removeItem(at: root) }
        let pipeline = try #require(ImagePipeline(identifier: "cleared", configuration: configuration))
        let kept = try #require(ImagePipeline(identifier: "kept", configuration: configuration))
        let jpeg = try DownloaderTestEnvironment.jpeg(width: 64, height: 48, seed: 1)
        for each in [pipeline, kept] {
            var request = GenericImageStoreRequest(imageURL: URL(string: "http://images.test/a.jpg")!)
            request.imageData = jpeg
            #expect(await store(each, request))
        }
        #expect(await known(configuration) == ["cleared", "kept"])
        await withCheckedContinuation { continuation in pipeline.clearDiskCache { continuation.resume() } }
        #expect(await known(configuration) == ["kept"])
        // The pipeline still works: the next write brings the directory back.
        var again = GenericImageStoreRequest(imageURL: URL(string: "http://images.test/b.jpg")!)
        again.imageData = jpeg
        #expect(await store(pipeline, again))
        #expect(await known(configuration) == ["cleared", "kept"])
    }

    @Test("a copied cache file carries TIP's nine extended attributes in TIP's encodings")
    func copyCarriesTIPAttributes() async throws {
        let (configuration, root) = try makeTestConfiguration()
        defer { try? FileManager.default.removeItem(at: root) }
        let pipeline = try #require(ImagePipeline(identifier: "copies", configuration: configuration))
        pipeline.diskCache.waitUntilManifestLoaded()
        let jpeg = try DownloaderTestEnvironment.jpeg(width: 64, height: 48, seed: 2)
        let url = URL(string: "http://images.test/copy.jpg?size=large")!
        var request = GenericImageStoreRequest(imageURL: url)
        request.imageData = jpeg
        request.timeToLive = 3_600
        request.options = [.doNotResetExpiryOnAccess]
        #expect(await store(pipeline, request))
        #expect(await eventually { pipeline.diskCache.entry(withIdentifier: url.absoluteString)?.complete != nil })

        let checked = Locked<[String: String]>([:])
        let path = Locked<String?>(nil)
        await withCheckedContinuation { continuation in
            pipeline.copyDiskCacheFile(withIdentifier: url.absoluteString) { copy, _ in
                path.withLock { $0 = copy }
                if let copy {
                    let attributes = ExtendedAttributes(path: copy)
                    var found: [String: String] = [:]
                    found["URL"] = attributes.string("URL")
                    for key in ["TTL", "uTTL", "dX", "dY", "ANI", "clen", "LAD"] {
                        found[key] = attributes.double(key).map { String($0) }
                    }
                    found["LMD"] = attributes.string("LMD")
                    found["keys"] = attributes.keys().sorted().joined(separator: ",")
                    found["bytes"] = (try? Data(contentsOf: URL(fileURLWithPath: copy))) == jpeg ? "same" : "different"
                    checked.withLock { $0 = found }
                }
                continuation.resume()
            }
        }
        #expect(path.withLock { $0 } != nil)
        let found = checked.withLock { $0 }
        #expect(found["bytes"] == "same")
        #expect(found["URL"] == url.absoluteString)
        #expect(found["TTL"] == "3600.0")
        #expect(found["uTTL"] == "0.0")
        #expect(found["dX"] == "64.0")
        #expect(found["dY"] == "48.0")
        #expect(found["ANI"] == "0.0")
        #expect(found["clen"] == "0.0")
        #expect(found["LMD"] == "!")
        let lastAccess = try #require(found["LAD"].flatMap(Double.init))
        #expect(abs(lastAccess - Date().timeIntervalSinceReferenceDate) < 600)
        #expect(
            Set((found["keys"] ?? "").split(separator: ",").map(String.init))
                .isSuperset(of: ["URL", "TTL", "uTTL", "LAD", "LMD", "dX", "dY", "ANI", "clen"]))
    }

    @Test("inspection entries expose every metadata field of the disk entries")
    func inspectionExposesMetadata() async throws {
        let (configuration, root) = try makeTestConfiguration()
        defer { try? FileManager.default.removeItem(at: root) }
        let pipeline = try #require(ImagePipeline(identifier: "inspected", configuration: configuration))
        let frames = (0..<3).map {
            TestImages.photo(width: 40, height: 30, format: .rgba8Premultiplied, seed: UInt64($0 + 1))
        }
        let animation = try #require(
            ImageContainer(animatedFrames: frames, frameDurations: [0.1, 0.1, 0.1], loopCount: 0))
        let gif = try CodecCatalogue.shared.encodeImage(animation, type: .gif, quality: 1)
        var request = GenericImageStoreRequest(imageURL: URL(string: "http://images.test/anim.gif")!)
        request.imageData = gif
        request.timeToLive = 7_200
        request.options = [.treatAsPlaceholder, .doNotResetExpiryOnAccess]
        #expect(await store(pipeline, request))
        let result = await withCheckedContinuation { continuation in
            pipeline.inspect { continuation.resume(returning: $0) }
        }
        let entry = try #require(result.completeDiskEntries.first)
        #expect(entry.isAnimated)
        #expect(entry.isPlaceholder)
        #expect(!entry.updatesExpiryOnAccess)
        #expect(entry.timeToLive == 7_200)
        #expect(entry.imageType == .gif)
        #expect(entry.expectedLength == nil)
        #expect(entry.lastModified == nil)
        #expect(entry.entityTag == nil)
        #expect(entry.dimensions == CGSize(width: 40, height: 30))
    }
}
