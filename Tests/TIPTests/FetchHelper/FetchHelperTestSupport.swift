import Foundation
import TIPImageServer

@testable import TIP

/// A display target whose facts the test sets, recording every image it is given (lock-guarded: the helper sets
/// images on the callback queue while the test reads them).
final class FakeFetchTarget: ImageFetchable {
    struct Facts {
        var container: ImageContainer?
        var pixelSize: CGSize
        var contentMode: ContentMode
        var isVisible: Bool
        var history: [CGSize?] = []
    }

    let facts: Locked<Facts>

    init(pixelSize: CGSize, contentMode: ContentMode = .scaleAspectFit, isVisible: Bool = true) {
        facts = Locked(Facts(pixelSize: pixelSize, contentMode: contentMode, isVisible: isVisible))
    }

    var fetchedImageContainer: ImageContainer? {
        get { facts.withLock { $0.container } }
        set {
            facts.withLock {
                $0.container = newValue
                $0.history.append(newValue?.dimensions)
            }
        }
    }
    var pixelSize: CGSize {
        get { facts.withLock { $0.pixelSize } }
        set { facts.withLock { $0.pixelSize = newValue } }
    }
    var contentMode: ContentMode { facts.withLock { $0.contentMode } }
    var isVisible: Bool {
        get { facts.withLock { $0.isVisible } }
        set { facts.withLock { $0.isVisible = newValue } }
    }
    /// The dimensions of the image shown, nil when none.
    var shownDimensions: CGSize? { facts.withLock { $0.container?.dimensions } }
}

/// A data source answering from settable values.
final class FakeFetchDataSource: ImageFetchHelperDataSource {
    struct Answers {
        var url: URL?
        var request: (any ImageFetchRequest)?
        var container: ImageContainer?
        var pipeline: ImagePipeline?
        var refetchOnSizingChange = false
        var priority = ImageFetchPriority.normal
        var extraDebugLines: [String] = []
    }

    let answers: Locked<Answers>

    init(pipeline: ImagePipeline?, url: URL? = nil) {
        answers = Locked(Answers(url: url, pipeline: pipeline))
    }

    func imageContainer(for helper: ImageFetchHelper) -> ImageContainer? { answers.withLock { $0.container } }
    func imageFetchRequest(for helper: ImageFetchHelper) -> (any ImageFetchRequest)? { answers.withLock { $0.request } }
    func imageURL(for helper: ImageFetchHelper) -> URL? { answers.withLock { $0.url } }
    func imagePipeline(for helper: ImageFetchHelper) -> ImagePipeline? { answers.withLock { $0.pipeline } }
    func shouldRefetchOnTargetSizingChange(for helper: ImageFetchHelper) -> Bool {
        answers.withLock { $0.refetchOnSizingChange }
    }
    func fetchOperationPriority(for helper: ImageFetchHelper) -> ImageFetchPriority { answers.withLock { $0.priority } }
    func additionalDebugInfoStrings(for helper: ImageFetchHelper) -> [String] {
        answers.withLock { $0.extraDebugLines }
    }
}

/// A helper delegate recording events; previews and progressive scans are opt-in.
final class RecordingHelperDelegate: ImageFetchHelperDelegate {
    /// One displayed image with the helper's flags at that moment.
    struct Shown: Sendable, Equatable {
        var dimensions: CGSize
        var isFinal: Bool
        var isPreview: Bool
        var isScaled: Bool
        var isProgressive: Bool
        var isPlaceholder: Bool
    }

    let showsPreviews: Bool
    let loadsProgressively: Bool
    let events = Locked<[String]>([])
    let shown = Locked<[Shown]>([])
    let errors = Locked<[any Error]>([])

    init(showsPreviews: Bool = false, loadsProgressively: Bool = false) {
        self.showsPreviews = showsPreviews
        self.loadsProgressively = loadsProgressively
    }

    func fetchHelper(_ helper: ImageFetchHelper, shouldUpdateImageWithPreviewImageResult result: ImageFetchResult)
        -> Bool
    {
        showsPreviews
    }
    func fetchHelper(
        _ helper: ImageFetchHelper, shouldLoadProgressivelyWithIdentifier identifier: String, url: URL,
        imageType: ImageType, originalDimensions: CGSize
    ) -> Bool {
        loadsProgressively
    }
    func fetchHelperDidStartLoading(_ helper: ImageFetchHelper) { record("start") }
    func fetchHelperDidStartLoadingFromNetwork(_ helper: ImageFetchHelper) { record("network") }
    func fetchHelper(
        _ helper: ImageFetchHelper, didUpdateDisplayedImageContainer container: ImageContainer,
        fromSourceDimensions sourceDimensions: CGSize, isFinal: Bool
    ) {
        shown.withLock {
            $0.append(
                Shown(
                    dimensions: container.dimensions, isFinal: isFinal, isPreview: helper.fetchedImageIsPreview,
                    isScaled: helper.fetchedImageIsScaledPreviewAsFinal,
                    isProgressive: helper.fetchedImageIsProgressiveFrame,
                    isPlaceholder: helper.fetchedImageTreatedAsPlaceholder))
        }
        record(isFinal ? "final-image" : "image")
    }
    func fetchHelper(_ helper: ImageFetchHelper, didLoadFinalImageFrom source: ImageLoadSource) {
        record("loaded:\(source)")
    }
    func fetchHelper(_ helper: ImageFetchHelper, didFailToLoadFinalImage error: any Error) {
        errors.withLock { $0.append(error) }
        record("failed")
    }
    func fetchHelperDidReset(_ helper: ImageFetchHelper) { record("reset") }

    private func record(_ event: String) { events.withLock { $0.append(event) } }
    var eventList: [String] { events.withLock { $0 } }
}

/// A pipeline, server, target, data source, delegate and helper wired together. A stepped bed's downloads come
/// from ``downloads``, which the test steps by hand, instead of the server.
final class FetchHelperTestBed: Sendable {
    let env: DownloaderTestEnvironment
    let target: FakeFetchTarget
    let dataSource: FakeFetchDataSource
    let delegate: RecordingHelperDelegate
    let helper: ImageFetchHelper
    /// The downloads of a stepped bed (unused otherwise).
    let downloads = SteppedDownloadProvider()

    init(
        pixelSize: CGSize = CGSize(width: 200, height: 200), visible: Bool = true,
        delegate: RecordingHelperDelegate = RecordingHelperDelegate(),
        stepped: Bool = false, _ name: String = #function
    ) async throws {
        env = try await DownloaderTestEnvironment(name)
        if stepped { env.configuration.imageFetchDownloadProvider = downloads }
        target = FakeFetchTarget(pixelSize: pixelSize, isVisible: visible)
        dataSource = FakeFetchDataSource(pipeline: env.pipeline)
        self.delegate = delegate
        helper = ImageFetchHelper(delegate: delegate, dataSource: dataSource, configuration: env.configuration)
    }

    var server: TIPImageServer { env.server }
    var pipeline: ImagePipeline { env.pipeline }

    /// Runs `body` on the callback queue (where the helper lives) and returns its result.
    func onQueue<T: Sendable>(_ body: @Sendable () -> T) -> T {
        env.configuration.callbackQueue.sync(execute: body)
    }

    /// Serves a generated JPEG at `path` and points the data source's URL at it.
    @discardableResult
    func serve(
        _ path: String, width: Int = 800, height: Int = 600, progressive: Bool = false, seed: UInt64 = 1,
        use: Bool = true
    ) throws -> URL {
        let data = try DownloaderTestEnvironment.jpeg(
            width: width, height: height, progressive: progressive, seed: seed)
        server.setImage(data, at: path)
        let url = server.url(for: path)
        if use { dataSource.answers.withLock { $0.url = url } }
        return url
    }

    /// For a stepped bed: a generated JPEG for the test to answer `name`'s download with, and its URL, which the
    /// data source's URL points at unless `use` is false.
    func stepped(
        _ name: String, width: Int = 800, height: Int = 600, progressive: Bool = false, seed: UInt64 = 1,
        use: Bool = true
    ) throws -> (url: URL, data: Data) {
        let data = try DownloaderTestEnvironment.jpeg(
            width: width, height: height, progressive: progressive, seed: seed)
        let url = SteppedPipelineEnvironment.url(name)
        if use { dataSource.answers.withLock { $0.url = url } }
        return (url, data)
    }

    /// Attaches the target (a visible target appears at once).
    func attach() {
        onQueue { helper.target = target }
    }

    /// The target appears.
    func appear() {
        onQueue {
            target.isVisible = true
            helper.triggerTargetWillAppear()
            helper.triggerTargetDidAppear()
        }
    }

    /// The target disappears.
    func disappear() {
        onQueue {
            target.isVisible = false
            helper.triggerTargetWillDisappear()
            helper.triggerTargetDidDisappear()
        }
    }

    func tearDown() async {
        onQueue { helper.cancelFetchRequest() }
        await env.tearDown()
    }
}
