import Foundation

/// Loads images before they are needed, at a low priority, a few at a time (beyond TIP; Nuke's `ImagePrefetcher`).
///
/// ```swift
/// let prefetcher = ImagePrefetcher(pipeline: pipeline, destination: .memoryCache, maxConcurrentPrefetchCount: 2)
/// prefetcher.startPrefetching(with: upcomingRequests)      // rows about to scroll in
/// prefetcher.stopPrefetching(with: requestsScrolledAway)
/// ```
///
/// Requests wait in the order given and run at most ``maxConcurrentPrefetchCount`` at once, at ``priority``
/// (default `.low`). ``Destination/memoryCache`` fetches each request as an image fetch would (decoded at its target,
/// processed, left in the rendered, memory and disk caches); ``Destination/diskCache`` only gets the bytes onto disk
/// (a data-only fetch: nothing decoded, nothing kept in memory). A request already waiting or running is not
/// added twice. A real fetch of the same image meanwhile joins the prefetch's download, which then runs at the
/// higher of the two priorities. Releasing the prefetcher stops its prefetches.
///
/// Thread-safe: state in one lock; fetches are started and cancelled outside it.
public final class ImagePrefetcher: Sendable {
    /// Where prefetched images go.
    public enum Destination: Sendable {
        /// Decoded and processed for the request, into the rendered cache; the bytes into the memory and disk caches.
        case memoryCache
        /// Bytes into the disk cache only; nothing decoded.
        case diskCache
    }

    /// One prefetch running: which start it was, how to cancel it and change its priority.
    private struct Running {
        let id: Int
        var cancel: @Sendable () -> Void = {}
        var setPriority: @Sendable (ImageFetchPriority) -> Void = { _ in }
    }

    /// What makes two prefetches the same: the image, its target sizing and its processing (as concurrent fetches
    /// share a final image).
    private typealias PrefetchKey = FinalImageCoalescer.Key

    private struct State {
        var waiting: [(key: PrefetchKey, request: any ImageFetchRequest)] = []
        var running: [PrefetchKey: Running] = [:]
        var priority = ImageFetchPriority.low
        var didComplete: (@Sendable () -> Void)?
        var lastID = 0
        /// Whether a thread is starting prefetches (another one then only asks it for one more pass).
        var isStarting = false
        var startsAgain = false
    }

    /// The pipeline the images are prefetched into.
    public let pipeline: ImagePipeline
    /// Where they go.
    public let destination: Destination
    /// The most prefetches running at once (at least 1).
    public let maxConcurrentPrefetchCount: Int
    private let state = Locked(State())

    /// A prefetcher for `pipeline` (default ``ImagePipeline/shared``), into `destination` (default memory and disk),
    /// running at most `maxConcurrentPrefetchCount` prefetches at once (default 2; at least 1).
    public init(
        pipeline: ImagePipeline = .shared, destination: Destination = .memoryCache, maxConcurrentPrefetchCount: Int = 2
    ) {
        self.pipeline = pipeline
        self.destination = destination
        self.maxConcurrentPrefetchCount = max(1, maxConcurrentPrefetchCount)
    }

    deinit {
        for running in state.withLock({ Array($0.running.values) }) { running.cancel() }
    }

    /// The priority of the prefetches (default `.low`); a change applies to running ones too.
    public var priority: ImageFetchPriority {
        get { state.withLock { $0.priority } }
        set {
            let running = state.withLock { state -> [Running] in
                state.priority = newValue
                return Array(state.running.values)
            }
            for prefetch in running { prefetch.setPriority(newValue) }
        }
    }

    /// Called (on no particular thread) each time a prefetch ends, completed or failed, leaving none waiting or
    /// running; prefetches stopped with `stopPrefetching` do not call it. Default nil.
    public var didComplete: (@Sendable () -> Void)? {
        get { state.withLock { $0.didComplete } }
        set { state.withLock { $0.didComplete = newValue } }
    }

    /// Prefetches waiting for a slot.
    public var waitingCount: Int { state.withLock { $0.waiting.count } }
    /// Prefetches running.
    public var runningCount: Int { state.withLock { $0.running.count } }

    /// Queues `requests` (those not already waiting or running), in order, and starts what the limit allows.
    public func startPrefetching(with requests: [any ImageFetchRequest]) {
        state.withLock { state in
            var known = Set(state.waiting.map(\.key)).union(state.running.keys)
            for request in requests {
                let key = prefetchKey(request)
                guard known.insert(key).inserted else { continue }
                state.waiting.append((key, request))
            }
        }
        startWaiting()
    }

    /// Queues the images at `urls` at their own size (``GenericImageFetchRequest/init(imageURL:)``).
    public func startPrefetching(with urls: [URL]) {
        startPrefetching(with: urls.map { GenericImageFetchRequest(imageURL: $0) })
    }

    /// Drops `requests` from the queue and cancels those running (a download that real fetches share goes on for
    /// them).
    public func stopPrefetching(with requests: [any ImageFetchRequest]) {
        let keys = Set(requests.map(prefetchKey))
        let stopped = state.withLock { state -> [Running] in
            state.waiting.removeAll { keys.contains($0.key) }
            return keys.compactMap { state.running.removeValue(forKey: $0) }
        }
        for prefetch in stopped { prefetch.cancel() }
        startWaiting()
    }

    /// Stops prefetching the images at `urls` at their own size.
    public func stopPrefetching(with urls: [URL]) {
        stopPrefetching(with: urls.map { GenericImageFetchRequest(imageURL: $0) })
    }

    /// Drops every waiting prefetch and cancels the running ones.
    public func stopPrefetching() {
        let stopped = state.withLock { state -> [Running] in
            state.waiting.removeAll()
            defer { state.running.removeAll() }
            return Array(state.running.values)
        }
        for prefetch in stopped { prefetch.cancel() }
    }

    private func prefetchKey(_ request: any ImageFetchRequest) -> PrefetchKey {
        PrefetchKey(
            request: request, processing: ImageFetchProcessing(request: request), configuration: pipeline.configuration)
    }

    /// Starts waiting prefetches while the limit allows, outside the lock (a fetch may end at once, and its end asks
    /// for another pass rather than starting more from inside this one).
    private func startWaiting() {
        let starts = state.withLock { state -> Bool in
            if state.isStarting { state.startsAgain = true }
            defer { state.isStarting = true }
            return !state.isStarting
        }
        guard starts else { return }
        repeat {
            while let (key, request, id, priority) = nextToStart() {
                start(request, key: key, id: id, priority: priority)
            }
        } while state.withLock { state -> Bool in
            defer { state.startsAgain = false }
            if !state.startsAgain { state.isStarting = false }
            return state.startsAgain
        }
    }

    private func nextToStart() -> (PrefetchKey, any ImageFetchRequest, Int, ImageFetchPriority)? {
        state.withLock { state in
            guard state.running.count < maxConcurrentPrefetchCount, !state.waiting.isEmpty else { return nil }
            let next = state.waiting.removeFirst()
            state.lastID += 1
            // Reserved now, so the limit holds while the fetch starts; completed once the fetch exists.
            state.running[next.key] = Running(id: state.lastID)
            return (next.key, next.request, state.lastID, state.priority)
        }
    }

    private func start(_ request: any ImageFetchRequest, key: PrefetchKey, id: Int, priority: ImageFetchPriority) {
        let ended: @Sendable () -> Void = { [weak self] in self?.prefetchDidEnd(key, id: id) }
        switch destination {
        case .memoryCache:
            let operation = ImageFetchOperation(
                pipeline: pipeline, request: request, context: nil,
                delegate: ImageFetchCompletionDelegate { _, _ in ended() },
                ownsDelegate: true, deliversOnOwnQueue: true)
            operation.priority = priority
            guard
                install(
                    Running(id: id, cancel: { operation.cancel() }, setPriority: { operation.priority = $0 }), for: key)
            else { return }
            pipeline.fetchImage(with: operation)
        case .diskCache:
            var diskOnly = GenericImageFetchRequest(request)
            diskOnly.loadingSources.subtract([.memoryCache, .additionalCache])
            diskOnly.options.insert(.skipStoringToMemoryCache)
            let fetch = ImageDataFetch(pipeline: pipeline, request: diskOnly, priority: priority) { _ in ended() }
            guard install(Running(id: id, cancel: { fetch.cancel() }, setPriority: { fetch.priority = $0 }), for: key)
            else { return }
            fetch.start()
        }
    }

    /// Records how to reach a prefetch about to start; false when it was stopped meanwhile (it is then not started).
    private func install(_ running: Running, for key: PrefetchKey) -> Bool {
        state.withLock { state in
            guard state.running[key]?.id == running.id else { return false }
            state.running[key] = running
            return true
        }
    }

    /// A prefetch ended (completed, failed or cancelled); one stopped and started again since is not this one.
    private func prefetchDidEnd(_ key: PrefetchKey, id: Int) {
        let completed = state.withLock { state -> (@Sendable () -> Void)? in
            guard state.running[key]?.id == id else { return nil }
            state.running.removeValue(forKey: key)
            return state.running.isEmpty && state.waiting.isEmpty ? state.didComplete : nil
        }
        startWaiting()
        completed?()
    }
}
