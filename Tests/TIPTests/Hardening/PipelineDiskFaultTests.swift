import Foundation
import TIPImageServer
import Testing

@testable import TIP

/// Disk faults under a running pipeline, end to end: a tiny tmpfs that fills up, a cache directory removed
/// or remounted read-only mid-run. Fetches still deliver exact images from the network, memory caches keep
/// serving, problems are reported, the disk totals match the files. Cache-level versions: Caches/
/// DiskCacheFaultTests.swift (readOnlyDirectory, fullDisk); downloader level: Download/
/// ImageDownloaderDiskFaultTests.swift. Tests that need `mount` skip with a message where it is not permitted.
@Suite("Hardening: disk faults under the pipeline", .serialized)
struct PipelineDiskFaultTests {
    static func images(_ count: Int) throws -> [Data] {
        try (0..<count).map { try HardeningEnvironment.jpeg(width: 500, height: 400, seed: UInt64(40 + $0)) }
    }

    /// Bytes of the data files (no sidecars, no temporary files) in the pipeline's directory.
    static func dataFileBytes(_ pipeline: ImagePipeline) -> Int64 {
        let names = (try? FileManager.default.contentsOfDirectory(atPath: pipeline.directory.path)) ?? []
        return names.filter { !$0.contains("#") }.reduce(0) { sum, name in
            let attributes = try? FileManager.default.attributesOfItem(
                atPath: pipeline.directory.appendingPathComponent(name).path)
            return sum + ((attributes?[.size] as? NSNumber)?.int64Value ?? 0)
        }
    }

    /// Fetches every image from the network and expects exact images.
    static func fetchAll(_ env: HardeningEnvironment, _ images: [Data], prefix: String) async {
        for (index, image) in images.enumerated() {
            env.server.setImage(image, at: "/\(prefix)\(index).jpg")
            let outcome = await env.fetch(env.request("/\(prefix)\(index).jpg"))
            FetchFaultInjectionTests.expectExactImageOrTypedError(outcome, original: image, mayDeliver: true)
            #expect(outcome.result != nil, "\(prefix)\(index): \(String(describing: outcome.error))")
        }
    }

    @Test(
        """
        a tiny tmpfs fills up: every fetch still delivers the exact image, memory serves it, the disk holds \
        nothing wrong
        """
    )
    func fullDisk() async throws {
        let mountPoint = Locked<URL?>(nil)
        let env = try await HardeningEnvironment { _, root in
            let directory = root.appendingPathComponent(ImagePipeline.directoryName, isDirectory: true)
            if HardeningEnvironment.mountTmpfs(at: directory, size: "160k") { mountPoint.withLock { $0 = directory } }
        }
        guard let mounted = mountPoint.withLock({ $0 }) else {
            print("skipped: cannot mount a small tmpfs here (errno \(errno)); the full disk is not exercised")
            await env.tearDown()
            return
        }
        defer { HardeningEnvironment.unmount(mounted) }
        let images = try Self.images(6)
        #expect(images.reduce(0) { $0 + $1.count } > 200 * 1024, "the images must overflow the tmpfs")
        await Self.fetchAll(env, images, prefix: "full")
        #expect(env.problems.all.contains(.diskCacheWriteFailed))
        for (index, image) in images.enumerated() {
            // Memory first, then the disk alone: nothing or the exact image.
            await env.expectCachesHoldNothingWrong("/full\(index).jpg", original: image)
        }
        #expect(env.pipeline.diskCache.totalBytes == Self.dataFileBytes(env.pipeline))
        let leftovers = (try? FileManager.default.contentsOfDirectory(atPath: env.pipeline.directory.path)) ?? []
        #expect(
            !leftovers.contains { $0.hasPrefix(DiskCacheFiles.temporaryPrefix) }, "temporary files left: \(leftovers)")
        // Memory caches still work with the disk full.
        env.pipeline.clearMemoryCaches()
        let again = await env.fetch(env.request("/full5.jpg"))
        #expect(again.result != nil)
        let memory = await env.fetch(env.request("/full5.jpg", sources: .memoryCache))
        #expect(memory.result?.imageSource == .memoryCache, "\(String(describing: memory.result?.imageSource))")
        HardeningEnvironment.unmount(mounted)
        await env.tearDown()
    }

    @Test("the cache directory removed while the pipeline runs: fetches go on, memory serves, the disk recovers")
    func directoryRemoved() async throws {
        let env = try await HardeningEnvironment()
        let images = try Self.images(4)
        await Self.fetchAll(env, Array(images.prefix(2)), prefix: "a")
        try FileManager.default.removeItem(at: env.pipeline.directory)
        // Images fetched before still come from memory.
        let memory = await env.fetch(env.request("/a0.jpg", sources: .memoryCache))
        #expect(memory.result?.imageSource == .memoryCache)
        for index in 2..<4 {
            env.server.setImage(images[index], at: "/a\(index).jpg")
            let outcome = await env.fetch(env.request("/a\(index).jpg"))
            FetchFaultInjectionTests.expectExactImageOrTypedError(outcome, original: images[index], mayDeliver: true)
            #expect(outcome.result != nil)
        }
        for (index, image) in images.enumerated() {
            await env.expectCachesHoldNothingWrong("/a\(index).jpg", original: image)
        }
        let problems = env.problems.all
        #expect(
            problems.contains(.diskCacheDirectoryRecreated) || problems.contains(.diskCacheWriteFailed),
            "no problem reported: \(problems)")
        #expect(env.pipeline.diskCache.totalBytes == Self.dataFileBytes(env.pipeline))
        await env.tearDown()
    }

    @Test("the cache file system remounted read-only mid-run: reads work, writes fail with a problem, memory serves")
    func readOnlyRemount() async throws {
        let mountPoint = Locked<URL?>(nil)
        let env = try await HardeningEnvironment { _, root in
            let directory = root.appendingPathComponent(ImagePipeline.directoryName, isDirectory: true)
            if HardeningEnvironment.mountTmpfs(at: directory, size: "8m") { mountPoint.withLock { $0 = directory } }
        }
        guard let mounted = mountPoint.withLock({ $0 }) else {
            print("skipped: cannot mount a tmpfs here (errno \(errno)); the read-only remount is not exercised")
            await env.tearDown()
            return
        }
        defer { HardeningEnvironment.unmount(mounted) }
        let images = try Self.images(4)
        await Self.fetchAll(env, Array(images.prefix(2)), prefix: "ro")
        #expect(
            await eventually(timeout: .seconds(5)) {
                env.pipeline.diskCache.entry(withIdentifier: env.identifier("/ro1.jpg"))?.complete != nil
            })
        guard mount("tmpfs", mounted.path, "tmpfs", UInt(MS_REMOUNT | MS_RDONLY), "size=8m") == 0 else {
            Issue.record("remounting read-only failed: errno \(errno)")
            HardeningEnvironment.unmount(mounted)
            await env.tearDown()
            return
        }
        #expect(open(mounted.appendingPathComponent("probe").path, O_CREAT | O_WRONLY, 0o600) == -1 && errno == EROFS)
        for index in 2..<4 {
            env.server.setImage(images[index], at: "/ro\(index).jpg")
            let outcome = await env.fetch(env.request("/ro\(index).jpg"))
            FetchFaultInjectionTests.expectExactImageOrTypedError(outcome, original: images[index], mayDeliver: true)
            #expect(outcome.result != nil)
        }
        #expect(await eventually(timeout: .seconds(5)) { env.problems.all.contains(.diskCacheWriteFailed) })
        // A read-only disk still serves what it holds.
        env.pipeline.clearMemoryCaches()
        let disk = await env.fetch(env.request("/ro0.jpg", sources: .diskCache))
        #expect(disk.result?.imageSource == .diskCache)
        for (index, image) in images.enumerated() {
            await env.expectCachesHoldNothingWrong("/ro\(index).jpg", original: image)
        }
        // Memory still takes new images.
        let memory = await env.fetch(env.request("/ro3.jpg"))
        #expect(memory.result != nil)
        #expect(await env.fetch(env.request("/ro3.jpg", sources: .memoryCache)).result?.imageSource == .memoryCache)
        #expect(env.pipeline.diskCache.totalBytes == Self.dataFileBytes(env.pipeline))
        HardeningEnvironment.unmount(mounted)
        await env.tearDown()
    }
}
