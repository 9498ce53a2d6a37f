import Foundation

#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// One download made by an `ImageFetchDownloadProvider` (TIP's `TIPImageFetchDownload`).
///
/// Thread contract: TIP calls `start()`, `cancel(description:)`, `discardContext()` and sets `priority` on the
/// context's `downloadQueue`; implementations must still tolerate calls from other threads. Every call the download
/// makes on its client must arrive on that queue, in the order `ImageFetchDownloadClient` describes.
public protocol ImageFetchDownload: AnyObject, Sendable {
    /// The context the download was made with; nil after `discardContext()`.
    var context: (any ImageFetchDownloadContext)? { get }

    /// The request actually loaded (hydrated, authorized, after redirects); nil before the load begins.
    var finalURLRequest: URLRequest? { get }

    /// The scheduling priority; TIP sets it to the highest priority of the fetches sharing the download.
    var priority: Operation.QueuePriority { get set }

    /// Provider-specific metrics, surfaced opaquely in fetch metrics; nil when the provider has none (the default).
    var downloadMetrics: (any Sendable)? { get }

    /// Begins the download: the download then reports `didStart`, asks for hydration and authorization, loads
    /// the hydrated request and reports the response, the data and the completion.
    func start()

    /// Cancels the download. It must still end with exactly one error completion (unless it already completed).
    /// `description` says why, for logs and the error message.
    func cancel(description: String)

    /// Drops the context (and so the client). Called after completion; the download must not keep the client.
    func discardContext()
}

extension ImageFetchDownload {
    /// No provider metrics.
    public var downloadMetrics: (any Sendable)? { nil }
}
