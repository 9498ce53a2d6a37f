import Foundation
import Testing

@testable import TIP

/// Where finished downloads' files are installed: one at a time on the disk cache's serial queue, so that creating
/// and renaming files in one directory never contend in the kernel; concurrently when writes are durable, so that
/// their `fsync`s overlap.
@Suite("Download commits")
struct DownloadCommitQueueTests {
    /// Notes, for each finished download, whether the pipeline heard of it on the disk cache's commit queue.
    private final class QueueObserver: ImagePipelineObserver {
        static let key = DispatchSpecificKey<String>()
        let onCommitQueue = Locked<[String: Bool]>([:])

        func imagePipeline(
            _ pipeline: ImagePipeline, didFinishDownloadingImageAt url: URL, imageType: ImageType?,
            byteCount: Int, dimensions: CGSize, wasResumed: Bool
        ) {
            let here = DispatchQueue.getSpecific(key: Self.key) == "commits"
            onCommitQueue.withLock { $0[url.lastPathComponent] = here }
        }
    }

    @Test("finished downloads are installed on the disk cache's serial queue; with durable writes, concurrently")
    func commitQueue() async throws {
        let env = try await DownloaderTestEnvironment()
        let provider = CountingStubProvider()
        env.configuration.imageFetchDownloadProvider = provider
        let image = try HarnessImage.make(.jpeg)
        let observer = QueueObserver()
        env.pipeline.observer = observer
        let commits = env.pipeline.diskCache.commits
        commits.setSpecific(key: QueueObserver.key, value: "commits")
        #expect(env.pipeline.caches.diskWriteQueue === commits)

        func fetch(_ names: [String]) async throws {
            let operations = names.map { name in
                let url = URL(string: "https://stub.tip.invalid/\(name)")!
                provider.stub(image, at: url)
                return env.pipeline.operation(with: GenericImageFetchRequest(imageURL: url), delegate: nil)
            }
            for operation in operations { env.pipeline.fetchImage(with: operation) }
            try await onOwnThread { for operation in operations { operation.waitUntilFinished() } }
            for operation in operations {
                #expect(operation.state == .succeeded && operation.finalResult?.imageSource == .network)
            }
        }

        let names = (0..<8).map { "commit-\($0).jpg" }
        try await fetch(names)
        #expect(observer.onCommitQueue.withLock { $0 } == Dictionary(uniqueKeysWithValues: names.map { ($0, true) }))
        for name in names {
            let identifier = "https://stub.tip.invalid/\(name)"
            #expect(env.pipeline.diskCache.entry(withIdentifier: identifier, includePartial: false) != nil, "\(name)")
        }

        env.configuration.diskCacheWritesAreDurable = true
        #expect(env.pipeline.caches.diskWriteQueue !== commits)
        try await fetch(["durable.jpg"])
        #expect(observer.onCommitQueue.withLock { $0["durable.jpg"] } == false)
        #expect(env.pipeline.diskCache.flushCount.withLock { $0 } >= 1)
        await env.tearDown()
    }
}
