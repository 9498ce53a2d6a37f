import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// One provider download made for a shared download: the context the provider sees and the client it
/// reports to. A shared download makes a second attempt only when the server refused a range (416).
/// Events of an attempt the shared download no longer runs are dropped.
final class ImageDownloadAttempt: ImageFetchDownloadContext, ImageFetchDownloadClient {
    private struct State {
        var hydratedRequest: URLRequest?
        var authorization: String?
        var download: (any ImageFetchDownload)?
        var owner: SharedImageDownload?
    }

    let originalRequest: URLRequest
    let downloadQueue: DispatchQueue
    /// Whether this attempt asks for the rest of a cached partial.
    let isRangeRequest: Bool
    private let state: Locked<State>
    /// The checker the attempt keeps (until `detach()`), and whether it was detached.
    private let checker = Locked<(kept: ImageFetchDownloadContractChecker?, isDetached: Bool)>((nil, false))

    init(owner: SharedImageDownload, url: URL, queue: DispatchQueue, isRangeRequest: Bool) {
        originalRequest = URLRequest(url: url)
        downloadQueue = queue
        self.isRangeRequest = isRangeRequest
        state = Locked(State(owner: owner))
    }

    var hydratedRequest: URLRequest? { state.withLock { $0.hydratedRequest } }
    var authorization: String? { state.withLock { $0.authorization } }

    /// The contract checker wrapping this attempt (made once). The checker holds the attempt, so the attempt
    /// keeps it only until `detach()`; asked again after that, it gets a checker of its own that it does not keep
    /// (its events go nowhere: the owner is gone).
    var client: any ImageFetchDownloadClient {
        checker.withLock { checker in
            if let kept = checker.kept { return kept }
            let made = ImageFetchDownloadContractChecker(wrapping: self)
            if !checker.isDetached { checker.kept = made }
            return made
        }
    }

    /// The provider's download, once made.
    var download: (any ImageFetchDownload)? {
        get { state.withLock { $0.download } }
        set { state.withLock { $0.download = newValue } }
    }

    func setHydratedRequest(_ request: URLRequest?) { state.withLock { $0.hydratedRequest = request } }
    func setAuthorization(_ value: String?) { state.withLock { $0.authorization = value } }

    /// Breaks the attempt ↔ shared download and attempt ↔ contract checker cycles; later events are dropped.
    func detach() {
        let download = state.withLock { state -> (any ImageFetchDownload)? in
            state.owner = nil
            defer { state.download = nil }
            return state.download
        }
        download?.discardContext()
        checker.withLock { $0 = (nil, true) }
    }

    private var owner: SharedImageDownload? { state.withLock { $0.owner } }

    // MARK: ImageFetchDownloadClient (on downloadQueue, checked)

    func downloadDidStart(_ download: any ImageFetchDownload) {
        owner?.attemptDidStart(self)
    }

    func download(_ download: any ImageFetchDownload, hydrateRequest request: URLRequest,
                  completion: @escaping @Sendable ((any Error)?) -> Void) {
        guard let owner else { return completion(ImageFetchError.cancelled("the download was abandoned")) }
        owner.hydrate(self, request: request, completion: completion)
    }

    func download(_ download: any ImageFetchDownload, authorizeRequest request: URLRequest,
                  completion: @escaping @Sendable ((any Error)?) -> Void) {
        guard let owner else { return completion(ImageFetchError.cancelled("the download was abandoned")) }
        owner.authorize(self, request: request, completion: completion)
    }

    func download(_ download: any ImageFetchDownload, didReceiveResponse response: HTTPURLResponse) {
        owner?.attempt(self, didReceive: response)
    }

    func download(_ download: any ImageFetchDownload, didReceiveData data: Data) {
        owner?.attempt(self, didReceive: data)
    }

    func download(_ download: any ImageFetchDownload, didCompleteWithError error: (any Error)?) {
        owner?.attempt(self, didCompleteWith: error)
    }

    func downloadWillRetry(_ download: any ImageFetchDownload) {
        owner?.attemptWillRetry(self)
    }
}
