import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// Wraps a download client and turns provider misbehaviour into `ImageFetchError` codes 1001-1009.
///
/// The checked order is `didStart` → hydrate → authorize → response → data* → complete. An error completion is
/// accepted at any point; a successful completion needs a response (else 1006, after the earlier steps' checks).
/// `willRetry` clears hydration, authorization and response, but is refused (1009) once data arrived. On a
/// violation the wrapped client gets one completion with the contract error and the download is cancelled; every
/// later event (including the cancellation's own completion) is dropped, as is anything after a completion.
final class ImageFetchDownloadContractChecker: ImageFetchDownloadClient {
    /// The checked progress of one download.
    struct State: Equatable, Sendable {
        var started = false
        var hydrated = false
        var authorized = false
        var responded = false
        var receivedData = false
        var finished = false
    }

    /// A checked event.
    enum Event: Equatable, Sendable {
        case start, hydrate, authorize, response, data, complete(failed: Bool), retry
    }

    /// What to do with an event.
    enum Verdict: Equatable, Sendable {
        /// Pass it to the wrapped client.
        case forward
        /// Drop it: the download already ended.
        case drop
        /// Report this contract violation and cancel the download.
        case violation(ImageFetchError.Code)
    }

    /// The client that receives the checked events.
    let client: any ImageFetchDownloadClient
    private let state = Locked(State())

    /// A checker forwarding valid events to `client`.
    init(wrapping client: any ImageFetchDownloadClient) {
        self.client = client
    }

    /// The current progress (for tests).
    var currentState: State { state.withLock { $0 } }

    /// Applies `event` to `state` and says what to do with it.
    static func apply(_ event: Event, to state: inout State) -> Verdict {
        if state.finished { return .drop }
        let verdict = check(event, state)
        switch verdict {
        case .drop:
            break
        case .violation:
            state.finished = true
        case .forward:
            switch event {
            case .start: state.started = true
            case .hydrate: state.hydrated = true
            case .authorize: state.authorized = true
            case .response: state.responded = true
            case .data: state.receivedData = true
            case .complete: state.finished = true
            case .retry:
                state.hydrated = false
                state.authorized = false
                state.responded = false
            }
        }
        return verdict
    }

    private static func check(_ event: Event, _ s: State) -> Verdict {
        switch event {
        case .start:
            return s.started ? .violation(.downloadEncounteredToStartMoreThanOnce) : .forward
        case .complete(failed: true):
            return .forward
        case .retry:
            if !s.started { return .violation(.downloadNeverStarted) }
            return s.receivedData ? .violation(.downloadWantedToRetryAfterAlreadyLoadingData) : .forward
        case .hydrate:
            if !s.started { return .violation(.downloadNeverStarted) }
            return s.hydrated ? .violation(.downloadAttemptedToHydrateRequestMoreThanOnce) : .forward
        case .authorize:
            if let missing = missingStep(s, upTo: 1) { return .violation(missing) }
            return s.authorized ? .violation(.downloadAttemptedToAuthorizeRequestMoreThanOnce) : .forward
        case .response:
            if let missing = missingStep(s, upTo: 2) { return .violation(missing) }
            return s.responded ? .violation(.downloadReceivedResponseMoreThanOnce) : .forward
        case .data, .complete(failed: false):
            if let missing = missingStep(s, upTo: 3) { return .violation(missing) }
            return .forward
        }
    }

    /// The first of the first `count` steps after start (hydrate, authorize, response) that has not happened.
    private static func missingStep(_ s: State, upTo count: Int) -> ImageFetchError.Code? {
        if !s.started { return .downloadNeverStarted }
        if count >= 1 && !s.hydrated { return .downloadNeverAttemptedToHydrateRequest }
        if count >= 2 && !s.authorized { return .downloadNeverAttemptedToAuthorizeRequest }
        if count >= 3 && !s.responded { return .downloadNeverReceivedResponse }
        return nil
    }

    /// Checks `event`; true when the caller should forward it. Reports and cancels on a violation.
    private func admit(_ event: Event, _ download: any ImageFetchDownload) -> Bool {
        let verdict = state.withLock { Self.apply(event, to: &$0) }
        switch verdict {
        case .forward:
            return true
        case .drop:
            return false
        case .violation(let code):
            // Outside the lock: both calls may re-enter this checker.
            let error = ImageFetchError.downloadContractViolation(code)
            client.download(download, didCompleteWithError: error)
            download.cancel(description: error.message)
            return false
        }
    }

    func downloadDidStart(_ download: any ImageFetchDownload) {
        if admit(.start, download) { client.downloadDidStart(download) }
    }

    func download(
        _ download: any ImageFetchDownload, hydrateRequest request: URLRequest,
        completion: @escaping @Sendable ((any Error)?) -> Void
    ) {
        if admit(.hydrate, download) { client.download(download, hydrateRequest: request, completion: completion) }
    }

    func download(
        _ download: any ImageFetchDownload, authorizeRequest request: URLRequest,
        completion: @escaping @Sendable ((any Error)?) -> Void
    ) {
        if admit(.authorize, download) { client.download(download, authorizeRequest: request, completion: completion) }
    }

    func download(_ download: any ImageFetchDownload, didReceiveResponse response: HTTPURLResponse) {
        if admit(.response, download) { client.download(download, didReceiveResponse: response) }
    }

    func download(_ download: any ImageFetchDownload, didReceiveData data: Data) {
        if admit(.data, download) { client.download(download, didReceiveData: data) }
    }

    func download(_ download: any ImageFetchDownload, didCompleteWithError error: (any Error)?) {
        if admit(.complete(failed: error != nil), download) { client.download(download, didCompleteWithError: error) }
    }

    func downloadWillRetry(_ download: any ImageFetchDownload) {
        if admit(.retry, download) { client.downloadWillRetry(download) }
    }
}
