import Foundation
import TIP

/// One display tile of the helper driver's virtual list: the `ImageFetchable` target of its own
/// `ImageFetchHelper`, and that helper's data source and delegate. It shows one row (a ``FetchJob``) at a time:
/// ``show(_:in:events:)`` hands the helper the row's request and makes the tile appear; the helper's callbacks
/// become the row's events; when the final image (or an error) arrives the tile scrolls away and goes back to
/// the list for reuse. Its disappearance behaviour lowers the priority of a fetch still in flight (a tile the
/// churn scenario scrolls away), like a list that lets off-screen images finish slowly.
///
/// Touched only on the pipelines' callback queue, the helper's queue.
final class SampleTile: ImageFetchable, ImageFetchHelperDataSource, ImageFetchHelperDelegate, @unchecked Sendable {
    // @unchecked: every stored property is only touched on the callback queue (the helper calls the target, the
    // data source and the delegate there; the runner starts, cancels and reprioritizes there). The one callback
    // asked on a fetch's queue (`shouldLoadProgressively`) reads nothing.

    /// The row a tile shows, as the run holds it.
    final class Row: FetchHandle, @unchecked Sendable {
        // @unchecked: immutable but for `tile`, which is only touched on the callback queue.
        let job: FetchJob
        let pipeline: ImagePipeline
        let events: FetchEvents
        weak var tile: SampleTile?

        init(job: FetchJob, pipeline: ImagePipeline, events: FetchEvents, tile: SampleTile) {
            self.job = job
            self.pipeline = pipeline
            self.events = events
            self.tile = tile
        }

        /// The list drops the row: the helper cancels its fetch and the row ends as cancelled.
        func cancel() { tile?.cancel(self) }

        /// Below `.normal` the tile scrolls away (the helper lowers the fetch's priority); otherwise it scrolls
        /// back (the helper restores it). The helper has no other way to set a running fetch's priority.
        func changePriority(_ priority: ImageFetchPriority) { tile?.scroll(self, visible: priority >= .normal) }
    }

    /// The size tiles give full-size rows of images whose size the sample does not know (`--images`).
    static let fallbackFullSize = CGSize(width: 2048, height: 2048)

    var fetchedImageContainer: ImageContainer?
    private(set) var pixelSize = CGSize.zero
    let contentMode = ContentMode.scaleAspectFit
    private(set) var isVisible = false

    private let helper: ImageFetchHelper
    private let didScrollAway: (SampleTile) -> Void
    private var row: Row?
    private var lastRequestURL: URL?
    private var lastTargetDimensions = CGSize.zero

    /// A tile off screen; `didScrollAway` runs each time a row ends and the tile is free again.
    init(didScrollAway: @escaping (SampleTile) -> Void) {
        helper = ImageFetchHelper()
        self.didScrollAway = didScrollAway
        helper.disappearanceBehavior = .lowerImageFetchPriority
        helper.dataSource = self
        helper.delegate = self
        helper.target = self
    }

    /// Shows `job`: the helper gets the new request while the tile is off screen (it cancels nothing here, as the
    /// last row ended, and keeps the image as a preview when the identifier is the same), then the tile appears and
    /// the helper fetches. The row may end before this returns (a rendered-cache hit).
    func show(_ job: FetchJob, in pipeline: ImagePipeline, events: FetchEvents) -> Row {
        let row = Row(job: job, pipeline: pipeline, events: events, tile: self)
        self.row = row
        pixelSize = Self.displaySize(of: job)
        if lastRequestURL == job.url && lastTargetDimensions == job.targetDimensions {
            // The same request again: the helper would keep showing its final image and fetch nothing; a real
            // list's reused cell starts empty.
            helper.clearImage()
        }
        lastRequestURL = job.url
        lastTargetDimensions = job.targetDimensions
        helper.dataSourceDidChange()
        isVisible = true
        helper.triggerTargetWillAppear()
        helper.triggerTargetDidAppear()
        if self.row === row, !helper.isLoading {
            end(row, .failed("the fetch helper started no fetch"))
        }
        return row
    }

    /// The pixel size a row is displayed at: the thumbnail target, else the full image's own size.
    static func displaySize(of job: FetchJob) -> CGSize {
        if job.targetDimensions.width > 0 && job.targetDimensions.height > 0 { return job.targetDimensions }
        guard let full = job.image.full else { return fallbackFullSize }
        return CGSize(width: full.width, height: full.height)
    }

    private func cancel(_ row: Row) {
        guard self.row === row else { return }
        helper.cancelFetchRequest()
        end(row, .cancelled)
    }

    private func scroll(_ row: Row, visible: Bool) {
        guard self.row === row, isVisible != visible else { return }
        isVisible = visible
        if visible {
            helper.triggerTargetWillAppear()
            helper.triggerTargetDidAppear()
        } else {
            helper.triggerTargetWillDisappear()
            helper.triggerTargetDidDisappear()
        }
    }

    /// Ends the row: the tile scrolls away (nothing is in flight any more), is free again, and the run hears
    /// the outcome.
    private func end(_ row: Row, _ outcome: FetchOutcome) {
        guard self.row === row else { return }
        self.row = nil
        if isVisible {
            isVisible = false
            helper.triggerTargetWillDisappear()
            helper.triggerTargetDidDisappear()
        }
        didScrollAway(self)
        row.events.finished(outcome)
    }

    // MARK: ImageFetchHelperDataSource

    func imageFetchRequest(for helper: ImageFetchHelper) -> (any ImageFetchRequest)? {
        row?.job.request
    }

    func imagePipeline(for helper: ImageFetchHelper) -> ImagePipeline? {
        row?.pipeline
    }

    // MARK: ImageFetchHelperDelegate

    func fetchHelper(_ helper: ImageFetchHelper, shouldUpdateImageWithPreviewImageResult result: ImageFetchResult)
        -> Bool
    {
        true
    }

    func fetchHelper(
        _ helper: ImageFetchHelper, shouldLoadProgressivelyWithIdentifier identifier: String, url: URL,
        imageType: ImageType, originalDimensions: CGSize
    ) -> Bool {
        true
    }

    func fetchHelper(
        _ helper: ImageFetchHelper, didUpdateDisplayedImageContainer container: ImageContainer,
        fromSourceDimensions sourceDimensions: CGSize, isFinal: Bool
    ) {
        guard let row else { return }
        if helper.fetchedImageIsPreview || helper.fetchedImageIsScaledPreviewAsFinal {
            row.events.preview()
        } else if helper.fetchedImageIsProgressiveFrame {
            row.events.progressiveFrame()
        }
    }

    func fetchHelper(_ helper: ImageFetchHelper, didLoadFinalImageFrom source: ImageLoadSource) {
        guard let row, let container = fetchedImageContainer else { return }
        let result = ImageFetchResult(
            imageContainer: container, imageSource: source, imageURL: helper.fetchedImageURL ?? row.job.url,
            imageOriginalDimensions: helper.fetchResultDimensions,
            imageIsTreatedAsPlaceholder: helper.fetchedImageTreatedAsPlaceholder,
            imageWasTransformed: false, imageIdentifier: row.job.image.identifier,
            imageWasRevalidated: helper.fetchMetrics?.metricInfo(for: .network)?.wasRevalidated ?? false)
        end(row, .succeeded(result))
    }

    func fetchHelper(_ helper: ImageFetchHelper, didFailToLoadFinalImage error: any Error) {
        guard let row else { return }
        end(row, FetchOutcome(error: error))
    }
}
