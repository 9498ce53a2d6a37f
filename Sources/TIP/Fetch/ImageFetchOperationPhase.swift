/// Where a fetch operation is, as one value: its public state, whether it runs on the queue, whether it is a
/// member of a shared download, and whether a cancellation was asked for. States only move forward.
enum ImageFetchOperationPhase: Sendable {
    /// Not started; `cancelReason` once `cancel()` was called (the fetch then fails as soon as it starts).
    case idle(cancelReason: String?)
    /// Running through the sources; `state` is the source being tried, `isDownloading` while the fetch is a member
    /// of a shared download, `cancelReason` once `cancel()` was called.
    case running(ImageFetchOperationState, cancelReason: String?, isDownloading: Bool)
    /// The outcome is decided (`succeeded`, `failed` or `cancelled`) and its last callback queued;
    /// `wasExecuting` unless a synchronous rendered-cache hit answered it before it ever ran.
    case ending(ImageFetchOperationState, wasExecuting: Bool)
    /// Over: the last callback ran and the queue was told.
    case finished(ImageFetchOperationState)

    /// The public state.
    var state: ImageFetchOperationState {
        switch self {
        case .idle: .idle
        case .running(let state, _, _), .ending(let state, _), .finished(let state): state
        }
    }

    /// Whether `start()` (or the synchronous rendered-cache hit) already began the fetch.
    var hasStarted: Bool {
        if case .idle = self { return false }
        return true
    }

    /// Whether the operation counts as executing for its queue.
    var isExecuting: Bool {
        switch self {
        case .running: true
        case .ending(_, let wasExecuting): wasExecuting
        case .idle, .finished: false
        }
    }

    /// Whether the operation finished for its queue.
    var isFinished: Bool {
        if case .finished = self { return true }
        return false
    }

    /// Whether the outcome is decided (ending or finished).
    var isOver: Bool {
        switch self {
        case .ending, .finished: true
        case .idle, .running: false
        }
    }

    /// Why the fetch was asked to cancel, while it has not ended.
    var cancelReason: String? {
        switch self {
        case .idle(let reason), .running(_, let reason, _): reason
        case .ending, .finished: nil
        }
    }

    /// Whether the fetch is a member of a shared download.
    var isDownloading: Bool {
        if case .running(_, _, true) = self { return true }
        return false
    }

    /// The phase after `cancel()`: nil when the fetch is over or already asked to cancel.
    func cancelled(reason: String) -> ImageFetchOperationPhase? {
        switch self {
        case .idle(nil): .idle(cancelReason: reason)
        case .running(let state, nil, let downloading):
            .running(state, cancelReason: reason, isDownloading: downloading)
        default: nil
        }
    }
}
