import Foundation
import TIPImageServer
import Testing

@testable import TIP

@Suite("Downloader: full disk")
struct ImageDownloaderDiskFaultTests {
    @Test(
        """
        on a full disk the partial lives in memory, the resume still completes the exact image, and no wrong file \
        is left
        """
    )
    func fullDisk() async throws {
        let root = FileManager.default.temporaryDirectory.appendingPathComponent(
            "tip-full-\(UUID().uuidString)", isDirectory: true)
        try FileManager.default.createDirectory(at: root, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: root) }
        guard mount("tmpfs", root.path, "tmpfs", 0, "size=64k,mode=0700") == 0 else {
            print("skipped: cannot mount a small tmpfs here (errno \(errno)); the full-disk download is not exercised")
            return
        }
        defer { _ = umount2(root.path, Int32(MNT_DETACH)) }
        let configuration = GlobalConfiguration(cachesRootDirectory: root)
        let problems = RecordingProblemObserver()
        configuration.problemObserver = problems
        let pipeline = try #require(ImagePipeline(identifier: "full-disk", configuration: configuration))
        pipeline.diskCache.waitUntilManifestLoaded()
        let server = TIPImageServer()
        try await server.start()
        let image = try DownloaderTestEnvironment.jpeg(width: 1000, height: 800)
        #expect(image.count > 128 * 1024)
        server.setImage(image, at: "/big.jpg")
        server.setFault(.dropConnection(afterBodyBytes: image.count / 2), for: "/big.jpg")
        let url = server.url(for: "/big.jpg")
        let first = DownloadTestMember(ImageDownloadRequest(url: url, pipeline: pipeline))
        configuration.downloader.add(first)
        #expect(await first.failure() != nil)
        // The disk could not hold the partial; the memory cache does.
        #expect(
            await eventually {
                pipeline.memoryCache.entry(withIdentifier: url.absoluteString, touch: false)?.partial != nil
            })
        #expect(pipeline.diskCache.entry(withIdentifier: url.absoluteString)?.partial == nil)

        server.setFault(nil, for: "/big.jpg")
        let second = DownloadTestMember(ImageDownloadRequest(url: url, pipeline: pipeline))
        configuration.downloader.add(second)
        let result = try #require(await second.success())
        #expect(result.wasResumed)
        #expect(result.data == image)
        #expect(!result.wasStoredOnDisk)
        #expect(pipeline.diskCache.entry(withIdentifier: url.absoluteString)?.complete == nil)
        #expect(problems.all.contains(.diskCacheWriteFailed))
        // Nothing but the pipeline's directory structure is left on the tiny disk.
        let leftovers = try FileManager.default.contentsOfDirectory(
            at: pipeline.directory, includingPropertiesForKeys: nil)
        #expect(leftovers.isEmpty, "left: \(leftovers.map(\.lastPathComponent))")
        await server.stop()
    }
}
