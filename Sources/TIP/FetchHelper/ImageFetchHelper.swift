import Foundation

/// Drives the fetches of one display target (TIP's `TIPImageViewFetchHelper`, without UIKit): it asks its
/// data source what to show, fetches it, shows previews, progressive scans and the final image in the
/// ``ImageFetchable`` target, and applies a UI's policies — refetch when the request or the target sizing
/// changes, placeholders, what to do when the target disappears, lower priority while hidden, reload when
/// another fetch stores the image, retry failed loads on demand.
///
/// ```swift
/// let helper = ImageFetchHelper(delegate: nil, dataSource: model)   // model answers imageURL/imagePipeline
/// helper.target = tile
/// helper.triggerTargetWillAppear()
/// helper.triggerTargetDidAppear()
/// ```
///
/// Threading: use the helper on the callback queue of the configuration its pipelines use
/// (``GlobalConfiguration/callbackQueue``, on Linux the library's own queue by default) — call triggers and
/// actions there; the helper calls its target, delegate and data source there too (except the delegate's synchronous
/// `shouldLoadProgressively` question, asked on the fetch's queue). Reading its state is safe from any thread.
public final class ImageFetchHelper: @unchecked Sendable {
    // @unchecked: every mutable field is in `guarded` (a lock), never held while calling out. Mutations happen on
    // the callback queue only (the documented contract), so sequences of lock sections do not interleave.

    struct Flags {
        var transitioningAppearance = false
        var didCancelOnDisappear = false
        var didChangePriorityOnDisappear = false
        var didTreatBackgroundingAsDisappearance = false
        var isFinal = false
        var isProgressive = false
        var isPreview = false
        var isScaled = false
        var isPlaceholder = false
        var didLoadAny: Bool { isFinal || isScaled || isProgressive || isPreview }
    }

    struct State {
        weak var target: (any ImageFetchable)?
        weak var delegate: (any ImageFetchHelperDelegate)?
        weak var dataSource: (any ImageFetchHelperDataSource)?
        var disappearanceBehavior = DisappearanceBehavior.unload
        var treatsBackgroundAsDisappearance = false
        var fetchRequest: (any ImageFetchRequest)?
        var operation: ImageFetchOperation?
        var priorPriority = ImageFetchPriority.normal
        var flags = Flags()
        var fetchProgress: Float = 0
        var fetchError: (any Error)?
        var fetchMetrics: ImageFetchMetrics?
        var fetchResultDimensions = CGSize.zero
        var fetchSource = ImageLoadSource.unknown
        var fetchedImageURL: URL?
        var loadedImageType: ImageType?
        /// The pipeline whose stores may trigger a reload (TIP's observed pipeline identifier).
        var observedPipelineIdentifier: String?
        weak var observedConfiguration: GlobalConfiguration?
    }

    let guarded = Locked(State())
    /// The configuration whose callback queue the helper lives on.
    let configuration: GlobalConfiguration
    /// The fetch delegate given to operations (holds the helper weakly).
    let operationDelegate = ImageFetchHelperOperationDelegate()
    /// Hears stores into pipelines (holds the helper weakly).
    let storeObserver = ImageFetchHelperStoreObserver()

    /// A helper living on ``GlobalConfiguration/shared``'s callback queue, with TIP's defaults: disappearance
    /// behaviour `.unload`, application background not treated as disappearance.
    public convenience init(
        delegate: (any ImageFetchHelperDelegate)? = nil, dataSource: (any ImageFetchHelperDataSource)? = nil
    ) {
        self.init(delegate: delegate, dataSource: dataSource, configuration: .shared)
    }

    /// A helper living on `configuration`'s callback queue (tests use their own configuration).
    init(
        delegate: (any ImageFetchHelperDelegate)?, dataSource: (any ImageFetchHelperDataSource)?,
        configuration: GlobalConfiguration
    ) {
        self.configuration = configuration
        guarded.withLock {
            $0.delegate = delegate
            $0.dataSource = dataSource
        }
        operationDelegate.helper.attach(self)
        storeObserver.helper.attach(self)
        ImageFetchHelper.registry.add(self)
    }

    deinit {
        let (operation, observed) = guarded.withLock { ($0.operation, $0.observedConfiguration) }
        operation?.cancelAndDiscardDelegate()
        observed?.removeImagePipelineObserver(storeObserver)
    }

    // MARK: Configuration

    /// The display target (held weakly). Replacing a visible target runs the disappearance of the old one and
    /// the appearance of the new one.
    public var target: (any ImageFetchable)? {
        get { guarded.withLock { $0.target } }
        set { replaceTarget(with: newValue) }
    }
    /// The delegate (held weakly).
    public var delegate: (any ImageFetchHelperDelegate)? {
        get { guarded.withLock { $0.delegate } }
        set { guarded.withLock { $0.delegate = newValue } }
    }
    /// The data source (held weakly).
    public var dataSource: (any ImageFetchHelperDataSource)? {
        get { guarded.withLock { $0.dataSource } }
        set { guarded.withLock { $0.dataSource = newValue } }
    }
    /// What happens when the target disappears. Default `.unload`.
    public var disappearanceBehavior: DisappearanceBehavior {
        get { guarded.withLock { $0.disappearanceBehavior } }
        set { guarded.withLock { $0.disappearanceBehavior = newValue } }
    }
    /// Whether going to the background counts as the target disappearing (0.2 s after
    /// ``triggerApplicationDidEnterBackground()``). Default false (what TIP's initializer sets).
    public var shouldTreatApplicationBackgroundAsViewDisappearance: Bool {
        get { guarded.withLock { $0.treatsBackgroundAsDisappearance } }
        set { guarded.withLock { $0.treatsBackgroundAsDisappearance = newValue } }
    }

    // MARK: State

    /// The request being (or last) fetched.
    public var fetchRequest: (any ImageFetchRequest)? { guarded.withLock { $0.fetchRequest } }
    /// Whether a fetch is in flight.
    public var isLoading: Bool { guarded.withLock { $0.operation != nil } }
    /// The fetch progress, 0...1.
    public var fetchProgress: Float { guarded.withLock { $0.fetchProgress } }
    /// Why the last fetch failed, if it did.
    public var fetchError: (any Error)? { guarded.withLock { $0.fetchError } }
    /// The last finished fetch's metrics.
    public var fetchMetrics: ImageFetchMetrics? { guarded.withLock { $0.fetchMetrics } }
    /// The source dimensions of the final image shown (zero otherwise).
    public var fetchResultDimensions: CGSize { guarded.withLock { $0.fetchResultDimensions } }
    /// Where the image shown came from.
    public var fetchSource: ImageLoadSource { guarded.withLock { $0.fetchSource } }
    /// The URL of the image shown (a preview's may differ from the request's).
    public var fetchedImageURL: URL? { guarded.withLock { $0.fetchedImageURL } }
    /// Whether the image shown is a placeholder (scans and first frames count as placeholders).
    public var fetchedImageTreatedAsPlaceholder: Bool { guarded.withLock { $0.flags.isPlaceholder } }
    /// Whether the image shown is a preview.
    public var fetchedImageIsPreview: Bool { guarded.withLock { $0.flags.isPreview } }
    /// Whether the image shown is a preview kept as the final image.
    public var fetchedImageIsScaledPreviewAsFinal: Bool { guarded.withLock { $0.flags.isScaled } }
    /// Whether the image shown is a progressive scan or an animation's first frame.
    public var fetchedImageIsProgressiveFrame: Bool { guarded.withLock { $0.flags.isProgressive } }
    /// Whether the image shown is the final image.
    public var fetchedImageIsFullLoad: Bool { guarded.withLock { $0.flags.isFinal } }
    /// Whether anything loaded is shown (final, kept preview, scan or preview).
    public var didLoadAny: Bool { guarded.withLock { $0.flags.didLoadAny } }

    /// The operation in flight (tests).
    var currentOperation: ImageFetchOperation? { guarded.withLock { $0.operation } }
    /// Whether the target is visible now.
    var isTargetVisible: Bool { target?.isVisible ?? false }
}
