import Foundation

/// One image fetch (TIP's `TIPImageFetchOperation`): an asynchronous `Operation` made by a pipeline, run on the
/// configuration's shared fetch queue, that looks in the memory cache, the disk cache and the network (through
/// the shared downloader) and reports to its delegate on the callback queue.
///
/// `cancel()` is TIP's: the delegate gets a `cancelled` failure; an operation cancelled before it started still
/// starts (at once, even while a dependency has not finished), reports the failure and finishes, without
/// `didStart`. A delegate that goes away cancels the fetch, unless it was discarded first (the fetch then runs
/// headless). `priority` may change at any time: before the start it sets the queue priority, afterwards it
/// re-prioritizes the download.
///
/// Thread-safe: every mutable field sits in `guarded` (a lock); the work runs on the operation's own serial
/// queue, which is also where download events arrive.
public final class ImageFetchOperation: Operation, AsynchronousOperation, ImageDownloadMember, @unchecked Sendable {
    struct Guarded {
        /// Where the fetch is (state, running, downloading, cancel requested): one value.
        var phase = ImageFetchOperationPhase.idle(cancelReason: nil)
        weak var delegate: (any ImageFetchDelegate)?
        /// A delegate the operation owns (the completion-block convenience), kept until the fetch ends.
        var ownedDelegate: (any ImageFetchDelegate)?
        /// Whether a delegate was given and not discarded: its disappearance then cancels the fetch.
        var expectsDelegate = false
        var priority: ImageFetchPriority = .normal
        var context: (any Sendable)?
        var previewResult: ImageFetchResult?
        var progressiveResult: ImageFetchResult?
        var finalResult: ImageFetchResult?
        var error: (any Error)?
        var progress: Float = 0
        var metrics: ImageFetchMetrics?
        var recorder = ImageFetchMetricsRecorder()
        var progressiveFrameCount = 0
        var networkLoadImageType: ImageType?
        var networkImageOriginalDimensions: CGSize = .zero
        /// Whether the memory or disk cache held the fetch's image, stale (the download revalidates it).
        var foundStaleImage = false
        /// Whether a partial of the fetch's URL was found to resume: the fetch jumps to the network, reported as
        /// `networkResumed` (TIP's `shouldJumpToResumingDownload`).
        var jumpsToResume = false
        /// The operation's serial queue, made on first use.
        var workQueue: DispatchQueue?
        var enqueuedAt: ContinuousClock.Instant?
        var startedAt: ContinuousClock.Instant?
        var finishedAt: ContinuousClock.Instant?

        /// A fetch's state before it runs.
        init(delegate: (any ImageFetchDelegate)?, ownsDelegate: Bool, context: (any Sendable)?) {
            self.delegate = delegate
            expectsDelegate = delegate != nil
            if ownsDelegate { ownedDelegate = delegate }
            self.context = context
        }
    }

    /// The request, as given (read when needed).
    public let request: any ImageFetchRequest
    /// The pipeline that made the operation.
    public var imagePipeline: ImagePipeline { pipelineHold.pipeline }
    /// Holds the pipeline until the operation goes away (the `async` API waits for its release).
    let pipelineHold: PipelineHold
    let guarded: Locked<Guarded>
    /// What progressive rendering decided and holds; touched only on `workQueue`.
    let rendering = ImageFetchProgressiveRendering()
    let configuration: GlobalConfiguration
    let clock = ContinuousClock()
    /// The identifier the caches use.
    let identifier: String
    /// What the fetch does to the decoded image: transformer, scaling, processors.
    let processing: ImageFetchProcessing
    /// Whether the delegate hears of the fetch on the operation's own queue instead of the callback queue: the
    /// async API's internal delegates, so that `try await` never depends on the callback queue being serviced.
    let deliversOnOwnQueue: Bool

    init(
        pipeline: ImagePipeline, request: any ImageFetchRequest, context: (any Sendable)?,
        delegate: (any ImageFetchDelegate)?,
        ownsDelegate: Bool = false, deliversOnOwnQueue: Bool = false
    ) {
        self.request = request
        self.deliversOnOwnQueue = deliversOnOwnQueue
        self.pipelineHold = PipelineHold(pipeline)
        self.configuration = pipeline.configuration
        self.identifier = request.resolvedImageIdentifier
        self.processing = ImageFetchProcessing(request: request)
        // Made in place: a state built in a local and then handed over was copied whole, a fifth of making
        // an operation.
        guarded = Locked(Guarded(delegate: delegate, ownsDelegate: ownsDelegate, context: context))
        super.init()
    }

    /// The operation's own serial queue, where its work runs and download events arrive; made on first use,
    /// so a synchronous rendered-cache hit never pays for one. Never read it while holding `guarded`.
    var workQueue: DispatchQueue {
        guarded.withLock { state in
            if let queue = state.workQueue { return queue }
            let made = DispatchQueue(label: "TIP.ImageFetchOperation")
            state.workQueue = made
            return made
        }
    }

    // MARK: Public state

    /// The fetch's state.
    public var state: ImageFetchOperationState { guarded.withLock { $0.phase.state } }
    /// The delegate (held weakly).
    public var delegate: (any ImageFetchDelegate)? { guarded.withLock { $0.delegate } }
    /// Anything the caller wants to keep with the operation.
    public var context: (any Sendable)? {
        get { guarded.withLock { $0.context } }
        set { guarded.withLock { $0.context = newValue } }
    }
    /// The preview delivered, if any.
    public var previewResult: ImageFetchResult? { guarded.withLock { $0.previewResult } }
    /// The latest progressive scan or first animation frame delivered, if any.
    public var progressiveResult: ImageFetchResult? { guarded.withLock { $0.progressiveResult } }
    /// The final image, once delivered.
    public var finalResult: ImageFetchResult? { guarded.withLock { $0.finalResult } }
    /// Why the fetch failed, once it did.
    public var error: (any Error)? { guarded.withLock { $0.error } }
    /// Download progress, 0...1.
    public var progress: Float { guarded.withLock { $0.progress } }
    /// What each source did; nil until the fetch ended.
    public var metrics: ImageFetchMetrics? { guarded.withLock { $0.metrics } }
    /// Completed scans (or frames) of the downloaded image seen so far.
    public var progressiveFrameCount: Int { guarded.withLock { $0.progressiveFrameCount } }
    /// The type of the downloaded image, once known.
    public var networkLoadImageType: ImageType? { guarded.withLock { $0.networkLoadImageType } }
    /// The downloaded image's own dimensions, once known.
    public var networkImageOriginalDimensions: CGSize { guarded.withLock { $0.networkImageOriginalDimensions } }
    /// Seconds between being enqueued and starting.
    public var timeSpentIdleInQueue: TimeInterval {
        guarded.withLock { state in
            guard let enqueued = state.enqueuedAt else { return 0 }
            return ((state.startedAt ?? clock.now) - enqueued).timeInterval
        }
    }
    /// Seconds between starting and finishing (so far, while running).
    public var timeSpentExecuting: TimeInterval {
        guarded.withLock { state in
            guard let started = state.startedAt else { return 0 }
            return ((state.finishedAt ?? clock.now) - started).timeInterval
        }
    }

    /// The fetch's priority. Before the start it sets the queue priority; afterwards it re-prioritizes the
    /// shared download.
    public var priority: ImageFetchPriority {
        get { guarded.withLock { $0.priority } }
        set {
            let downloading = guarded.withLock { state -> Bool in
                state.priority = newValue
                return state.phase.isDownloading
            }
            if !isExecuting && !isFinished { queuePriority = newValue.queuePriority }
            if downloading { configuration.downloader.priorityDidChange(for: self) }
        }
    }

    /// Forgets the delegate: the fetch goes on headless (callbacks already queued still reach it).
    public func discardDelegate() {
        guarded.withLock {
            $0.delegate = nil
            $0.ownedDelegate = nil
            $0.expectsDelegate = false
        }
    }

    /// TIP: a delegate that went away (without being discarded) cancels the fetch; said once, at debug level.
    func cancelIfDelegateIsGone() {
        let gone = guarded.withLock { state -> Bool in
            guard state.expectsDelegate, state.delegate == nil else { return false }
            state.expectsDelegate = false  // the cancel below is final: report it once
            return true
        }
        guard gone else { return }
        configuration.log(
            .debug,
            "the fetch of \(request.imageURL.absoluteString) is cancelled: its delegate was released "
                + "(the operation holds its delegate weakly; keep a reference to it, or call discardDelegate() to let "
                + "the "
                + "fetch run without one)")
        cancel(reason: "its delegate was released")
    }

    /// Waits for the fetch to finish while turning the current run loop in 0.3 s slices, so callbacks on the
    /// main queue still run (TIP's `waitUntilFinishedWithoutBlockingRunLoop`). A slice in which the run loop has
    /// nothing to run (no source, timer or block: any thread but the main one, on Linux, unless given some)
    /// waits for the fetch to finish instead of returning at once and spinning.
    public func waitUntilFinishedWithoutBlockingRunLoop() {
        while !isFinished {
            let sliceEnd = Date(timeIntervalSinceNow: 0.3)
            if !RunLoop.current.run(mode: .default, before: sliceEnd) {
                Self.finishing.lock()
                while !isFinished && Self.finishing.wait(until: sliceEnd) {}
                Self.finishing.unlock()
            }
        }
    }

    /// Broadcast whenever an operation finishes, for ``waitUntilFinishedWithoutBlockingRunLoop()``'s slices
    /// without anything to run (one for all operations: a waiter looks at its own operation again).
    static let finishing = NSCondition()

    /// Forgets the delegate, then cancels: the delegate hears nothing more, not even the cancellation (as TIP).
    public func cancelAndDiscardDelegate() {
        discardDelegate()
        cancel()
    }

    // MARK: Operation

    /// Always true: the work runs on the operation's own queue.
    public override var isAsynchronous: Bool { true }
    /// Whether the fetch is running.
    public override var isExecuting: Bool { guarded.withLock { $0.phase.isExecuting } }
    /// Whether the fetch ended (after its last callback ran).
    public override var isFinished: Bool { guarded.withLock { $0.phase.isFinished } }
    /// Whether the fetch ended cancelled (TIP's: the state is `cancelled`); false right after `cancel()`, until the
    /// fetch has handled it.
    public override var isCancelled: Bool { state == .cancelled }

    /// Cancels the fetch (TIP's semantics: see the type's documentation). Asynchronous; idempotent.
    public override func cancel() {
        cancel(reason: "the fetch was cancelled")
    }

    /// Cancels the fetch, saying why in its `cancelled` error.
    func cancel(reason: String) {
        let downloading = guarded.withLock { state -> Bool? in
            guard let cancelled = state.phase.cancelled(reason: reason) else { return nil }
            state.phase = cancelled
            return cancelled.isDownloading
        }
        if downloading == true { configuration.downloader.remove(self, reason: reason) }
        // Foundation's part: a cancelled operation stops waiting for its dependencies, so a fetch queued behind one
        // that never finishes still starts, reports its cancellation and finishes. The unfinished ones are let go
        // first: swift-corelibs-foundation keeps an unretained pointer to this operation in each of them, which
        // would dangle (a crash when that dependency finishes) once this fetch ends and is freed before it.
        for dependency in dependencies where !dependency.isFinished { removeDependency(dependency) }
        super.cancel()
    }

    /// Starts the fetch (called by the queue).
    public override func start() {
        guard !guarded.withLock({ $0.phase.hasStarted }) else { return }
        let now = clock.now
        transition(executing: true, finished: false) {
            guarded.withLock { state in
                state.phase = .running(.idle, cancelReason: state.phase.cancelReason, isDownloading: false)
                state.startedAt = now
            }
        }
        workQueue.async { self.run() }
    }

    func markEnqueued() {
        guarded.withLock { $0.enqueuedAt = clock.now }
    }
}
