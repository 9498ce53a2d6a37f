import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// The default download provider: one `URLSession` (no cookies, no URL cache, 180 s resource timeout) running a
/// data task per download, streaming each chunk to the client on the context's download queue.
///
/// Downloads load the context's hydrated request as is (so `Range`/`If-Range` headers added during hydration are
/// sent), set `Authorization` from the context, follow redirects only to http/https URLs, and end a cancellation
/// with an `ImageFetchError.cancelled` completion. Thread-safe; share one provider between pipelines.
public final class URLSessionImageFetchDownloadProvider: ImageFetchDownloadProvider {
    /// The resource timeout of the session, in seconds (TIP's value).
    public static let resourceTimeout: TimeInterval = 180

    let session: URLSession
    let router: URLSessionImageFetchDownloadRouter

    /// A provider with its own session. `requestTimeout` is the idle timeout per request, in seconds (default 60).
    public init(requestTimeout: TimeInterval = 60) {
        let configuration = URLSessionConfiguration.default
        configuration.httpCookieStorage = nil
        configuration.httpShouldSetCookies = false
        configuration.httpCookieAcceptPolicy = .never
        configuration.urlCache = nil
        configuration.requestCachePolicy = .reloadIgnoringLocalCacheData
        configuration.timeoutIntervalForResource = Self.resourceTimeout
        configuration.timeoutIntervalForRequest = requestTimeout
        let delegateQueue = OperationQueue()
        delegateQueue.maxConcurrentOperationCount = 1
        delegateQueue.name = "TIP.URLSessionImageFetchDownloadProvider"
        router = URLSessionImageFetchDownloadRouter()
        session = URLSession(configuration: configuration, delegate: router, delegateQueue: delegateQueue)
    }

    deinit {
        // The session keeps its delegate alive until invalidated.
        session.finishTasksAndInvalidate()
    }

    /// A new download for `context`; it does nothing until `start()`.
    public func imageFetchDownload(with context: any ImageFetchDownloadContext) -> any ImageFetchDownload {
        URLSessionImageFetchDownload(context: context, provider: self)
    }
}
