import Foundation
import NIOCore
import NIOHTTP1

/// One response, decided before anything is written.
struct ResponsePlan {
    /// How the response ends after its body bytes.
    enum Ending: Equatable {
        /// Send every body byte and complete the response (keep-alive permitting).
        case complete
        /// Send every body byte, then close the connection.
        case closeAfterBody
        /// Send at most this many body bytes, then close without completing.
        case drop(after: Int)
        /// Send at most this many body bytes, then send nothing more.
        case stall(after: Int)
    }

    var status: HTTPResponseStatus
    var headers: HTTPHeaders
    /// The body bytes to send (empty for HEAD); shares storage with the resource.
    var body: ByteBuffer
    var ending: Ending = .complete

    /// A response with no resource behind it (errors, redirects, injected statuses).
    static func plain(
        _ status: HTTPResponseStatus, body: Data = Data(), extraHeaders: [(String, String)] = [],
        isHead: Bool
    ) -> ResponsePlan {
        var headers = HTTPHeaders(extraHeaders)
        headers.add(name: "Content-Length", value: String(body.count))
        if !body.isEmpty { headers.add(name: "Content-Type", value: "application/octet-stream") }
        let buffer = isHead ? ByteBuffer() : ByteBuffer(bytes: body)
        return ResponsePlan(status: status, headers: headers, body: buffer)
    }

    /// Decides the response to `head` (already logged as `ticket`).
    static func make(
        for head: HTTPRequestHead, path: String, ticket: ServerStore.Ticket,
        store: ServerStore
    ) -> ResponsePlan {
        let isHead = head.method == .HEAD
        guard head.method == .GET || isHead else {
            return .plain(.methodNotAllowed, extraHeaders: [("Allow", "GET, HEAD")], isHead: false)
        }
        switch ticket.fault {
        case .status(let code, let body):
            return .plain(.init(statusCode: code), body: body ?? Data(), isHead: isHead)
        case .redirect(let code, let location):
            return .plain(.init(statusCode: code), extraHeaders: [("Location", location)], isHead: isHead)
        default:
            break
        }
        guard let resource = store.resource(for: path) else {
            return .plain(.notFound, isHead: isHead)
        }
        let length = resource.body.readableBytes
        let (lastModified, etag) = resource.validators(generation: ticket.generation)
        var range = ByteRange.whole
        if ticket.fault != .ignoreRange {
            range = ByteRange.parse(head.headers.first(name: "Range"), length: length)
            if range != .whole, let ifRange = head.headers.first(name: "If-Range"),
                !ifRangeMatches(ifRange, lastModified: lastModified, etag: etag)
            {
                range = .whole
            }
        }
        var headers = HTTPHeaders()
        if isNotModified(head.headers, lastModified: lastModified, etag: etag) {
            // RFC 9110 §15.4.5: the validators and caching fields a 200 would carry, no body.
            headers.add(name: "Last-Modified", value: lastModified)
            headers.add(name: "ETag", value: etag)
            for field in ticket.extraHeaders { headers.add(name: field.name, value: field.value) }
            return ResponsePlan(status: .notModified, headers: headers, body: ByteBuffer())
        }
        headers.add(name: "Content-Type", value: resource.contentType)
        headers.add(name: "Accept-Ranges", value: "bytes")
        headers.add(name: "Last-Modified", value: lastModified)
        headers.add(name: "ETag", value: etag)
        for field in ticket.extraHeaders { headers.add(name: field.name, value: field.value) }
        let status: HTTPResponseStatus
        var body: ByteBuffer
        switch range {
        case .unsatisfiable:
            headers.add(name: "Content-Range", value: "bytes */\(length)")
            headers.add(name: "Content-Length", value: "0")
            return ResponsePlan(status: .rangeNotSatisfiable, headers: headers, body: ByteBuffer())
        case .whole:
            status = .ok
            body = resource.body
        case .partial(let lower, let upper):
            status = .partialContent
            headers.add(name: "Content-Range", value: "bytes \(lower)-\(upper)/\(length)")
            body =
                resource.body.getSlice(at: resource.body.readerIndex + lower, length: upper - lower + 1)
                ?? ByteBuffer()
        }
        var ending = Ending.complete
        var declared = body.readableBytes
        switch ticket.fault {
        case .dropConnection(let count): ending = .drop(after: max(0, count))
        case .stall(let count): ending = .stall(after: max(0, count))
        case .wrongContentLength(let delta):
            ending = .closeAfterBody
            declared = max(0, body.readableBytes + delta)
        default: break
        }
        headers.add(name: "Content-Length", value: String(declared))
        if isHead { body = ByteBuffer() }
        return ResponsePlan(status: status, headers: headers, body: body, ending: ending)
    }

    /// Whether a conditional `GET` or `HEAD` gets `304 Not Modified` (RFC 9110 §13.1.2-13.1.3): `If-None-Match`
    /// lists the current entity tag (weak comparison) or is `*`; without it, `If-Modified-Since` is a date no
    /// earlier than `Last-Modified`.
    static func isNotModified(_ headers: HTTPHeaders, lastModified: String, etag: String) -> Bool {
        let noneMatch = headers[canonicalForm: "If-None-Match"]
        if !noneMatch.isEmpty {
            let current = etag.hasPrefix("W/") ? String(etag.dropFirst(2)) : etag
            return noneMatch.contains { tag in
                let tag = String(tag).trimmingSpaces()
                return tag == "*" || (tag.hasPrefix("W/") ? String(tag.dropFirst(2)) : tag) == current
            }
        }
        guard
            let since = headers.first(name: "If-Modified-Since").flatMap({ HTTPDate.date(from: $0.trimmingSpaces()) }),
            let modified = HTTPDate.date(from: lastModified)
        else { return false }
        return modified <= since
    }

    /// Whether an `If-Range` value names the current representation: an exact `Last-Modified` date, or a
    /// strong entity tag equal to the current one (weak tags never match).
    static func ifRangeMatches(_ value: String, lastModified: String, etag: String) -> Bool {
        let trimmed = value.trimmingSpaces()
        if trimmed.hasPrefix("W/") { return false }
        if trimmed.hasPrefix("\"") { return trimmed == etag }
        return trimmed == lastModified
    }
}
