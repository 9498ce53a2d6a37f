import Foundation

#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// The status line and header fields of one HTTP response, as libcurl's header callback hands them over line
/// by line (HTTP/1.x lines as received; HTTP/2 and HTTP/3 headers rewritten by libcurl into the same form).
///
/// Field bytes that are not UTF-8 (a Latin-1 `Content-Disposition`) are read as ISO-8859-1, the encoding HTTP
/// historically allowed, so every byte survives and the response is never refused for it.
struct CurlResponseHead: Sendable {
    /// The status code (100-599 in practice).
    var statusCode: Int
    /// "HTTP/1.1", "HTTP/2", ...
    var httpVersion: String
    /// Header fields in arrival order; names as received.
    var fields: [(name: String, value: String)] = []
    /// Whether the blank line that ends the header block arrived.
    var isComplete = false

    /// Whether this is an interim response (1xx) that a final response follows.
    var isInterim: Bool { (100..<200).contains(statusCode) }

    /// A head begun by the status line `line` ("HTTP/1.1 200 OK", "HTTP/2 200"), or nil when `line` is not one.
    init?(statusLine line: UnsafeRawBufferPointer) {
        let text = Self.string(line)
        guard text.hasPrefix("HTTP/") else { return nil }
        let parts = text.split(separator: " ", maxSplits: 2, omittingEmptySubsequences: true)
        guard parts.count >= 2, let status = Int(parts[1]), (100...999).contains(status) else { return nil }
        statusCode = status
        httpVersion = String(parts[0])
    }

    /// Adds the field line `line` ("Name: value", CRLF already removed). A line that starts with a space or a
    /// tab continues the previous field (obsolete line folding).
    mutating func addFieldLine(_ line: UnsafeRawBufferPointer) {
        guard let first = line.first else { return }
        if HTTPFieldText.isSpaceOrTab(first), !fields.isEmpty {
            fields[fields.count - 1].value += " " + Self.string(HTTPFieldText.trimmed(line))
            return
        }
        guard let colon = line.firstIndex(of: 0x3A) else { return }
        let name = HTTPFieldText.trimmed(UnsafeRawBufferPointer(rebasing: line[..<colon]))
        guard !name.isEmpty else { return }
        let value = HTTPFieldText.trimmed(UnsafeRawBufferPointer(rebasing: line[(colon + 1)...]))
        fields.append((Self.string(name), Self.string(value)))
    }

    /// The response for `url`, with repeated fields joined by ", " under the first spelling of their name.
    func makeResponse(url: URL) -> HTTPURLResponse? {
        var joined: [String: String] = [:]
        var spelling: [String: String] = [:]
        for (name, value) in fields {
            let key = HTTPFieldText.lowercasedASCII(name)
            if let existing = spelling[key] {
                joined[existing] = (joined[existing] ?? "") + ", " + value
            } else {
                spelling[key] = name
                joined[name] = value
            }
        }
        return HTTPURLResponse(url: url, statusCode: statusCode, httpVersion: httpVersion, headerFields: joined)
    }

    /// The value of the field `name` (case-insensitive), the first one when repeated.
    func value(of name: String) -> String? {
        fields.first { HTTPFieldText.equalsIgnoringASCIICase($0.name, name) }?.value
    }

    /// `bytes` as UTF-8 when valid, else as ISO-8859-1 (never fails, keeps every byte).
    static func string(_ bytes: UnsafeRawBufferPointer) -> String {
        if let text = String(validating: bytes, as: UTF8.self) { return text }
        return String(bytes.lazy.map { Character(Unicode.Scalar($0)) })
    }
}
