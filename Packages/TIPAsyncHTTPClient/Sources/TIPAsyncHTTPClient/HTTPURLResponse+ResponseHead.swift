import Foundation
import NIOHTTP1

#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

extension HTTPURLResponse {
    /// The response `head` answered for `url` (nil if Foundation refuses it): fields repeated under one name
    /// (any case) are joined with ", " under the first spelling, as HTTP allows for list fields.
    static func make(head: HTTPResponseHead, url: URL) -> HTTPURLResponse? {
        var fields: [String: String] = [:]
        var spelling: [String: String] = [:]  // lowercased name → the first spelling seen
        for (name, value) in head.headers {
            let key = name.lowercased()
            if let first = spelling[key] {
                fields[first] = (fields[first].map { $0 + ", " } ?? "") + value
            } else {
                spelling[key] = name
                fields[name] = value
            }
        }
        return HTTPURLResponse(
            url: url, statusCode: Int(head.status.code), httpVersion: head.version.tipDescription,
            headerFields: fields)
    }
}

extension HTTPVersion {
    /// "HTTP/1.1", "HTTP/2.0".
    var tipDescription: String { "HTTP/\(major).\(minor)" }
}
