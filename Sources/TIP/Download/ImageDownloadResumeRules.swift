import Foundation

#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// A cached partial download that a new download continues: how many bytes it holds, the full
/// length when known, and the validators for `If-Range`.
struct ImageDownloadResume: Sendable, Equatable {
    /// Bytes the partial holds: the range asked for starts here.
    var byteCount: Int
    /// The image's full length, when it was known.
    var expectedLength: Int?
    /// The partial's `Last-Modified`.
    var lastModified: String?
    /// The partial's entity tag.
    var entityTag: String?

    /// A resume of `byteCount` bytes; nil when neither validator can be sent as it is (a resume that cannot be
    /// validated would risk splicing another file's bytes). An `expectedLength` not above `byteCount` (a partial
    /// recorded as size + 1 because its length was unknown) is dropped.
    init?(byteCount: Int, expectedLength: Int?, lastModified: String?, entityTag: String?) {
        let lastModified = lastModified.flatMap { Self.isSendable($0) ? $0 : nil }
        let entityTag = entityTag.flatMap { Self.isSendable($0) ? $0 : nil }
        guard byteCount > 0, lastModified != nil || entityTag != nil else { return nil }
        self.byteCount = byteCount
        self.expectedLength = expectedLength.flatMap { $0 > byteCount ? $0 : nil }
        self.lastModified = lastModified
        self.entityTag = entityTag
    }

    /// The `If-Range` value: the entity tag when there is one (stronger than a date), else `Last-Modified`.
    var validator: String { entityTag ?? lastModified ?? "" }

    /// Whether a response with these validators is of another version than the partial: the validator of the kind
    /// `If-Range` carried differs (equal ones mean the server ignored the range).
    func isOtherVersion(entityTag other: String?, lastModified otherDate: String?) -> Bool {
        entityTag != nil ? entityTag != other : lastModified != otherDate
    }

    /// The `Range` value: the rest of the image from ``byteCount``.
    var range: String { "bytes=\(byteCount)-" }

    /// Whether `value` can go out verbatim in a header: visible ASCII and spaces, no control characters.
    static func isSendable(_ value: String) -> Bool {
        !value.isEmpty && value.utf8.allSatisfy { $0 == 0x20 || $0 == 0x09 || (0x21...0x7E).contains($0) }
    }
}

/// What a download does with a response (TIP's resume rules and RFC 9110's range rules), given what it asked for: a
/// pure value, so every status × range × validator case is tested on its own.
struct ImageDownloadResponseRules: Sendable {
    /// The partial the request asked to continue; nil for a request of the whole image.
    var resume: ImageDownloadResume?
    /// The validators of the cached image the request asked the server to confirm; nil for an unconditional
    /// request.
    var revalidation: ImageDownloadRevalidation?
    /// Whether the download already started over once without a range (it does so at most once).
    var didRestartWithoutRange = false

    /// The decision for one response.
    enum Decision: Equatable, Sendable {
        /// Take the body as the whole image (a 2xx to a request of the whole image).
        case accept(expectedLength: Int?)
        /// The body continues the partial (a 206 whose range and validators match it).
        case append(expectedLength: Int?)
        /// The body is the whole image after all (a 200 to a range request): drop the partial, start from byte 0.
        case restart(expectedLength: Int?)
        /// The response cannot continue the partial (416, or a 206 for other bytes or another version of the
        /// file): drop the partial and ask again for the whole image, once.
        case retryWithoutRange
        /// The response cannot give the image: fail with `httpTransactionError` and `status`.
        case fail(status: Int)
        /// `304 Not Modified` to a revalidation: the cached image is still the server's; serve it, renewed.
        case notModified
    }

    /// The decision for a response with `status` and `headers`.
    func decide(status: Int, headers: ResponseHeaders) -> Decision {
        // Only an asked-for 304 is an answer; one to an unconditional request (a hydrator's own headers) fails.
        if status == 304, revalidation != nil { return .notModified }
        guard let resume else {
            // A 206 to a request without a range holds some unknown part of the image: never the whole.
            guard (200..<300).contains(status), status != 206 else { return .fail(status: status) }
            return .accept(expectedLength: headers.contentLength)
        }
        switch status {
        case 206:
            return continues(resume, headers)
                ? .append(expectedLength: headers.contentRange?.total ?? resume.expectedLength)
                : retryOnce(status)
        case 200:
            return .restart(expectedLength: headers.contentLength)
        case 416:
            return retryOnce(status)
        default:
            return .fail(status: status)
        }
    }

    private func retryOnce(_ status: Int) -> Decision {
        didRestartWithoutRange ? .fail(status: status) : .retryWithoutRange
    }

    /// Whether a 206 carries exactly the rest of `resume`'s file: its range starts at the partial's end and runs
    /// to the end of the file, its total matches the partial's recorded length, and its validators match the
    /// ones sent (a changed entity tag or date means another version of the file).
    private func continues(_ resume: ImageDownloadResume, _ headers: ResponseHeaders) -> Bool {
        guard let range = headers.contentRange, range.first == resume.byteCount else { return false }
        if let total = range.total {
            guard range.last == total - 1 else { return false }
            if let expected = resume.expectedLength, expected != total { return false }
        }
        if let sent = resume.entityTag, let received = headers.entityTag, received != sent { return false }
        if resume.entityTag == nil, let sent = resume.lastModified, let received = headers.lastModified,
            received != sent
        {
            return false
        }
        return true
    }
}

/// What a download needs from a response's headers: lengths, the byte range of a 206, validators.
struct ResponseHeaders {
    /// `Content-Length`, when present and valid.
    var contentLength: Int?
    /// `Content-Range: bytes first-last/total` of a partial response (`total` nil for `*`).
    var contentRange: (first: Int, last: Int, total: Int?)?
    /// `Last-Modified`.
    var lastModified: String?
    /// `ETag` (weak tags are kept out: they cannot validate a range).
    var entityTag: String?
    /// Whether `Accept-Ranges` lists `bytes`.
    var acceptsByteRanges: Bool
    /// `Cache-Control`, `Expires`, `Date` and `Age`, for ``HTTPCachingHeaders``.
    var cacheControl: String?
    var expires: String?
    var date: String?
    var age: String?

    init(_ response: HTTPURLResponse) {
        func value(_ name: String) -> String? {
            // Trimmed of spaces and tabs only (the whitespace HTTP allows), without Foundation's costlier
            // character-set trimming: this runs for every response.
            guard let raw = response.value(forHTTPHeaderField: name).map({ HTTPFieldText.trimmed($0) }), !raw.isEmpty
            else { return nil }
            return raw
        }
        contentLength = value("Content-Length").flatMap { Int($0) }.flatMap { $0 >= 0 ? $0 : nil }
        contentRange = value("Content-Range").flatMap(Self.parseContentRange)
        lastModified = value("Last-Modified")
        entityTag = value("ETag").flatMap { $0.hasPrefix("W/") ? nil : $0 }
        acceptsByteRanges =
            value("Accept-Ranges").map { HTTPFieldText.lowercasedASCII($0) }?.split(separator: ",")
            .contains { HTTPFieldText.trimmed($0) == "bytes" } ?? false
        cacheControl = value("Cache-Control")
        expires = value("Expires")
        date = value("Date")
        age = value("Age")
    }

    /// Parses `bytes first-last/total` (total may be `*`).
    static func parseContentRange(_ text: String) -> (first: Int, last: Int, total: Int?)? {
        let lowered = text.lowercased()
        guard lowered.hasPrefix("bytes ") else { return nil }
        let spec = lowered.dropFirst(6).trimmingCharacters(in: .whitespaces)
        let halves = spec.split(separator: "/", maxSplits: 1, omittingEmptySubsequences: false)
        guard halves.count == 2 else { return nil }
        let bounds = halves[0].split(separator: "-", maxSplits: 1, omittingEmptySubsequences: false)
        guard bounds.count == 2, let first = Int(bounds[0]), let last = Int(bounds[1]), first >= 0, last >= first else {
            return nil
        }
        if halves[1] == "*" { return (first, last, nil) }
        guard let total = Int(halves[1]), total > last else { return nil }
        return (first, last, total)
    }

    /// `response`'s headers for problem reports and logs, without any `Authorization` header.
    static func loggable(_ response: HTTPURLResponse) -> [String: String] {
        var headers: [String: String] = [:]
        for (name, value) in response.allHeaderFields {
            guard let name = name as? String, name.lowercased() != "authorization" else { continue }
            headers[name] = value as? String ?? String(describing: value)
        }
        return headers
    }
}
