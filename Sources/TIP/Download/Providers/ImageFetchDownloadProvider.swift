import Foundation

#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// Makes the downloads TIP runs for network fetches (TIP's `TIPImageFetchDownloadProvider`).
///
/// TIP calls `imageFetchDownload(with:)` on the downloader's queue; the provider may be shared by many pipelines.
/// The default is `CurlImageFetchDownloadProvider` on Linux; `URLSessionImageFetchDownloadProvider` is the other
/// shipped provider.
public protocol ImageFetchDownloadProvider: AnyObject, Sendable {
    /// A new, not yet started download for `context`. The result's `context` must be this very `context`.
    func imageFetchDownload(with context: any ImageFetchDownloadContext) -> any ImageFetchDownload
}
