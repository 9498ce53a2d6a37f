import Foundation
import TIPImageServer
import Testing

@testable import TIP

/// The README's fetch-helper example (the lead's README section), with the test's own configuration.
final class ReadmeTile: ImageFetchable, ImageFetchHelperDataSource, @unchecked Sendable {
    // Used on the callback queue only (and read by the test after the queue drained).
    var fetchedImageContainer: ImageContainer?
    var pixelSize = CGSize(width: 300, height: 300)
    var contentMode = ContentMode.scaleAspectFill
    var isVisible = true
    var url: URL?
    let pipeline: ImagePipeline
    init(pipeline: ImagePipeline) { self.pipeline = pipeline }
    func imageURL(for helper: ImageFetchHelper) -> URL? { url }
    func imagePipeline(for helper: ImageFetchHelper) -> ImagePipeline? { pipeline }
    func shouldRefetchOnTargetSizingChange(for helper: ImageFetchHelper) -> Bool { true }
}

@Suite("ImageFetchHelper: README example")
struct ImageFetchHelperReadmeExampleTests {
    @Test("the README example runs as described")
    func example() async throws {
        let env = try await DownloaderTestEnvironment()
        env.server.setImage(try DownloaderTestEnvironment.jpeg(width: 900, height: 600), at: "/tile.jpg")
        let tile = ReadmeTile(pipeline: env.pipeline)
        tile.url = env.server.url(for: "/tile.jpg")
        let queue = env.configuration.callbackQueue
        let helper = ImageFetchHelper(delegate: nil, dataSource: tile, configuration: env.configuration)

        // From the README (on the callback queue):
        queue.sync {
            helper.disappearanceBehavior = .lowerImageFetchPriority
            helper.target = tile  // visible: appears, fetches at 300x300
        }
        #expect(await eventually { helper.fetchedImageIsFullLoad })
        #expect(queue.sync { tile.fetchedImageContainer?.dimensions } == CGSize(width: 450, height: 300))
        queue.sync {
            tile.pixelSize = CGSize(width: 600, height: 600)
            helper.triggerTargetLayoutChanged()  // refetches at 600x600
        }
        #expect(await eventually { helper.fetchedImageIsFullLoad })
        #expect(queue.sync { tile.fetchedImageContainer?.dimensions } == CGSize(width: 900, height: 600))
        let lines = queue.sync { helper.debugInfoStrings() }  // ["100%", "Mem done"]
        #expect(lines == ["100%", "Mem done"])
        queue.sync { helper.cancelFetchRequest() }
        await env.tearDown()
    }
}
