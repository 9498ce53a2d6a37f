import Foundation

#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// What a download needs from TIP (TIP's `TIPImageFetchDownloadContext`).
///
/// TIP owns the context and fills `hydratedRequest` and `authorization` as the client's hydration and
/// authorization complete; read them only after those completions were called, on `downloadQueue`.
public protocol ImageFetchDownloadContext: AnyObject, Sendable {
    /// The fetch's request; only its URL matters. Do not load it: load `hydratedRequest`.
    var originalRequest: URLRequest { get }
    /// The request to load, set once hydration completed without error; nil before.
    var hydratedRequest: URLRequest? { get }
    /// The value for the `Authorization` header, set once authorization completed; nil when none is needed.
    /// The download applies it itself.
    var authorization: String? { get }
    /// Receives the download's events. Call it only on `downloadQueue`.
    var client: any ImageFetchDownloadClient { get }
    /// The serial queue every client call (and every hydration/authorization completion) happens on.
    var downloadQueue: DispatchQueue { get }
}
