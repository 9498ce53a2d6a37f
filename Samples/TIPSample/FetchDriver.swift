import Foundation
import TIP

/// How a fetch ended, as the run records it.
enum FetchOutcome: Sendable {
    /// The final image arrived.
    case succeeded(ImageFetchResult)
    /// The fetch was cancelled.
    case cancelled
    /// The fetch failed.
    case failed(String)

    /// Classifies an error from any of the three APIs.
    init(error: (any Error)?) {
        if let error = error as? ImageFetchError, [.cancelled, .cancelledAfterLoadingPreview].contains(error.code) {
            self = .cancelled
        } else if error is CancellationError {
            self = .cancelled
        } else {
            self = .failed(error.map { String(describing: $0) } ?? "no image and no error")
        }
    }
}

/// What a driver reports about one fetch. Every closure runs on the pipelines' callback queue.
struct FetchEvents: Sendable {
    /// A preview (another variant of the same identifier) was shown.
    let preview: @Sendable () -> Void
    /// A progressive scan or the first frame of an animation was shown.
    let progressiveFrame: @Sendable () -> Void
    /// The fetch ended; called once.
    let finished: @Sendable (FetchOutcome) -> Void
}

/// A running fetch, as the run may disturb it.
protocol FetchHandle: AnyObject, Sendable {
    /// Cancels the fetch.
    func cancel()
    /// Changes the fetch's priority (APIs without priorities ignore it).
    func changePriority(_ priority: ImageFetchPriority)
}

/// Starts fetches through one of TIP's APIs. The run only talks to this, so another way of fetching (such as
/// the fetch helper's display tiles) slots in as one more driver.
protocol FetchDriver: Sendable {
    /// Starts `job` (its ``FetchJob/request``) in `pipeline`; called on the callback queue. `events` may run
    /// before this returns (a rendered-cache hit completes synchronously).
    func start(_ job: FetchJob, in pipeline: ImagePipeline, events: FetchEvents) -> any FetchHandle
}

extension FetchAPI {
    /// The driver for this API; `callbackQueue` is the pipelines' callback queue.
    func makeDriver(callbackQueue: DispatchQueue) -> any FetchDriver {
        switch self {
        case .delegate: DelegateFetchDriver()
        case .completion: CompletionFetchDriver()
        case .async: AsyncFetchDriver(callbackQueue: callbackQueue)
        case .helper: HelperFetchDriver(callbackQueue: callbackQueue)
        }
    }
}
