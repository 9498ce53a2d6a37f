import Foundation

#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// Receives a download's events (TIP's `TIPImageFetchDownloadClient`); implemented by TIP.
///
/// Every call must be made on the context's `downloadQueue` (a serial queue), in this order:
/// `downloadDidStart` → `download(_:hydrateRequest:completion:)` → `download(_:authorizeRequest:completion:)` →
/// `download(_:didReceiveResponse:)` → `download(_:didReceiveData:)` zero or more times →
/// `download(_:didCompleteWithError:)` exactly once. A failing download may complete early with an error at any
/// point. `downloadWillRetry` (before any data) starts the sequence again from hydration. Violations end the fetch
/// with `ImageFetchError` codes 1001-1009 and cancel the download.
public protocol ImageFetchDownloadClient: AnyObject, Sendable {
    /// The download began.
    func downloadDidStart(_ download: any ImageFetchDownload)

    /// Asks TIP to hydrate `request` (the original request). `completion` is called on the download queue; on nil
    /// the hydrated request is in the context's `hydratedRequest`, otherwise the download must complete with the error.
    func download(
        _ download: any ImageFetchDownload, hydrateRequest request: URLRequest,
        completion: @escaping @Sendable ((any Error)?) -> Void)

    /// Asks TIP to authorize `request` (the hydrated request). `completion` is called on the download queue; on nil
    /// the header value is in the context's `authorization`, otherwise the download must complete with the error.
    func download(
        _ download: any ImageFetchDownload, authorizeRequest request: URLRequest,
        completion: @escaping @Sendable ((any Error)?) -> Void)

    /// The HTTP response arrived (any status; the client decides what a status means).
    func download(_ download: any ImageFetchDownload, didReceiveResponse response: HTTPURLResponse)

    /// The next chunk of the body arrived.
    func download(_ download: any ImageFetchDownload, didReceiveData data: Data)

    /// The download ended: nil for success, otherwise why it failed (cancellation included).
    func download(_ download: any ImageFetchDownload, didCompleteWithError error: (any Error)?)

    /// The download will start over (hydration, authorization, response); refused after data arrived.
    func downloadWillRetry(_ download: any ImageFetchDownload)
}
