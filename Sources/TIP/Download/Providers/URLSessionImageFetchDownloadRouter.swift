import Foundation

#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// The session delegate of `URLSessionImageFetchDownloadProvider`: routes each task's events to its download.
/// Callbacks arrive one at a time on FoundationNetworking's work queue (`URLSessionInlineDelegateQueue`), so each
/// only looks its download up and hands the event on.
final class URLSessionImageFetchDownloadRouter: NSObject, URLSessionDataDelegate, @unchecked Sendable {
    // `downloads` is guarded by its own lock; the class has no other state.
    private let downloads = Locked([Int: URLSessionImageFetchDownload]())

    /// Sends `task`'s events to `download` until the task completes.
    func register(_ task: URLSessionTask, for download: URLSessionImageFetchDownload) {
        downloads.withLock { $0[task.taskIdentifier] = download }
    }

    private func download(for task: URLSessionTask) -> URLSessionImageFetchDownload? {
        downloads.withLock { $0[task.taskIdentifier] }
    }

    func urlSession(
        _ session: URLSession, dataTask: URLSessionDataTask, didReceive response: URLResponse,
        completionHandler: @escaping (URLSession.ResponseDisposition) -> Void
    ) {
        download(for: dataTask)?.taskDidReceive(response)
        completionHandler(.allow)
    }

    func urlSession(_ session: URLSession, dataTask: URLSessionDataTask, didReceive data: Data) {
        download(for: dataTask)?.taskDidReceive(data)
    }

    func urlSession(
        _ session: URLSession, task: URLSessionTask, willPerformHTTPRedirection response: HTTPURLResponse,
        newRequest request: URLRequest, completionHandler: @escaping (URLRequest?) -> Void
    ) {
        // FoundationNetworking rewrites a non-HTTP Location (file://...) into a same-host http URL, so judge the
        // Location header itself, not only the new request.
        if Self.isAllowedRedirect(response: response, newRequest: request) {
            completionHandler(request)
        } else {
            download(for: task)?.taskRefusedRedirect(status: response.statusCode)
            completionHandler(nil)
        }
    }

    func urlSession(_ session: URLSession, task: URLSessionTask, didCompleteWithError error: (any Error)?) {
        let download = downloads.withLock { $0.removeValue(forKey: task.taskIdentifier) }
        download?.taskDidComplete(error: error, response: task.response)
    }

    /// Whether a redirect stays on http/https: both the new request's URL and the raw `Location` target.
    static func isAllowedRedirect(response: HTTPURLResponse, newRequest request: URLRequest) -> Bool {
        guard isHTTP(request.url) else { return false }
        let location = response.allHeaderFields.first { ($0.key as? String)?.lowercased() == "location" }?.value
        guard let location = location as? String else { return true }
        guard let target = URL(string: location, relativeTo: response.url) else { return false }
        return isHTTP(target.absoluteURL)
    }

    static func isHTTP(_ url: URL?) -> Bool {
        ImageFetchDownloadRequestPolicy.isHTTP(url)
    }
}
