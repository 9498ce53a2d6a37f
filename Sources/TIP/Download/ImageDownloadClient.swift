import Foundation

#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// TIP's side of one provider download (TIP's downloader as its provider's client): the context the download
/// reads and the client it reports to. Every event is checked against ``ImageDownloadContract`` (a violation
/// ends the download with `ImageFetchError` 1001-1009 and cancels it), hydration and authorization run here,
/// and the rest goes straight to the shared download that made this client.
///
/// A shared download makes a second client only when it starts over without a range; events from a client it no
/// longer runs are dropped. The client holds its shared download weakly (the downloader keeps a running one
/// alive), so no cycle outlives the download.
final class ImageDownloadClient: ImageFetchDownloadContext, ImageFetchDownloadClient, @unchecked Sendable {
    // `state` guards every mutable field; `owner` is a weak reference that is never reassigned.
    private struct State {
        var hydratedRequest: URLRequest?
        var authorization: String?
        var contract = ImageDownloadContract()
        /// Whether the hydration or authorization block returned an error (the request's own error, passed on as is).
        var blockFailed = false
    }

    let originalRequest: URLRequest
    let downloadQueue: DispatchQueue
    /// The partial this client's request continues (it then asks for a range).
    let resume: ImageDownloadResume?
    /// The cached image this client's request revalidates (it then is conditional).
    let revalidation: ImageDownloadRevalidation?
    private weak let owner: SharedImageDownload?
    private let state = Locked(State())

    init(
        owner: SharedImageDownload, url: URL, queue: DispatchQueue, resume: ImageDownloadResume?,
        revalidation: ImageDownloadRevalidation? = nil
    ) {
        self.owner = owner
        originalRequest = URLRequest(url: url)
        downloadQueue = queue
        self.resume = resume
        self.revalidation = revalidation
    }

    var hydratedRequest: URLRequest? { state.withLock { $0.hydratedRequest } }
    var authorization: String? { state.withLock { $0.authorization } }
    /// Whether the hydration or authorization block failed this client's request with an error of its own.
    var blockFailed: Bool { state.withLock { $0.blockFailed } }
    var client: any ImageFetchDownloadClient { self }

    /// Checks `event`; true when it should go on. A violation is reported to the owner and cancels `download`.
    private func admit(_ event: ImageDownloadContract.Event, _ download: any ImageFetchDownload) -> Bool {
        switch state.withLock({ $0.contract.apply(event) }) {
        case .forward:
            return true
        case .drop:
            return false
        case .violation(let code):
            let error = ImageFetchError.downloadContractViolation(code)
            owner?.client(self, didCompleteWith: error)
            download.cancel(description: error.message)
            return false
        }
    }

    // MARK: ImageFetchDownloadClient (on downloadQueue)

    func downloadDidStart(_ download: any ImageFetchDownload) {
        if admit(.start, download) { owner?.clientDidStart(self) }
    }

    func download(
        _ download: any ImageFetchDownload, hydrateRequest request: URLRequest,
        completion: @escaping @Sendable ((any Error)?) -> Void
    ) {
        guard admit(.hydrate, download) else { return }
        guard let owner, let subject = owner.hydrationSubject(for: self) else {
            return completion(ImageFetchError.cancelled("every fetch left the download"))
        }
        let once = Locked(false)
        let finish: ImageRequestHydrator.Completion = { [self] hydrated, error in
            guard
                once.withLock({ called in
                    defer { called = true }; return !called
                })
            else { return }
            downloadQueue.async {
                self.hydrationDidFinish(original: request, hydrated: hydrated, error: error, completion: completion)
            }
        }
        if let hydrator = subject.hydrator {
            hydrator.block(request, subject.member, finish)
        } else if downloadQueue.isCurrent {
            // Nothing to hydrate, and already on the download queue (as providers call): no hop, one thread
            // wake-up less per download. Providers take a completion inside the call (authorization without an
            // authorizer always did that).
            hydrationDidFinish(original: request, hydrated: nil, error: nil, completion: completion)
        } else {
            finish(nil, nil)
        }
    }

    private func hydrationDidFinish(
        original: URLRequest, hydrated: URLRequest?, error: (any Error)?,
        completion: @Sendable ((any Error)?) -> Void
    ) {
        if let error {
            state.withLock { $0.blockFailed = true }
            return completion(error)
        }
        var request = hydrated ?? original
        if request.url != original.url {
            return completion(
                ImageFetchError.illegalModification(
                    originalURL: originalRequest.url ?? URL(fileURLWithPath: "/"),
                    modifiedURL: request.url))
        }
        if (request.httpMethod ?? "GET") != (original.httpMethod ?? "GET") {
            return completion(
                ImageFetchError.illegalModification(
                    originalHTTPMethod: original.httpMethod ?? "GET", modifiedHTTPMethod: request.httpMethod))
        }
        if let resume {
            request.setValue(resume.range, forHTTPHeaderField: "Range")
            request.setValue(resume.validator, forHTTPHeaderField: "If-Range")
        }
        // Evaluated before If-Range (RFC 9110 §13.2.2): a 304 confirms the cached complete image, else the range
        // (if any) continues the partial.
        for field in revalidation?.headerFields ?? [] { request.setValue(field.value, forHTTPHeaderField: field.name) }
        state.withLock { $0.hydratedRequest = request }
        completion(nil)
    }

    func download(
        _ download: any ImageFetchDownload, authorizeRequest request: URLRequest,
        completion: @escaping @Sendable ((any Error)?) -> Void
    ) {
        guard admit(.authorize, download) else { return }
        guard let owner, let subject = owner.hydrationSubject(for: self) else {
            return completion(ImageFetchError.cancelled("every fetch left the download"))
        }
        guard let authorizer = subject.authorizer else { return completion(nil) }
        let once = Locked(false)
        authorizer.block(request, subject.member) { [self] value, error in
            guard
                once.withLock({ called in
                    defer { called = true }; return !called
                })
            else { return }
            downloadQueue.async {
                if let error {
                    self.state.withLock { $0.blockFailed = true }
                    return completion(error)
                }
                self.state.withLock { $0.authorization = value }
                completion(nil)
            }
        }
    }

    func download(_ download: any ImageFetchDownload, didReceiveResponse response: HTTPURLResponse) {
        if admit(.response, download) { owner?.client(self, didReceive: response) }
    }

    func download(_ download: any ImageFetchDownload, didReceiveData data: Data) {
        if admit(.data, download) { owner?.client(self, didReceive: data) }
    }

    func download(_ download: any ImageFetchDownload, didCompleteWithError error: (any Error)?) {
        if admit(.complete(failed: error != nil), download) { owner?.client(self, didCompleteWith: error) }
        // The download is over (or was stopped and dropped): it lets go of this client.
        download.discardContext()
    }

    func downloadWillRetry(_ download: any ImageFetchDownload) {
        guard admit(.retry, download) else { return }
        state.withLock {
            $0.hydratedRequest = nil
            $0.authorization = nil
        }
        owner?.clientWillRetry(self)
    }
}

/// The order a provider's download must report its events in (TIP's download contract, `ImageFetchError` codes
/// 1001-1009), as a pure state machine the download client runs every event through.
///
/// The checked order is `didStart` → hydrate → authorize → response → data* → complete. An error completion is
/// accepted at any point; a successful completion needs a response (else 1006, after the earlier steps' checks).
/// `willRetry` clears hydration, authorization and response, but is refused (1009) once data arrived. After a
/// violation or a completion every event is dropped.
struct ImageDownloadContract: Equatable, Sendable {
    /// A checked event.
    enum Event: Equatable, Sendable {
        case start, hydrate, authorize, response, data
        case complete(failed: Bool)
        case retry
    }

    /// What to do with an event.
    enum Verdict: Equatable, Sendable {
        /// Pass it on.
        case forward
        /// Drop it: the download already ended.
        case drop
        /// Report this contract violation and cancel the download.
        case violation(ImageFetchError.Code)
    }

    var started = false
    var hydrated = false
    var authorized = false
    var responded = false
    var receivedData = false
    var finished = false

    /// Applies `event` and says what to do with it.
    mutating func apply(_ event: Event) -> Verdict {
        if finished { return .drop }
        let verdict = check(event)
        switch verdict {
        case .drop:
            break
        case .violation:
            finished = true
        case .forward:
            switch event {
            case .start: started = true
            case .hydrate: hydrated = true
            case .authorize: authorized = true
            case .response: responded = true
            case .data: receivedData = true
            case .complete: finished = true
            case .retry:
                hydrated = false
                authorized = false
                responded = false
            }
        }
        return verdict
    }

    private func check(_ event: Event) -> Verdict {
        switch event {
        case .start:
            return started ? .violation(.downloadEncounteredToStartMoreThanOnce) : .forward
        case .complete(failed: true):
            return .forward
        case .retry:
            if !started { return .violation(.downloadNeverStarted) }
            return receivedData ? .violation(.downloadWantedToRetryAfterAlreadyLoadingData) : .forward
        case .hydrate:
            if !started { return .violation(.downloadNeverStarted) }
            return hydrated ? .violation(.downloadAttemptedToHydrateRequestMoreThanOnce) : .forward
        case .authorize:
            if let missing = missingStep(upTo: 1) { return .violation(missing) }
            return authorized ? .violation(.downloadAttemptedToAuthorizeRequestMoreThanOnce) : .forward
        case .response:
            if let missing = missingStep(upTo: 2) { return .violation(missing) }
            return responded ? .violation(.downloadReceivedResponseMoreThanOnce) : .forward
        case .data, .complete(failed: false):
            if let missing = missingStep(upTo: 3) { return .violation(missing) }
            return .forward
        }
    }

    /// The first of the first `count` steps after start (hydrate, authorize, response) that has not happened.
    private func missingStep(upTo count: Int) -> ImageFetchError.Code? {
        if !started { return .downloadNeverStarted }
        if count >= 1 && !hydrated { return .downloadNeverAttemptedToHydrateRequest }
        if count >= 2 && !authorized { return .downloadNeverAttemptedToAuthorizeRequest }
        if count >= 3 && !responded { return .downloadNeverReceivedResponse }
        return nil
    }
}
