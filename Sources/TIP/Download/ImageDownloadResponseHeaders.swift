import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// What a download needs from a response's headers: lengths, the byte range of a 206, validators.
struct ResponseHeaders {
    /// `Content-Length`, when present and valid.
    var contentLength: Int?
    /// `Content-Range: bytes first-last/total` of a partial response (`total` nil for `*`).
    var contentRange: (first: Int, last: Int, total: Int?)?
    /// `Last-Modified`.
    var lastModified: String?
    /// `ETag` (weak tags are kept out: they cannot validate a range).
    var eTag: String?
    /// Whether `Accept-Ranges` lists `bytes`.
    var acceptsByteRanges: Bool

    init(_ response: HTTPURLResponse) {
        func value(_ name: String) -> String? {
            guard let raw = response.value(forHTTPHeaderField: name)?.trimmingCharacters(in: .whitespaces), !raw.isEmpty
            else { return nil }
            return raw
        }
        contentLength = value("Content-Length").flatMap { Int($0) }.flatMap { $0 >= 0 ? $0 : nil }
        contentRange = value("Content-Range").flatMap(Self.parseContentRange)
        lastModified = value("Last-Modified")
        eTag = value("ETag").flatMap { $0.hasPrefix("W/") ? nil : $0 }
        acceptsByteRanges = value("Accept-Ranges")?.lowercased().split(separator: ",")
            .contains { $0.trimmingCharacters(in: .whitespaces) == "bytes" } ?? false
    }

    /// Parses `bytes first-last/total` (total may be `*`).
    static func parseContentRange(_ text: String) -> (first: Int, last: Int, total: Int?)? {
        let lowered = text.lowercased()
        guard lowered.hasPrefix("bytes ") else { return nil }
        let spec = lowered.dropFirst(6).trimmingCharacters(in: .whitespaces)
        let halves = spec.split(separator: "/", maxSplits: 1, omittingEmptySubsequences: false)
        guard halves.count == 2 else { return nil }
        let bounds = halves[0].split(separator: "-", maxSplits: 1, omittingEmptySubsequences: false)
        guard bounds.count == 2, let first = Int(bounds[0]), let last = Int(bounds[1]), first >= 0, last >= first else { return nil }
        if halves[1] == "*" { return (first, last, nil) }
        guard let total = Int(halves[1]), total > last else { return nil }
        return (first, last, total)
    }

}
