import Foundation

/// What a response says about caching it (RFC 9111 §4.2 and §5), read as a private cache reads it: `Cache-Control`
/// (`max-age`, `no-store`, `no-cache`, `must-revalidate`; `s-maxage` and `proxy-revalidate` are for shared caches
/// and ignored, as are `private` and `public`), `Expires` against `Date`, and `Age`.
///
/// ```swift
/// let headers = HTTPCachingHeaders(cacheControl: "public, max-age=600", expires: nil, date: nil, age: "30")
/// headers.freshness(receivedAt: now, fallbackLifetime: ttl, maximumLifetime: 86_400)
/// // fresh until now + 570 s; the server's lifetime, 600 s, is kept for renewals
/// ```
///
/// A pure value: every case is tested on its own.
struct HTTPCachingHeaders: Sendable, Equatable {
    /// `no-store`: the response must not be kept.
    var noStore = false
    /// `no-cache` (unqualified): kept, but revalidated before every use. (`no-cache="field"` only concerns the
    /// header fields it names, never the image.)
    var noCache = false
    /// `must-revalidate`: a stale response is never served without revalidation, which is how every stale
    /// entry is treated anyway.
    var mustRevalidate = false
    /// `max-age` in seconds (the first one; an unreadable value counts as 0: stale at once).
    var maxAge: TimeInterval?
    /// `Expires`: nil when absent; an unreadable one (such as `0`) is a date in the past.
    var expires: Date?
    /// `Date`, when present and readable.
    var date: Date?
    /// `Age` in seconds (0 when absent or unreadable).
    var age: TimeInterval = 0

    /// The largest delta-seconds value taken as it is (RFC 9111 §1.2.2); larger values count as this.
    static let largestDeltaSeconds: TimeInterval = 2_147_483_648

    /// Reads the header values (each nil when absent; repeated fields already joined with commas).
    init(cacheControl: String?, expires: String?, date: String?, age: String?) {
        if let cacheControl { readCacheControl(cacheControl) }
        if let expires {
            self.expires = HTTPDate.parse(HTTPFieldText.trimmed(expires)) ?? .distantPast
        }
        self.date = date.flatMap { HTTPDate.parse(HTTPFieldText.trimmed($0)) }
        self.age = age.flatMap { Self.deltaSeconds(HTTPFieldText.trimmed($0)) } ?? 0
    }

    /// The caching headers of `headers`.
    init(_ headers: ResponseHeaders) {
        self.init(cacheControl: headers.cacheControl, expires: headers.expires, date: headers.date, age: headers.age)
    }

    /// The server's freshness lifetime in seconds (0 for `no-cache`), before any cap; nil when the response says
    /// nothing about it. `Expires` counts from `Date`, or from `receivedAt` when there is no `Date`.
    func serverLifetime(receivedAt: Date) -> TimeInterval? {
        if noCache { return 0 }
        if let maxAge { return maxAge }
        if let expires { return max(0, expires.timeIntervalSince(date ?? receivedAt)) }
        return nil
    }

    /// How long a response received at `receivedAt` stays fresh: the server's lifetime capped at
    /// `maximumLifetime`, less the `Age` it spent in other caches; without one, `fallbackLifetime` (the request's
    /// TTL) from `receivedAt`.
    func freshness(receivedAt: Date, fallbackLifetime: TimeInterval, maximumLifetime: TimeInterval) -> CacheFreshness {
        guard let lifetime = serverLifetime(receivedAt: receivedAt).map({ min($0, max(0, maximumLifetime)) }) else {
            return CacheFreshness(freshUntil: receivedAt.addingTimeInterval(fallbackLifetime), serverLifetime: nil)
        }
        return CacheFreshness(freshUntil: receivedAt.addingTimeInterval(lifetime - age), serverLifetime: lifetime)
    }

    /// Whether the response may be kept: not `no-store`, and not `no-cache` without a validator (it could never be
    /// used again without downloading it whole).
    func isStorable(hasValidator: Bool) -> Bool {
        !noStore && (!noCache || hasValidator)
    }

    // MARK: Parsing

    private mutating func readCacheControl(_ value: String) {
        for directive in Self.directives(value) {
            switch directive.name {
            case "no-store":
                noStore = true
            case "no-cache":
                // The qualified form names header fields only.
                if directive.argument?.isEmpty ?? true { noCache = true }
            case "must-revalidate":
                mustRevalidate = true
            case "max-age":
                if maxAge == nil { maxAge = directive.argument.flatMap(Self.deltaSeconds) ?? 0 }
            default:
                break
            }
        }
    }

    /// The directives of a `Cache-Control` value: lower-cased names, arguments without their quotes.
    static func directives(_ value: String) -> [(name: String, argument: String?)] {
        var result: [(name: String, argument: String?)] = []
        var name = ""
        var argument: String?
        var inQuotes = false
        var escaped = false
        func flush() {
            let trimmed = HTTPFieldText.lowercasedASCII(HTTPFieldText.trimmed(name))
            if !trimmed.isEmpty { result.append((trimmed, argument.map { HTTPFieldText.trimmed($0) })) }
            name = ""
            argument = nil
        }
        for character in value {
            if inQuotes {
                if escaped {
                    argument?.append(character)
                    escaped = false
                } else if character == "\\" {
                    escaped = true
                } else if character == "\"" {
                    inQuotes = false
                } else {
                    argument?.append(character)
                }
            } else if character == "," {
                flush()
            } else if argument != nil {
                if character == "\"" { inQuotes = true } else { argument?.append(character) }
            } else if character == "=" {
                argument = ""
            } else {
                name.append(character)
            }
        }
        flush()
        return result
    }

    /// A delta-seconds value (digits only), capped at ``largestDeltaSeconds``; nil when not one.
    static func deltaSeconds(_ text: String) -> TimeInterval? {
        guard !text.isEmpty, text.utf8.allSatisfy({ (0x30...0x39).contains($0) }) else { return nil }
        guard let value = Double(text) else { return nil }
        return min(value, largestDeltaSeconds)
    }
}
