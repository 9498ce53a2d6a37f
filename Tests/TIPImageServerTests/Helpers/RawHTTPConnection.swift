import Foundation

#if canImport(Glibc)
import Glibc
#endif

/// A raw HTTP/1.1 response read off a socket.
struct RawHTTPResponse {
    var status: Int
    var headers: [(name: String, value: String)]
    var body: Data

    func header(_ name: String) -> String? {
        headers.first { $0.name.lowercased() == name.lowercased() }?.value
    }
}

enum RawHTTPError: Error {
    case socket(String)
    case timedOut
    case closed
    case malformed
}

/// A blocking TCP client for exact control over requests (paths the URL types would normalise, methods, several
/// requests on one connection) and exact observation of the bytes and the closing. Every read times out.
/// Used by one test at a time; not thread-safe.
final class RawHTTPConnection {
    private let descriptor: Int32
    private var pending = Data()
    /// Whether the server closed the connection (EOF seen).
    private(set) var sawEOF = false

    init(port: Int, timeout: Double = 5) throws {
        descriptor = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        guard descriptor >= 0 else { throw RawHTTPError.socket("socket") }
        var time = timeval(tv_sec: Int(timeout), tv_usec: Int((timeout - timeout.rounded(.down)) * 1e6))
        setsockopt(descriptor, SOL_SOCKET, SO_RCVTIMEO, &time, socklen_t(MemoryLayout<timeval>.size))
        setsockopt(descriptor, SOL_SOCKET, SO_SNDTIMEO, &time, socklen_t(MemoryLayout<timeval>.size))
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_port = in_port_t(UInt16(port).bigEndian)
        address.sin_addr.s_addr = inet_addr("127.0.0.1")
        let result = withUnsafePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) {
                connect(descriptor, $0, socklen_t(MemoryLayout<sockaddr_in>.size))
            }
        }
        guard result == 0 else {
            let code = errno
            // Closed by deinit, which runs even though this initializer throws (every property is set): closing the
            // descriptor here as well closed it twice, and the second close could hit whatever descriptor took its
            // number meanwhile (an event loop's epoll descriptor crashed the test process once).
            throw RawHTTPError.socket("connect errno \(code)")
        }
    }

    deinit {
        Glibc.close(descriptor)
    }

    /// Sends a request line, `Host`, the extra header lines and an empty line.
    func sendRequest(_ method: String, _ target: String, headers: [String] = []) throws {
        var text = "\(method) \(target) HTTP/1.1\r\nHost: 127.0.0.1\r\n"
        for line in headers { text += line + "\r\n" }
        text += "\r\n"
        try send(Data(text.utf8))
    }

    func send(_ data: Data) throws {
        try data.withUnsafeBytes { raw in
            var offset = 0
            while offset < raw.count {
                let sent = Glibc.send(descriptor, raw.baseAddress! + offset, raw.count - offset, Int32(MSG_NOSIGNAL))
                guard sent > 0 else { throw RawHTTPError.socket("send errno \(errno)") }
                offset += sent
            }
        }
    }

    /// Reads more bytes into `pending`; false on EOF; throws on timeout.
    private func fill() throws -> Bool {
        var chunk = [UInt8](repeating: 0, count: 65536)
        let count = recv(descriptor, &chunk, chunk.count, 0)
        if count > 0 {
            pending.append(contentsOf: chunk[0..<count])
            return true
        }
        if count == 0 {
            sawEOF = true
            return false
        }
        if errno == EAGAIN || errno == EWOULDBLOCK { throw RawHTTPError.timedOut }
        if errno == ECONNRESET {
            sawEOF = true
            return false
        }
        throw RawHTTPError.socket("recv errno \(errno)")
    }

    /// Reads one response head (status and headers).
    func readHead() throws -> RawHTTPResponse {
        let separator = Data("\r\n\r\n".utf8)
        while true {
            if let range = pending.range(of: separator) {
                let headText = String(decoding: pending[pending.startIndex..<range.lowerBound], as: UTF8.self)
                pending = Data(pending[range.upperBound...])
                var lines = headText.components(separatedBy: "\r\n")
                let statusLine = lines.removeFirst().split(separator: " ")
                guard statusLine.count >= 2, let status = Int(statusLine[1]) else { throw RawHTTPError.malformed }
                let headers = lines.compactMap { line -> (name: String, value: String)? in
                    guard let colon = line.firstIndex(of: ":") else { return nil }
                    return (
                        String(line[..<colon]),
                        String(line[line.index(after: colon)...]).trimmingCharacters(in: .whitespaces)
                    )
                }
                return RawHTTPResponse(status: status, headers: headers, body: Data())
            }
            guard try fill() else { throw RawHTTPError.closed }
        }
    }

    /// Reads one whole response framed by its `Content-Length` (no body for HEAD).
    func readResponse(isHead: Bool = false) throws -> RawHTTPResponse {
        var response = try readHead()
        let length = isHead ? 0 : Int(response.header("Content-Length") ?? "0") ?? 0
        response.body = try readBytes(length)
        return response
    }

    /// Reads exactly `count` bytes.
    func readBytes(_ count: Int) throws -> Data {
        while pending.count < count {
            guard try fill() else { throw RawHTTPError.closed }
        }
        let bytes = Data(pending.prefix(count))
        pending = Data(pending.dropFirst(count))
        return bytes
    }

    /// Reads until the server closes (returns the bytes and true) or a read times out (the bytes and false).
    func readToEnd() -> (data: Data, closed: Bool) {
        do {
            while try fill() {}
        } catch {
            let bytes = pending
            pending = Data()
            return (bytes, sawEOF)
        }
        let bytes = pending
        pending = Data()
        return (bytes, true)
    }
}
