import Foundation

// Delivering callbacks, the final image or the failure, and finishing the `Operation`.
extension ImageFetchOperation {
    /// Runs `body` with the delegate on the callback queue (nothing when the delegate is gone).
    func deliver(
        if capability: KeyPath<any ImageFetchDelegate, Bool>? = nil,
        _ body: @escaping @Sendable (ImageFetchOperation, any ImageFetchDelegate) -> Void
    ) {
        guard let delegate else { return }
        if let capability, !delegate[keyPath: capability] { return }
        dispatchToDelegate { body(self, delegate) }
    }

    /// Runs `work` where the delegate hears of the fetch: the callback queue (watched for being serviced), or the
    /// operation's own queue for the async API's internal delegates.
    func dispatchToDelegate(_ work: @escaping @Sendable () -> Void) {
        if deliversOnOwnQueue {
            workQueue.async(execute: work)
        } else {
            configuration.dispatchToCallbackQueue(work)
        }
    }

    /// Delivers the final image, stores it in the caches, and finishes once the delegate has it.
    /// `propagateBytes`: the encoded bytes to offer the memory cache (disk hits); `storesRendered`: false when the
    /// image came from the rendered cache or another fetch that stored it; `freshUntil`: when the image stops being
    /// fresh (HTTP caching); `isStorable` false (`no-store`): no cache keeps the image; `whenStored` runs once the
    /// caches are written, before the delegate is called.
    func succeed(
        _ result: ImageFetchResult, propagateBytes: MemoryCacheCompleteImage?, storesRendered: Bool = true,
        freshUntil: Date? = nil, isStorable: Bool = true, whenStored: () -> Void = {}
    ) {
        let now = clock.now
        let delegate = guarded.withLock { state -> (any ImageFetchDelegate)? in
            state.recorder.record(.hitFinal, at: now)
            state.finalResult = result
            state.progress = 1
            state.phase = .ending(.succeeded, wasExecuting: true)
            state.metrics = state.recorder.finish(at: now, cancelled: false)
            return state.delegate
        }
        // A transformer without an identifier makes images nobody may reuse (TIP); processed ones carry their identity.
        let storable = storesRendered && (!result.imageWasTransformed || processing.isCacheable)
        caches.storeFetchedImage(
            result, identifier: identifier, bytes: propagateBytes,
            storesRendered: storable && isStorable && !request.options.contains(.skipStoringToRenderedCache)
                && !result.imageIsTreatedAsPlaceholder,
            variant: processing.variant(transformed: result.imageWasTransformed),
            matchesTargetExactly: processing.matchesTargetExactly, freshUntil: freshUntil)
        whenStored()
        countFetch(source: result.imageSource, result: "success", revalidated: result.imageWasRevalidated)
        dispatchToDelegate {
            delegate?.imageFetchOperation(self, didLoadFinalImage: result)
            self.markFinished()
        }
    }

    /// Counts the fetch's outcome in the configuration's metrics (a revalidated image's source is
    /// `disk_revalidated` or `memory_revalidated`).
    func countFetch(source: ImageLoadSource?, result: String, revalidated: Bool = false) {
        let (label, dimensions) = fetchCounter(source: source, result: result, revalidated: revalidated)
        configuration.metrics.increment(label, dimensions)
    }

    /// The `tip_fetches_total` counter of this fetch's outcome.
    func fetchCounter(
        source: ImageLoadSource?, result: String, revalidated: Bool = false
    ) -> (label: String, dimensions: [(String, String)]) {
        (
            "tip_fetches_total",
            [
                ("pipeline", imagePipeline.identifier),
                ("source", (source.map(Self.metricName) ?? "none") + (revalidated ? "_revalidated" : "")),
                ("result", result),
            ]
        )
    }

    private static func metricName(_ source: ImageLoadSource) -> String {
        switch source {
        case .memoryCache: "memory"
        case .diskCache: "disk"
        case .additionalCache: "additional"
        case .network: "network"
        case .networkResumed: "network_resumed"
        case .unknown: "none"
        }
    }

    /// Fails the fetch with `error` (a cancellation when it is `cancelled`), and finishes once the delegate knows.
    func fail(_ error: any Error, notifyStart: Bool = true) {
        let now = clock.now
        let cancelled = (error as? ImageFetchError)?.code == .cancelled
        let delegate = guarded.withLock { state -> (any ImageFetchDelegate)? in
            guard !state.phase.isOver else { return nil }
            state.error = error
            state.phase = .ending(cancelled ? .cancelled : .failed, wasExecuting: state.phase.isExecuting)
            state.metrics = state.recorder.finish(at: now, cancelled: cancelled)
            return state.delegate
        }
        countFetch(source: nil, result: cancelled ? "cancelled" : "failure")
        dispatchToDelegate {
            delegate?.imageFetchOperation(self, didFailToLoadFinalImage: error)
            self.markFinished()
        }
    }

    /// Tells the queue the operation is over (after its last callback ran).
    func markFinished() {
        guard case .ending(let outcome, let wasExecuting) = guarded.withLock({ $0.phase }) else { return }
        let now = clock.now
        // The synchronous rendered-cache hit never executed: only isFinished changes.
        transition(executing: wasExecuting, finished: true) {
            guarded.withLock { state in
                state.phase = .finished(outcome)
                state.finishedAt = now
                state.ownedDelegate = nil
            }
        }
        Self.finishing.lock()
        Self.finishing.broadcast()
        Self.finishing.unlock()
    }
}
