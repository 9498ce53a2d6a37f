import Foundation
import Testing

@testable import TIP

@Suite("Image pipeline caches and global fan-out")
struct ImagePipelineCachesTests {
    private func storeRendered(_ pipeline: ImagePipeline, _ identifier: String, side: Int = 10) {
        let image = ImageContainer(image: TestImages.solid(width: side, height: side, SIMD4(9, 9, 9, 255)))
        pipeline.renderedCache.store(
            image, identifier: identifier, transformerIdentifier: nil,
            originalDimensions: CGSize(width: side * 2, height: side * 2), isPlaceholder: false,
            url: URL(string: "https://example.com/\(identifier)"))
    }

    private func storeMemory(_ pipeline: ImagePipeline, _ identifier: String, bytes: Int = 100) {
        let complete = MemoryCacheCompleteImage(
            data: Data(repeating: 1, count: bytes), imageType: .jpeg,
            url: URL(string: "https://example.com/\(identifier)")!, dimensions: CGSize(width: 10, height: 10))
        pipeline.memoryCache.updateEntry(MemoryCacheEntry(identifier: identifier, complete: complete))
    }

    @Test("Inspection reports every memory entry, per pipeline and for all, on the callback queue")
    func inspection() async throws {
        let (configuration, root) = try makeTestConfiguration()
        defer { try? FileManager.default.removeItem(at: root) }
        let a = try #require(ImagePipeline(identifier: "a", configuration: configuration))
        let b = try #require(ImagePipeline(identifier: "b", configuration: configuration))
        storeRendered(a, "one")
        storeMemory(a, "one", bytes: 123)
        storeMemory(b, "two", bytes: 7)
        let result = await withCheckedContinuation { continuation in a.inspect { continuation.resume(returning: $0) } }
        #expect(result.imagePipelineIdentifier == "a")
        #expect(result.completeRenderedEntries.map(\.identifier) == ["one"])
        #expect(result.completeRenderedEntries.first?.image != nil)
        #expect(result.completeMemoryEntries.map(\.bytesUsed) == [123])
        #expect(result.inMemoryBytesUsed == 123 + result.completeRenderedEntries[0].bytesUsed)
        let all = await withCheckedContinuation { continuation in
            configuration.inspect { continuation.resume(returning: $0) }
        }
        #expect(Set(all.keys) == ["a", "b"])
        #expect(all["b"]?.completeMemoryEntries.map(\.identifier) == ["two"])
    }

    @Test("Inspecting a pipeline that is still reading its directory waits for it: every disk entry is listed")
    func inspectionWaitsForTheManifest() async throws {
        let (configuration, root) = try makeTestConfiguration()
        defer { try? FileManager.default.removeItem(at: root) }
        var first: ImagePipeline? = ImagePipeline(identifier: "reopened", configuration: configuration)
        #expect(first != nil)
        let count = 300
        for index in 0..<count {
            let url = URL(string: "https://example.com/\(index).jpg")!
            let metadata = DiskCacheMetadata(
                identifier: "id-\(index)", url: url, lastAccess: Date(), timeToLive: 3_600,
                width: 10, height: 10, isAnimated: false, isPlaceholder: false,
                lastModified: nil, entityTag: nil, expectedLength: 0, imageType: ImageType.jpeg.rawValue)
            #expect(
                first?.diskCache.updateImageEntry(
                    metadata: metadata, source: .data(Data(repeating: UInt8(index % 251), count: 64))) == true)
        }
        first = nil
        let reopened = try #require(ImagePipeline(identifier: "reopened", configuration: configuration))
        let result = await withCheckedContinuation { continuation in
            reopened.inspect { continuation.resume(returning: $0) }
        }
        #expect(result.completeDiskEntries.count == count)
        let all = await withCheckedContinuation { continuation in
            configuration.inspect { continuation.resume(returning: $0) }
        }
        #expect(all["reopened"]?.completeDiskEntries.count == count)
    }

    @Test("Clearing and dirtying fan out to every live pipeline; tear-down subtracts exactly")
    func fanOut() throws {
        let (configuration, root) = try makeTestConfiguration()
        defer { try? FileManager.default.removeItem(at: root) }
        let a = try #require(ImagePipeline(identifier: "a", configuration: configuration))
        var b: ImagePipeline? = ImagePipeline(identifier: "b", configuration: configuration)
        #expect(b != nil)
        for id in ["x", "y"] {
            storeRendered(a, id)
            storeRendered(b!, id)
            storeMemory(a, id)
            storeMemory(b!, id, bytes: 50)
        }
        let target = CGSize(width: 10, height: 10)
        configuration.dirtyAllRenderedMemoryCacheImages(withIdentifier: "x")
        #expect(
            a.renderedCache.image(
                withIdentifier: "x", targetDimensions: target, targetContentMode: .scaleAspectFit,
                transformerIdentifier: nil)?.isDirty == true)
        #expect(
            b!.renderedCache.image(
                withIdentifier: "y", targetDimensions: target, targetContentMode: .scaleAspectFit,
                transformerIdentifier: nil)?.isDirty == false)
        configuration.clearAllRenderedMemoryCacheImages(withIdentifier: "x")
        #expect(
            a.renderedCache.image(
                withIdentifier: "x", targetDimensions: target, targetContentMode: .scaleAspectFit,
                transformerIdentifier: nil) == nil)
        #expect(configuration.totalCountForAllRenderedCaches == 2)
        #expect(configuration.totalBytesForAllMemoryCaches == 300)
        b = nil
        #expect(configuration.totalBytesForAllMemoryCaches == 200)
        #expect(configuration.totalCountForAllRenderedCaches == 1)
        configuration.handleMemoryPressure()
        #expect(configuration.totalBytesForAllMemoryCaches == 0 && configuration.totalBytesForAllRenderedCaches == 0)
    }

    @Test("Background with clearing enabled empties memory caches and makes rendered caches weak")
    func background() throws {
        let (configuration, root) = try makeTestConfiguration()
        defer { try? FileManager.default.removeItem(at: root) }
        let a = try #require(ImagePipeline(identifier: "a", configuration: configuration))
        let kept = ImageContainer(image: TestImages.solid(width: 10, height: 10, SIMD4(1, 1, 1, 255)))
        a.renderedCache.store(
            kept, identifier: "kept", transformerIdentifier: nil, originalDimensions: CGSize(width: 10, height: 10),
            isPlaceholder: false)
        storeRendered(a, "dropped")
        storeMemory(a, "m")
        configuration.applicationDidEnterBackground()
        #expect(configuration.totalBytesForAllMemoryCaches == 100)  // clearing not enabled: nothing happens
        configuration.applicationWillEnterForeground()
        configuration.clearMemoryCachesOnApplicationBackgroundEnabled = true
        configuration.applicationDidEnterBackground()
        #expect(configuration.totalBytesForAllMemoryCaches == 0)
        #expect(configuration.totalBytesForAllRenderedCaches == 0)
        configuration.applicationWillEnterForeground()
        let target = CGSize(width: 10, height: 10)
        // The image still referenced elsewhere comes back; the other one is gone.
        #expect(
            a.renderedCache.image(
                withIdentifier: "kept", targetDimensions: target, targetContentMode: .scaleAspectFit,
                transformerIdentifier: nil)?.image === kept)
        #expect(
            a.renderedCache.image(
                withIdentifier: "dropped", targetDimensions: target, targetContentMode: .scaleAspectFit,
                transformerIdentifier: nil) == nil)
        #expect(configuration.totalBytesForAllRenderedCaches == Int64(kept.sizeInMemory))
    }
}
