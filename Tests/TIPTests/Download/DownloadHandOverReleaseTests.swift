import Dispatch
import Foundation
import Testing

@testable import TIP

/// A download that finishes lets go of its pipeline before its members hear the end: a member holding the last
/// reference (as a fetch does, for the `async` caller it resumes) sees the pipeline go as it lets go, even while the
/// downloader's thread has not left the finishing code yet (held there by the downloader's `finished` hook until
/// the member looked).
@Suite("A finishing download lets go of the pipeline before its members hear the end")
struct DownloadHandOverReleaseTests {
    /// A member holding its pipeline strongly until it hears the end, then letting go and noting whether that
    /// was the last reference.
    private final class HoldingMember: ImageDownloadMember {
        let imageDownloadRequest: ImageDownloadRequest
        let imageDownloadQueue = DispatchQueue(label: "tip-tests.holding-member")
        var imageDownloadPriority: ImageFetchPriority { .normal }
        private let pipeline: Locked<ImagePipeline?>
        /// Whether the pipeline was gone as soon as the member let go of it (nil until it heard the end).
        let goneWhenLetGo = Locked<Bool?>(nil)
        let looked = DispatchSemaphore(value: 0)

        /// `revalidates`: a copy in the memory cache is revalidated rather than downloaded again.
        init(_ pipeline: ImagePipeline, url: URL, revalidates: Bool = false) {
            var request = ImageDownloadRequest(url: url, pipeline: pipeline)
            request.revalidatesMemoryCopy = revalidates
            imageDownloadRequest = request
            self.pipeline = Locked(pipeline)
        }

        func imageDownloadDidStart(_ download: ImageDownloadHandle, resumedByteCount: Int, expectedLength: Int?) {}
        func imageDownloadDidReset(_ download: ImageDownloadHandle) {}
        func imageDownload(_ download: ImageDownloadHandle, didUpdate update: ImageDownloadUpdate) {}

        func imageDownload(
            _ download: ImageDownloadHandle, didCompleteWith result: Result<ImageDownloadResult, any Error>
        ) {
            weak let weakPipeline = pipeline.withLock { $0 }
            pipeline.withLock { $0 = nil }
            goneWhenLetGo.withLock { $0 = weakPipeline == nil }
            looked.signal()
        }
    }

    /// Runs a download of `name` for a member holding a new pipeline's last reference, answered by `answer`, with
    /// the downloader's thread held at the end of the finishing code until the member looked. Whether the pipeline
    /// was gone when the member let go.
    /// `cachedFirst`: the image is downloaded once first (the pipeline held by the test meanwhile), and the member
    /// revalidates that copy.
    private static func goneWhenMemberLetGo(
        _ name: String, cachedFirst: Bool = false, answer: @escaping @Sendable (SteppedDownload, Data) -> Void
    ) async throws -> Bool? {
        let (configuration, root) = try makeTestConfiguration(name)
        defer { try? FileManager.default.removeItem(at: root) }
        let provider = SteppedDownloadProvider()
        configuration.imageFetchDownloadProvider = provider
        let jpeg = try DownloaderTestEnvironment.jpeg(width: 64, height: 48)
        let url = SteppedPipelineEnvironment.url("\(name).jpg")
        let member: HoldingMember
        do {
            let pipeline = try ImagePipeline(checkedIdentifier: "hand-over-" + name, configuration: configuration)
            pipeline.diskCache.waitUntilManifestLoaded()
            if cachedFirst {
                let first = DownloadTestMember(ImageDownloadRequest(url: url, pipeline: pipeline))
                configuration.downloader.add(first)
                try await provider.next(timeout: .seconds(300)).serve(jpeg, entityTag: "\"v\"")
                #expect(await eventually { first.result != nil })
            }
            member = HoldingMember(pipeline, url: url, revalidates: cachedFirst)
        }
        let looked = member.looked
        configuration.downloader.finished.withLock {
            // A bound against a hang, never reached when the member hears the end.
            $0 = { _ in _ = looked.wait(timeout: .now() + 60) }
        }
        configuration.downloader.add(member)
        answer(try await provider.next(timeout: .seconds(300)), jpeg)
        #expect(await eventually { member.goneWhenLetGo.withLock { $0 } != nil })
        return member.goneWhenLetGo.withLock { $0 }
    }

    @Test("a downloaded image, stored to disk")
    func succeeded() async throws {
        let gone = try await Self.goneWhenMemberLetGo("complete") { download, jpeg in download.serve(jpeg) }
        #expect(gone == true)
    }

    @Test("a download that breaks off resumably, its partial kept")
    func brokeOff() async throws {
        let gone = try await Self.goneWhenMemberLetGo("partial") { download, jpeg in
            download.respond(
                status: 200,
                headers: SteppedPipelineEnvironment.resumableHeaders(length: jpeg.count, entityTag: "\"p\""))
            download.send(jpeg.prefix(jpeg.count / 2))
            download.finish(URLError(.networkConnectionLost))
        }
        #expect(gone == true)
    }

    @Test("a revalidation the server answers 304 Not Modified")
    func notModified() async throws {
        let gone = try await Self.goneWhenMemberLetGo("revalidated", cachedFirst: true) { download, _ in
            #expect(download.header("If-None-Match") == "\"v\"")
            download.respond(status: 304, headers: ["ETag": "\"v\""])
            download.finish()
        }
        #expect(gone == true)
    }
}
