import Foundation

// The events a UI reports to the helper (TIP's triggers). Call them on the callback queue.
extension ImageFetchHelper {
    /// Replaces the target: a visible old target disappears first, a visible new one then appears.
    func replaceTarget(with newTarget: (any ImageFetchable)?) {
        let old = guarded.withLock { $0.target }
        guard old !== newTarget else { return }
        if old?.isVisible == true {
            triggerTargetWillDisappear()
            triggerTargetDidDisappear()
        }
        guarded.withLock { $0.target = newTarget }
        if newTarget?.isVisible == true {
            triggerTargetWillAppear()
            triggerTargetDidAppear()
        }
    }

    /// The target is about to appear: fetches when idle and nothing final is shown, or restores a priority
    /// lowered on disappearance.
    public func triggerTargetWillAppear() {
        let (operation, isFinal, restore) = guarded.withLock {
            state -> (ImageFetchOperation?, Bool, ImageFetchPriority?) in
            state.flags.transitioningAppearance = true
            let restore = state.flags.didChangePriorityOnDisappear ? state.priorPriority : nil
            state.flags.didCancelOnDisappear = false
            state.flags.didChangePriorityOnDisappear = false
            return (state.operation, state.flags.isFinal, restore)
        }
        if let operation {
            if let restore { operation.priority = restore }
        } else if !isFinal {
            cancelFetchRequest()
            stopObservingStores()
            refetch()
        }
    }

    /// The target appeared.
    public func triggerTargetDidAppear() {
        guarded.withLock { $0.flags.transitioningAppearance = false }
    }

    /// The target is about to disappear.
    public func triggerTargetWillDisappear() {
        guarded.withLock { $0.flags.transitioningAppearance = true }
    }

    /// The target disappeared: applies ``disappearanceBehavior``.
    public func triggerTargetDidDisappear() {
        let (behavior, operation, hasRequest) = guarded.withLock { state in
            state.flags.transitioningAppearance = false
            return (state.disappearanceBehavior, state.operation, state.fetchRequest != nil)
        }
        switch behavior {
        case .none:
            break
        case .cancelImageFetch:
            guard operation != nil else { break }
            cancelFetch()
            guarded.withLock { $0.flags.didCancelOnDisappear = true }
        case .lowerImageFetchPriority:
            guard let operation else { break }
            guarded.withLock {
                $0.priorPriority = operation.priority
                $0.flags.didChangePriorityOnDisappear = true
            }
            operation.priority = ImageFetchHelper.hiddenPriority
        case .unload:
            if hasRequest { reset(to: nil) }
        case .replaceWithPlaceholder:
            guard hasRequest else { break }
            let target = self.target
            var placeholder = target?.fetchedImageContainer
            let side = ImageFetchHelper.placeholderDimension
            if let image = placeholder, image.dimensions.width > side || image.dimensions.height > side {
                placeholder = image.scaledToTargetDimensions(
                    CGSize(width: side, height: side), contentMode: .scaleAspectFit,
                    quality: configuration.defaultInterpolationQuality)
            }
            reset(to: nil)
            target?.fetchedImageContainer = placeholder
            markAsIfPlaceholder()
        }
    }

    /// The target's pixel size or content mode may have changed (TIP's layout trigger). When the data source
    /// opts into refetching on sizing changes and the sizing differs from the request's, a final image is
    /// downgraded to a preview and the image is fetched again at the new sizing (a fetch in flight of the same
    /// URL goes on headless, another one is cancelled).
    public func triggerTargetLayoutChanged() {
        guard fetchRequest == nil || sizingChangeCallsForRefetch() else { return }
        var peeked: (any ImageFetchRequest)?
        let (isFinal, operation) = guarded.withLock { ($0.flags.isFinal, $0.operation) }
        if isFinal {
            guarded.withLock {
                $0.flags.isFinal = false
                $0.flags.isPreview = true
            }
            cancelFetch()
        } else if let operation {
            peeked = extractRequest(from: dataSource)
            if let peeked, peeked.imageURL == operation.request.imageURL {
                operation.discardDelegate()
            } else {
                operation.cancelAndDiscardDelegate()
            }
            guarded.withLock { $0.operation = nil }
        }
        refetch(peeked: peeked)
    }

    /// The application went to the background: when ``shouldTreatApplicationBackgroundAsViewDisappearance`` is
    /// set and the target is visible, the target disappears 0.2 s later.
    public func triggerApplicationDidEnterBackground() {
        guard shouldTreatApplicationBackgroundAsViewDisappearance, isTargetVisible else { return }
        configuration.callbackQueue.asyncAfter(deadline: .now() + ImageFetchHelper.backgroundDisappearanceDelay) {
            [weak self] in
            guard let self else { return }
            self.guarded.withLock { $0.flags.didTreatBackgroundingAsDisappearance = true }
            self.triggerTargetWillDisappear()
            self.triggerTargetDidDisappear()
        }
    }

    /// The application came back: a target that disappeared because of the background appears again (when
    /// visible).
    public func triggerApplicationWillEnterForeground() {
        let wasHidden = guarded.withLock { state -> Bool in
            defer { state.flags.didTreatBackgroundingAsDisappearance = false }
            return state.flags.didTreatBackgroundingAsDisappearance
        }
        guard wasHidden, isTargetVisible else { return }
        triggerTargetWillAppear()
        triggerTargetDidAppear()
    }

    /// Whether the data source wants a refetch for the target's current sizing.
    func sizingChangeCallsForRefetch() -> Bool {
        guard let dataSource, let request = fetchRequest else { return false }
        let dimensions = request.targetDimensions
        let mode = request.targetContentMode
        var differs = true  // unknown sizing: may refetch
        if TargetSizing.canScale(targetDimensions: dimensions, contentMode: mode), let target {
            differs = target.pixelSize != dimensions || target.contentMode != mode
        }
        return differs && dataSource.shouldRefetchOnTargetSizingChange(for: self)
    }

    /// TIP's priority while hidden: `veryLow + 2` (-6).
    static let hiddenPriority = ImageFetchPriority(rawValue: ImageFetchPriority.veryLow.rawValue + 2)
    /// The largest side of a placeholder left on disappearance, in pixels (TIP: 180).
    static let placeholderDimension: CGFloat = 180
    /// The delay before a background counts as disappearance (TIP: 0.2 s).
    static let backgroundDisappearanceDelay: DispatchTimeInterval = .milliseconds(200)
}
