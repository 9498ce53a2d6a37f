import Foundation
import Testing

@testable import TIP

#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// The HTTP caching rules as pure values: dates, `Cache-Control`, freshness, storability, revalidation headers
/// and the `304` decision.
@Suite("HTTP caching headers")
struct HTTPCachingHeadersTests {
    static let received = Date(timeIntervalSince1970: 1_700_000_000)
    static let day: TimeInterval = 86_400

    private func headers(_ cacheControl: String? = nil, expires: String? = nil, date: String? = nil, age: String? = nil)
        -> HTTPCachingHeaders
    {
        HTTPCachingHeaders(cacheControl: cacheControl, expires: expires, date: date, age: age)
    }

    private func freshness(_ headers: HTTPCachingHeaders, fallback: TimeInterval = 1_000, maximum: TimeInterval = 1e9)
        -> CacheFreshness
    {
        headers.freshness(receivedAt: Self.received, fallbackLifetime: fallback, maximumLifetime: maximum)
    }

    @Test(
        "HTTP dates: IMF-fixdate, RFC 850 and asctime name the same moment; anything else is not a date",
        arguments: ["Sun, 06 Nov 1994 08:49:37 GMT", "Sunday, 06-Nov-94 08:49:37 GMT", "Sun Nov  6 08:49:37 1994"])
    func dates(text: String) {
        #expect(HTTPDate.parse(text) == Date(timeIntervalSince1970: 784_111_777))
    }

    @Test("HTTP dates: leap days, the epoch, two-digit years and garbage")
    func dateEdges() {
        #expect(HTTPDate.parse("Thu, 29 Feb 2024 12:00:00 GMT") == Date(timeIntervalSince1970: 1_709_208_000))
        #expect(HTTPDate.parse("Thu, 01 Jan 1970 00:00:00 GMT") == Date(timeIntervalSince1970: 0))
        #expect(HTTPDate.parse("Friday, 31-Dec-99 23:59:59 GMT") == Date(timeIntervalSince1970: 946_684_799))
        #expect(HTTPDate.parse("Saturday, 01-Jan-00 00:00:00 GMT") == Date(timeIntervalSince1970: 946_684_800))
        for bad in [
            "0", "-1", "", "tomorrow", "Thu, 29 Feb 2023 12:00:00 GMT", "Sun, 06 Nov 1994 25:49:37 GMT",
            "Sun, 32 Nov 1994 08:49:37 GMT", "Sun, 06 Foo 1994 08:49:37 GMT", "Sun, 06 Nov 1994 08:49 GMT",
        ] {
            #expect(HTTPDate.parse(bad) == nil, "\(bad)")
        }
    }

    @Test("Cache-Control directives: names in any case, quoted arguments, unknown ones ignored")
    func directives() {
        let parsed = HTTPCachingHeaders.directives(#"Public, MAX-AGE="600", no-cache="Set-Cookie, X", x-ext=a\b"#)
        #expect(parsed.map(\.name) == ["public", "max-age", "no-cache", "x-ext"])
        #expect(parsed.map(\.argument) == [nil, "600", "Set-Cookie, X", #"a\b"#])
        let value = headers("Public, MAX-AGE=\"600\", no-cache=\"Set-Cookie\"")
        #expect(value.maxAge == 600)
        #expect(!value.noCache, "no-cache naming fields concerns only those fields")
        #expect(headers("no-cache").noCache && headers("NO-STORE").noStore && headers("must-revalidate").mustRevalidate)
    }

    @Test("max-age: the first one counts; s-maxage is for shared caches; unreadable is 0; huge is capped")
    func maxAge() {
        #expect(headers("max-age=60, max-age=600").maxAge == 60)
        #expect(headers("s-maxage=600").maxAge == nil)
        #expect(headers("s-maxage=600, max-age=5").maxAge == 5)
        #expect(headers("max-age=abc").maxAge == 0)
        #expect(headers("max-age=-5").maxAge == 0)
        #expect(headers("max-age").maxAge == 0)
        #expect(headers("max-age=99999999999999999999").maxAge == HTTPCachingHeaders.largestDeltaSeconds)
    }

    @Test("freshness: max-age from the moment received, less Age, capped by the maximum")
    func maxAgeFreshness() {
        #expect(
            freshness(headers("max-age=600")) == CacheFreshness(freshUntil: Self.received + 600, serverLifetime: 600))
        #expect(freshness(headers("max-age=600", age: "100")).freshUntil == Self.received + 500)
        #expect(freshness(headers("max-age=600", age: "junk")).freshUntil == Self.received + 600)
        #expect(
            freshness(headers("max-age=600"), maximum: 60)
                == CacheFreshness(freshUntil: Self.received + 60, serverLifetime: 60))
        #expect(freshness(headers("max-age=600"), maximum: 0).isStale(at: Self.received))
        #expect(freshness(headers("max-age=0")).isStale(at: Self.received))
        #expect(!freshness(headers("max-age=1")).isStale(at: Self.received))
        #expect(freshness(headers("max-age=1")).isStale(at: Self.received + 1))
    }

    @Test("freshness: Expires counts from Date (the server's clock), else from the moment received; max-age wins")
    func expiresFreshness() {
        let date = "Tue, 14 Nov 2023 22:20:00 GMT"  // 1_700_000_400: the server's clock runs 400 s ahead
        let expires = "Tue, 14 Nov 2023 22:30:00 GMT"  // Date + 600
        #expect(freshness(headers(expires: expires, date: date)).freshUntil == Self.received + 600)
        #expect(freshness(headers(expires: expires)).freshUntil == Self.received + 1_000)
        #expect(freshness(headers("max-age=30", expires: expires, date: date)).freshUntil == Self.received + 30)
        #expect(
            freshness(headers(expires: "0", date: date)).isStale(at: Self.received), "an unreadable Expires has passed")
        #expect(freshness(headers(expires: "Tue, 14 Nov 2023 21:00:00 GMT", date: date)).isStale(at: Self.received))
        #expect(freshness(headers(expires: expires, date: date), maximum: 100).freshUntil == Self.received + 100)
    }

    @Test("freshness: no-cache is stale at once; without caching headers the request's TTL stands in, uncapped")
    func fallbackFreshness() {
        #expect(freshness(headers("no-cache, max-age=600")).isStale(at: Self.received))
        #expect(freshness(headers("public")) == CacheFreshness(freshUntil: Self.received + 1_000, serverLifetime: nil))
        #expect(freshness(headers(), fallback: 30 * Self.day, maximum: 60).freshUntil == Self.received + 30 * Self.day)
        #expect(
            freshness(headers(age: "100")).freshUntil == Self.received + 1_000,
            "Age applies to the server's lifetime only")
    }

    @Test(
        "storable unless no-store, or no-cache without a validator",
        arguments: [
            ("max-age=60", false, true), ("no-store", true, false), ("no-store, max-age=60", true, false),
            ("no-cache", true, true), ("no-cache", false, false), ("private, max-age=5", false, true),
        ])
    func storable(cacheControl: String, hasValidator: Bool, expected: Bool) {
        #expect(headers(cacheControl).isStorable(hasValidator: hasValidator) == expected)
    }

    @Test("ResponseHeaders reads the caching fields of a response")
    func responseHeaders() throws {
        let response = try #require(
            HTTPURLResponse(
                url: URL(string: "http://a.test/x.jpg")!, statusCode: 200, httpVersion: "HTTP/1.1",
                headerFields: [
                    "Cache-Control": "max-age=60", "Expires": "Tue, 14 Nov 2023 22:30:00 GMT",
                    "Date": "Tue, 14 Nov 2023 22:20:00 GMT", "Age": "7",
                ]))
        let read = HTTPCachingHeaders(ResponseHeaders(response))
        #expect(read.maxAge == 60 && read.age == 7)
        #expect(
            read.expires == Date(timeIntervalSince1970: 1_700_001_000)
                && read.date == Date(timeIntervalSince1970: 1_700_000_400))
    }

    @Test("a revalidation sends If-None-Match and If-Modified-Since, and recognises the image it asked about")
    func revalidation() throws {
        let both = try #require(
            ImageDownloadRevalidation(entityTag: "\"v1\"", lastModified: "Tue, 14 Nov 2023 22:20:00 GMT"))
        #expect(both.headerFields.map(\.name) == ["If-None-Match", "If-Modified-Since"])
        #expect(both.matches(entityTag: "\"v1\"", lastModified: "Tue, 14 Nov 2023 22:20:00 GMT"))
        #expect(!both.matches(entityTag: "\"v2\"", lastModified: "Tue, 14 Nov 2023 22:20:00 GMT"))
        let dateOnly = try #require(
            ImageDownloadRevalidation(entityTag: nil, lastModified: "Tue, 14 Nov 2023 22:20:00 GMT"))
        #expect(dateOnly.headerFields.map(\.name) == ["If-Modified-Since"])
        #expect(ImageDownloadRevalidation(entityTag: nil, lastModified: nil) == nil)
        #expect(
            ImageDownloadRevalidation(entityTag: "\"a\nb\"", lastModified: nil) == nil,
            "a validator that cannot be sent")
    }

    @Test("304 is an answer only to a revalidation; with a range as well, it still confirms the complete image")
    func notModifiedDecision() throws {
        let response = try #require(
            HTTPURLResponse(
                url: URL(string: "http://a.test/x.jpg")!, statusCode: 304,
                httpVersion: "HTTP/1.1", headerFields: ["ETag": "\"v1\""]))
        let headers = ResponseHeaders(response)
        var rules = ImageDownloadResponseRules()
        #expect(rules.decide(status: 304, headers: headers) == .fail(status: 304))
        rules.revalidation = ImageDownloadRevalidation(entityTag: "\"v1\"", lastModified: nil)
        #expect(rules.decide(status: 304, headers: headers) == .notModified)
        rules.resume = ImageDownloadResume(byteCount: 10, expectedLength: 100, lastModified: nil, entityTag: "\"v2\"")
        #expect(rules.decide(status: 304, headers: headers) == .notModified)
    }

    @Test("a 304 renews with its own caching headers, else the stored server lifetime, else the request's TTL")
    func renewal() {
        let now = Self.received
        let stored = CacheFreshness(freshUntil: now - 10, serverLifetime: 120)
        func renew(_ caching: HTTPCachingHeaders?, _ stored: CacheFreshness?) -> CacheFreshness {
            SharedImageDownload.renewedFreshness(
                caching, stored: stored, receivedAt: now, fallbackLifetime: 1_000, maximumLifetime: 500)
        }
        #expect(renew(headers("max-age=60"), stored) == CacheFreshness(freshUntil: now + 60, serverLifetime: 60))
        #expect(renew(headers("max-age=6000"), stored).freshUntil == now + 500)
        #expect(renew(headers(), stored) == CacheFreshness(freshUntil: now + 120, serverLifetime: 120))
        #expect(renew(headers(age: "20"), stored).freshUntil == now + 100)
        #expect(renew(nil, nil) == CacheFreshness(freshUntil: now + 1_000, serverLifetime: nil))
    }
}
