import Foundation

#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// A download provider on `URLSession` (no cookies, no URL cache, 180 s resource timeout) running a data task per
/// download, streaming each chunk to the client on the context's download queue. The default on Linux is
/// `CurlImageFetchDownloadProvider`; pick this one with
/// `GlobalConfiguration.shared.imageFetchDownloadProvider = URLSessionImageFetchDownloadProvider()`.
///
/// Downloads load the context's hydrated request (so `Range`/`If-Range` headers added during hydration are
/// sent) with `Accept-Encoding: identity`, set `Authorization` from the context, skip interim 1xx responses,
/// follow redirects only to http/https URLs, end a cancellation with an `ImageFetchError.cancelled` completion
/// and deliver nothing that arrives after it. Thread-safe; share one provider between pipelines.
///
/// What it risks on Linux, where URLSession is FoundationNetworking's (measured with hostile loopback servers,
/// Tests/TIPTests/Hardening/HostileOriginTests.swift); none of it can be fixed from a delegate:
/// - A valid chunked response with a trailer field **aborts the process** (FoundationNetworking's
///   "Transfer completed, but there's no response" fatal error, SIGILL). Any server you do not control can
///   send one.
/// - A response header with a byte that is not UTF-8 (a Latin-1 `Content-Disposition`) fails the download.
/// - Content coding: FoundationNetworking always lets libcurl decode gzip, deflate, br and zstd bodies. The
///   request asks for `identity`, but a server that compresses anyway has its body decoded, so a small bomb
///   becomes as many decoded bytes as the downloader's `maxImageDownloadByteCount` lets through.
/// - No flow control: a fast body keeps being read after the download was cancelled (over 300 MiB on loopback
///   past a 1 MiB limit before the cancellation reached libcurl), buffered in memory meanwhile. With other
///   URLSession downloads running, the cancellation did not get through at all: an endless body was read until
///   the kernel killed the process for memory (24 GB), and the process's other URLSession downloads waited.
/// - No cap on response headers: every line of a header flood is read and kept until the flood ends or a
///   timeout stops it.
/// - Priority is passed to the task, which FoundationNetworking ignores.
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
        router = URLSessionImageFetchDownloadRouter()
        session = URLSession(
            configuration: configuration, delegate: router, delegateQueue: URLSessionInlineDelegateQueue())
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
