import Foundation

/// The delegate queue of `URLSessionImageFetchDownloadProvider`'s session: it runs each block FoundationNetworking
/// adds at once, on the thread that adds it, instead of scheduling an operation.
///
/// FoundationNetworking adds every delegate call from its session's serial work queue, so the calls still come one
/// at a time and in order. An `OperationQueue` cost a thread wake-up and an operation object per call (a response,
/// each chunk, the completion), and the download then hopped again to its own queue: two hand-offs per event where
/// the router needs none (it only looks a download up and hands the event to the download's queue). Operations
/// added as `Operation` objects keep the queue's own behaviour.
///
/// Only for delegates whose calls are short and never wait on the session: a delegate call made here runs on the
/// session's work queue, so it must not call a task method that waits for that queue (`resume`, `suspend`, setting
/// `priority`).
final class URLSessionInlineDelegateQueue: OperationQueue, @unchecked Sendable {
    override init() {
        super.init()
        maxConcurrentOperationCount = 1
        name = "TIP.URLSessionImageFetchDownloadProvider"
    }

    /// Runs `block` now, on the calling thread.
    override func addOperation(_ block: @escaping @Sendable () -> Void) {
        block()
    }
}
