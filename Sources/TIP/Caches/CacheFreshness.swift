import Foundation

/// How long a cached image may be used without asking the server again (RFC 9111 §4.2), as the caches keep it
/// next to TIP's time to live: the TTL says how long an entry nobody reads is kept, the freshness how long a
/// kept entry is served as it is. A stale entry with a validator is revalidated (`If-None-Match` /
/// `If-Modified-Since`) before it is served again; one without a validator is downloaded again.
///
/// ```swift
/// let freshness = CacheFreshness(freshUntil: now.addingTimeInterval(60), serverLifetime: 60)
/// freshness.isStale(at: now.addingTimeInterval(61))   // true
/// ```
///
/// Entries stored before HTTP caching, or stored by hand (``ImagePipeline/storeImage(with:completion:)``), have
/// none: they stay fresh for as long as their TTL keeps them (TIP's behaviour).
package struct CacheFreshness: Sendable, Equatable {
    /// The moment the entry stops being fresh (a `freshUntil` in the past: stale at once, as for `no-cache`).
    var freshUntil: Date
    /// The lifetime in seconds that the server's `Cache-Control` or `Expires` gave (already capped by
    /// ``GlobalConfiguration/maximumHTTPFreshnessLifetime``); nil when the request's TTL stood in. A `304` without
    /// caching headers of its own renews the entry for this long again.
    var serverLifetime: TimeInterval?

    /// Whether the entry must be revalidated before it is used at `now`.
    func isStale(at now: Date) -> Bool { now >= freshUntil }
}

extension Optional where Wrapped == CacheFreshness {
    /// Whether an entry with this freshness (nil: none, fresh while kept) must be revalidated at `now`.
    func isStale(at now: Date) -> Bool { self?.isStale(at: now) ?? false }
}
