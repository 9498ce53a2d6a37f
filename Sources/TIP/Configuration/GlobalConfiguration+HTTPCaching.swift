import Foundation

// Beyond TIP: HTTP caching semantics (RFC 9111 as a private cache applies it). TIP keeps every image for a fixed
// time to live and never asks the server again; with these settings an image stays fresh for as long as its
// response's `Cache-Control` or `Expires` says (the request's TTL when it says nothing), is revalidated with
// `If-None-Match` / `If-Modified-Since` once stale, and a `no-store` response is never cached.
extension GlobalConfiguration {
    /// The default for ``maximumHTTPFreshnessLifetime``: 30 days (TIP's default time to live).
    public static let defaultMaximumHTTPFreshnessLifetime: TimeInterval = 30 * 24 * 60 * 60

    /// Whether downloads follow the responses' HTTP caching headers. Default true:
    /// - an image stays fresh for the `Cache-Control: max-age` (else `Expires` − `Date`) its response gave, at most
    ///   ``maximumHTTPFreshnessLifetime``, less its `Age`; without either header, for the request's `timeToLive`
    ///   from the moment it was downloaded (or last revalidated);
    /// - a stale image with a validator (`ETag`, `Last-Modified`) is revalidated: the next fetch sends
    ///   `If-None-Match` / `If-Modified-Since`, and a `304` serves the cached bytes, renewed
    ///   (``ImageFetchResult/imageWasRevalidated``); a stale image without one is downloaded again;
    /// - `no-cache` responses are kept but revalidated before every use; `no-store` responses are delivered but
    ///   never cached (not on disk, not in memory, not as resumable partials).
    ///
    /// False restores TIP's behaviour: a fixed TTL, no revalidation, caching headers ignored (images stored while it
    /// was true are then served for as long as their TTL keeps them). Read when a download starts, when its response
    /// arrives, and at each cache lookup.
    public var followsHTTPCachingHeaders: Bool {
        get { settings.withLock { $0.followsHTTPCachingHeaders } }
        set { settings.withLock { $0.followsHTTPCachingHeaders = newValue } }
    }

    /// The longest freshness, in seconds, that a response's `Cache-Control: max-age` or `Expires` may give an image:
    /// a longer one is cut to this (an image served with `max-age=31536000` is then revalidated monthly, at a cost
    /// of one `304`). It does not limit the request's `timeToLive`, which stands in when the response says nothing.
    /// 0 or negative: every image with caching headers is revalidated before each use. Default 30 days.
    public var maximumHTTPFreshnessLifetime: TimeInterval {
        get { settings.withLock { $0.maximumHTTPFreshnessLifetime } }
        set { settings.withLock { $0.maximumHTTPFreshnessLifetime = newValue } }
    }
}
