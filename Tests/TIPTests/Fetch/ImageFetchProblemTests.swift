import Foundation
import Testing

@testable import TIP

/// TIP's declared problems are posted where TIP posts them, and a released delegate's cancel is logged.
@Suite("Fetch problems posted as TIP posts them")
struct ImageFetchProblemTests {
    @Test(
        """
        target dimensions neither zero nor positive and finite: TIPProblemImageFetchHasInvalidTargetDimensions, the \
        image at its own size (not 1x1 for an infinite target)
        """,
        arguments: [
            CGSize(width: -10, height: 50), CGSize(width: 0, height: 50), CGSize(width: -1, height: -1),
            CGSize(width: CGFloat.infinity, height: .infinity), CGSize(width: 10, height: CGFloat.infinity),
            CGSize(width: CGFloat.nan, height: 10),
        ])
    func invalidTargetDimensions(target: CGSize) async throws {
        let env = try SteppedPipelineEnvironment()
        defer { env.tearDown() }
        let logger = CapturingLogger(minimumLevel: .warning)
        env.configuration.logger = logger
        let url = SteppedPipelineEnvironment.url("invalid-target.jpg")
        let request = GenericImageFetchRequest(
            imageURL: url, identifier: nil, targetDimensions: target, targetContentMode: .scaleAspectFit)
        let (result, _) = try await env.fetch(
            request, serving: try DownloaderTestEnvironment.jpeg(width: 64, height: 48))
        #expect(result?.imageContainer.dimensions == CGSize(width: 64, height: 48))
        let info = try #require(env.problems.infos(.imageFetchHasInvalidTargetDimensions).first)
        let posted = try #require(info[ProblemInfoKey.targetDimensions] as? CGSize)
        #expect(posted == target || (posted.width.isNaN && target.width.isNaN && posted.height == target.height))
        #expect(info[ProblemInfoKey.imageURL] as? String == url.absoluteString)
        #expect(env.problems.count(.imageFetchHasInvalidTargetDimensions) == 1)
        // The log says it in a sentence, not with the whole request's description.
        let logged = logger.messages(containing: "TIPProblemImageFetchHasInvalidTargetDimensions")
        #expect(logged.count == 1)
        #expect(logged.allSatisfy { $0.contains("are not usable") && !$0.contains("GenericImageFetchRequest(") })
    }

    @Test("zero or positive target dimensions post nothing")
    func validTargetDimensions() async throws {
        let env = try SteppedPipelineEnvironment()
        defer { env.tearDown() }
        let jpeg = try DownloaderTestEnvironment.jpeg(width: 64, height: 48)
        _ = try await env.fetch(
            GenericImageFetchRequest(imageURL: SteppedPipelineEnvironment.url("zero.jpg")), serving: jpeg)
        _ = try await env.fetch(
            GenericImageFetchRequest(
                imageURL: SteppedPipelineEnvironment.url("sized.jpg"), identifier: nil,
                targetDimensions: CGSize(width: 10, height: 10), targetContentMode: .scaleAspectFit),
            serving: jpeg)
        #expect(env.problems.count(.imageFetchHasInvalidTargetDimensions) == 0)
        #expect(env.problems.count(.imageDownloadedHasGPSInfo) == 0)
    }

    /// `jpeg` with an EXIF APP1 segment whose first IFD points to an (empty) GPS directory.
    static func withGPSDirectory(_ jpeg: Data) -> Data {
        let tiff: [UInt8] = [
            0x49, 0x49, 0x2A, 0x00, 0x08, 0x00, 0x00, 0x00,  // "II", 42, IFD0 at 8
            0x01, 0x00,  // one entry
            0x25, 0x88, 0x04, 0x00, 0x01, 0x00, 0x00, 0x00, 0x1A, 0x00, 0x00, 0x00,  // GPS IFD at 26
            0x00, 0x00, 0x00, 0x00,  // no next IFD
            0x00, 0x00, 0x00, 0x00, 0x00, 0x00,
        ]  // the GPS IFD: no entries
        let payload = Array("Exif".utf8) + [0, 0] + tiff
        let length = payload.count + 2
        let segment: [UInt8] = [0xFF, 0xE1, UInt8(length >> 8), UInt8(length & 0xFF)] + payload
        return Data([0xFF, 0xD8] + segment) + jpeg.dropFirst(2)
    }

    @Test("a downloaded JPEG with an EXIF GPS directory: TIPProblemImageDownloadedHasGPSInfo, still delivered")
    func gpsInfo() async throws {
        let env = try SteppedPipelineEnvironment()
        defer { env.tearDown() }
        let url = SteppedPipelineEnvironment.url("located.jpg")
        let located = Self.withGPSDirectory(try DownloaderTestEnvironment.jpeg(width: 64, height: 48))
        let (result, error) = try await env.fetch(GenericImageFetchRequest(imageURL: url), serving: located)
        #expect(result?.imageContainer.dimensions == CGSize(width: 64, height: 48), "\(String(describing: error))")
        #expect(
            env.problems.infos(.imageDownloadedHasGPSInfo).map { $0[ProblemInfoKey.imageURL] as? String } == [
                url.absoluteString
            ])
    }

    @Test("a target whose scaled image would pass the pixel limit: TIPProblemImageFailedToScale, the image unscaled")
    func failedToScale() async throws {
        let env = try SteppedPipelineEnvironment()
        defer { env.tearDown() }
        let request = GenericImageFetchRequest(
            imageURL: SteppedPipelineEnvironment.url("huge-target.jpg"), identifier: nil,
            targetDimensions: CGSize(width: 20_000, height: 20_000), targetContentMode: .scaleAspectFill)
        let (result, error) = try await env.fetch(
            request, serving: try DownloaderTestEnvironment.jpeg(width: 64, height: 48))
        #expect(result?.imageContainer.dimensions == CGSize(width: 64, height: 48), "\(String(describing: error))")
        let info = try #require(env.problems.infos(.imageFailedToScale).first)
        #expect(info[ProblemInfoKey.scaledDimensions] as? CGSize == CGSize(width: 26_667, height: 20_000))
        #expect(info[ProblemInfoKey.dimensions] as? CGSize == CGSize(width: 64, height: 48))
    }

    @Test("storing under the empty identifier: TIPProblemDiskCacheUpdateImageEntryCouldNotGenerateFileName")
    func noFileName() async throws {
        let env = try SteppedPipelineEnvironment()
        defer { env.tearDown() }
        var store = GenericImageStoreRequest(imageURL: SteppedPipelineEnvironment.url("nameless.jpg"), identifier: "")
        store.imageData = try DownloaderTestEnvironment.jpeg(width: 16, height: 16)
        await withCheckedContinuation { done in env.pipeline.storeImage(with: store) { _, _ in done.resume() } }
        let info = try #require(env.problems.infos(.diskCacheUpdateImageEntryCouldNotGenerateFileName).first)
        #expect(info[ProblemInfoKey.imageIdentifier] as? String == "")
        #expect(env.pipeline.diskCache.count == 0)
    }

    @Test("a delegate nobody holds cancels its fetch, and says so at debug level")
    func releasedDelegate() async throws {
        final class Forgotten: ImageFetchDelegate {}
        let env = try SteppedPipelineEnvironment()
        defer { env.tearDown() }
        let logger = CapturingLogger()
        env.configuration.logger = logger
        var delegate: Forgotten? = Forgotten()
        let operation = env.pipeline.operation(
            with: GenericImageFetchRequest(imageURL: SteppedPipelineEnvironment.url("orphan.jpg")),
            delegate: delegate)
        env.pipeline.fetchImage(with: operation)
        let download = try await env.provider.next()
        delegate = nil
        #expect(await eventually { operation.isFinished })
        #expect(operation.state == .cancelled)
        #expect(await download.waitUntilOver())
        let logged = logger.messages(containing: "its delegate was released", level: .debug)
        #expect(logged.count == 1 && logged[0].contains("discardDelegate()"), "\(logged)")
        #expect((operation.error as? ImageFetchError)?.message.contains("(its delegate was released)") == true)
        withExtendedLifetime(delegate) {}
    }
}
