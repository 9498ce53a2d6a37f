import Foundation
import Testing

@testable import TIP

/// TIP's budget scenario, played on a pipeline's memory and disk caches with the percolation a fetch
/// does (a hit in a slower cache is copied into the faster one; a miss loads from the "network" and
/// fills both): 20 images of 1 MiB under a 12 MiB memory budget and a 16 MiB disk budget.
@Suite("Cache budget scenario")
struct CacheBudgetScenarioTests {
    enum Source: String { case memory, disk, network }

    private static let megabyte = 1024 * 1024

    private func payload(_ index: Int) -> Data {
        Data(repeating: UInt8(index), count: Self.megabyte)
    }

    private func visit(_ index: Int, pipeline: ImagePipeline, configuration: GlobalConfiguration) -> Source {
        let identifier = "image-\(index)"
        let url = URL(string: "https://example.com/\(index).jpg")!
        let dimensions = CGSize(width: 1000, height: 1000)
        if let entry = pipeline.memoryCache.entry(withIdentifier: identifier), let complete = entry.complete {
            #expect(complete.data == payload(index))
            return .memory
        }
        let fill = { (data: Data) in
            _ = pipeline.memoryCache.updateEntry(
                MemoryCacheEntry(
                    identifier: identifier,
                    complete: MemoryCacheCompleteImage(
                        data: data, imageType: .jpeg, url: url, dimensions: dimensions)))
        }
        if let (_, data) = pipeline.diskCache.completeData(withIdentifier: identifier) {
            #expect(data == payload(index))
            fill(data)
            return .disk
        }
        let data = payload(index)
        let metadata = DiskCacheMetadata(
            identifier: identifier, url: url, lastAccess: configuration.clock(), timeToLive: 3_600,
            width: 1000, height: 1000, imageType: ImageType.jpeg.rawValue)
        #expect(pipeline.diskCache.updateImageEntry(metadata: metadata, source: .data(data)))
        fill(data)
        return .network
    }

    @Test("Reloading in order misses everywhere; visiting in reverse hits memory, then disk, then misses")
    func scenario() throws {
        let (configuration, root) = try makeTestConfiguration()
        defer { try? FileManager.default.removeItem(at: root) }
        configuration.maxBytesForAllMemoryCaches = Int64(12 * Self.megabyte)
        configuration.maxBytesForAllDiskCaches = Int64(16 * Self.megabyte)
        let pipeline = try #require(ImagePipeline(identifier: "scenario", configuration: configuration))
        pipeline.diskCache.waitUntilManifestLoaded()

        let first = (0..<20).map { visit($0, pipeline: pipeline, configuration: configuration) }
        #expect(first.allSatisfy { $0 == .network })
        #expect(configuration.totalBytesForAllMemoryCaches == Int64(12 * Self.megabyte))
        #expect(configuration.totalBytesForAllDiskCaches <= Int64(16 * Self.megabyte))
        #expect(configuration.totalCountForAllDiskCaches == 16)

        let reload = (0..<20).map { visit($0, pipeline: pipeline, configuration: configuration) }
        #expect(reload.allSatisfy { $0 == .network }, "\(reload)")

        let reverse = (0..<20).reversed().map { visit($0, pipeline: pipeline, configuration: configuration) }
        let expected: [Source] =
            Array(repeating: .memory, count: 12) + Array(repeating: .disk, count: 4)
            + Array(repeating: .network, count: 4)
        #expect(reverse == expected, "\(reverse.map(\.rawValue))")
    }

    @Test("Tear-down subtracts exactly the pipeline's bytes and keeps its files; a new instance recounts them")
    func tearDownAndRestart() throws {
        let (configuration, root) = try makeTestConfiguration()
        defer { try? FileManager.default.removeItem(at: root) }
        var pipeline: ImagePipeline? = ImagePipeline(identifier: "restart", configuration: configuration)
        let other = try #require(ImagePipeline(identifier: "other", configuration: configuration))
        pipeline?.diskCache.waitUntilManifestLoaded()
        other.diskCache.waitUntilManifestLoaded()
        for index in 0..<3 { _ = visit(index, pipeline: pipeline!, configuration: configuration) }
        _ = visit(7, pipeline: other, configuration: configuration)
        let diskBefore = configuration.totalBytesForAllDiskCaches
        #expect(configuration.totalCountForAllDiskCaches == 4)
        pipeline = nil
        #expect(configuration.totalCountForAllDiskCaches == 1)
        #expect(configuration.totalBytesForAllDiskCaches == diskBefore - 3 * Int64(Self.megabyte))
        #expect(configuration.totalBytesForAllMemoryCaches == Int64(Self.megabyte))
        let directory = root.appendingPathComponent("TIPImagePipeline/restart")
        let files = try FileManager.default.contentsOfDirectory(atPath: directory.path).filter {
            $0.hasPrefix("image-")
        }
        #expect(files.count == 3)
        let revived = try #require(ImagePipeline(identifier: "restart", configuration: configuration))
        revived.diskCache.waitUntilManifestLoaded()
        #expect(configuration.totalCountForAllDiskCaches == 4)
        #expect(configuration.totalBytesForAllDiskCaches == diskBefore)
        #expect(visit(1, pipeline: revived, configuration: configuration) == .disk)
    }

    @Test("Pipeline directories are private (0700)")
    func permissions() throws {
        let (configuration, root) = try makeTestConfiguration()
        defer { try? FileManager.default.removeItem(at: root) }
        let pipeline = try #require(ImagePipeline(identifier: "private", configuration: configuration))
        pipeline.diskCache.waitUntilManifestLoaded()
        _ = visit(0, pipeline: pipeline, configuration: configuration)
        let attributes = try FileManager.default.attributesOfItem(atPath: pipeline.directory.path)
        #expect((attributes[.posixPermissions] as? NSNumber)?.intValue == 0o700)
        let file = try #require(
            try FileManager.default.contentsOfDirectory(atPath: pipeline.directory.path).first {
                $0.hasPrefix("image-")
            })
        let fileAttributes = try FileManager.default.attributesOfItem(
            atPath: pipeline.directory.appendingPathComponent(file).path)
        #expect((fileAttributes[.posixPermissions] as? NSNumber)?.intValue == 0o600)
    }
}

@Suite("Pipeline disk operations")
struct PipelineDiskOperationTests {
    private func store(_ pipeline: ImagePipeline, _ identifier: String, bytes: [UInt8]) {
        let metadata = DiskCacheMetadata(
            identifier: identifier, url: URL(string: "https://example.com/\(identifier)")!,
            lastAccess: Date(), timeToLive: 3_600, width: 10, height: 10)
        #expect(pipeline.diskCache.updateImageEntry(metadata: metadata, source: .data(Data(bytes))))
    }

    @Test("Change identifier renames the disk entry and drops the old identifier from memory; missing is ENOENT")
    func changeIdentifier() async throws {
        let (configuration, root) = try makeTestConfiguration()
        defer { try? FileManager.default.removeItem(at: root) }
        let pipeline = try #require(ImagePipeline(identifier: "rename", configuration: configuration))
        pipeline.diskCache.waitUntilManifestLoaded()
        store(pipeline, "old", bytes: [1, 2, 3])
        _ = pipeline.memoryCache.updateEntry(
            MemoryCacheEntry(
                identifier: "old",
                complete: MemoryCacheCompleteImage(
                    data: Data([1, 2, 3]), url: URL(string: "https://example.com/old")!,
                    dimensions: CGSize(width: 10, height: 10))))
        let error = await withCheckedContinuation { continuation in
            pipeline.changeIdentifierForImage(withIdentifier: "old", toIdentifier: "new") {
                continuation.resume(returning: $0.map { $0 as NSError })
            }
        }
        #expect(error == nil)
        #expect(pipeline.diskCache.completeData(withIdentifier: "new")?.data == Data([1, 2, 3]))
        #expect(pipeline.diskCache.completeData(withIdentifier: "old") == nil)
        #expect(pipeline.memoryCache.entry(withIdentifier: "old") == nil)
        let missing = await withCheckedContinuation { continuation in
            pipeline.changeIdentifierForImage(withIdentifier: "absent", toIdentifier: "x") {
                continuation.resume(returning: $0.map { $0 as NSError })
            }
        }
        #expect(missing?.domain == NSPOSIXErrorDomain && missing?.code == Int(ENOENT))
    }

    @Test("Copying a disk file out gives a temporary copy that is deleted after the completion")
    func copyOut() async throws {
        let (configuration, root) = try makeTestConfiguration()
        defer { try? FileManager.default.removeItem(at: root) }
        let pipeline = try #require(ImagePipeline(identifier: "copy", configuration: configuration))
        pipeline.diskCache.waitUntilManifestLoaded()
        store(pipeline, "img", bytes: [9, 8, 7, 6])
        let (path, contents) = await withCheckedContinuation { continuation in
            pipeline.copyDiskCacheFile(withIdentifier: "img") { path, _ in
                continuation.resume(returning: (path, path.flatMap { FileManager.default.contents(atPath: $0) }))
            }
        }
        #expect(contents == Data([9, 8, 7, 6]))
        let copy = try #require(path)
        #expect(!copy.hasPrefix(pipeline.directory.path))
        try await Task.sleep(for: .milliseconds(200))
        #expect(!FileManager.default.fileExists(atPath: copy))
        let failure = await withCheckedContinuation { continuation in
            pipeline.copyDiskCacheFile(withIdentifier: "absent") { path, error in
                continuation.resume(returning: (path, error.map { $0 as NSError }))
            }
        }
        #expect(failure.0 == nil && failure.1?.code == Int(ENOENT))
    }

    @Test("Clearing the disk cache empties it and the totals")
    func clearDisk() async throws {
        let (configuration, root) = try makeTestConfiguration()
        defer { try? FileManager.default.removeItem(at: root) }
        let pipeline = try #require(ImagePipeline(identifier: "clear", configuration: configuration))
        pipeline.diskCache.waitUntilManifestLoaded()
        store(pipeline, "a", bytes: [1])
        store(pipeline, "b", bytes: [2, 2])
        #expect(configuration.totalCountForAllDiskCaches == 2)
        await withCheckedContinuation { continuation in configuration.clearAllDiskCaches { continuation.resume() } }
        #expect(configuration.totalCountForAllDiskCaches == 0 && configuration.totalBytesForAllDiskCaches == 0)
        #expect(pipeline.diskCache.completeData(withIdentifier: "a") == nil)
    }
}
