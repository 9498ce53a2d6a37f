import Foundation

@testable import TIP

#if canImport(Glibc)
import Glibc
#endif

/// A tiny HTTP/1.1 server on 127.0.0.1 for download tests: one thread per connection, `Connection: close`.
final class LoopbackHTTPServer: @unchecked Sendable {
    struct Request: Sendable {
        var method: String
        var path: String
        /// Header names lowercased.
        var headers: [String: String]
    }

    struct Response: Sendable {
        var status: Int
        var headers: [(String, String)] = []
        var body: [UInt8] = []
        /// Send only this many body bytes, then wait for the client to hang up.
        var stallAfter: Int?
        /// Instead of all the above, write the whole response yourself (a hostile origin): `script` gets a
        /// sender that returns false once the client is gone; the connection closes when it returns.
        var script: (@Sendable (_ send: (ArraySlice<UInt8>) -> Bool) -> Void)?
    }

    let port: UInt16
    /// Every request received, in order.
    let requests = Locked([Request]())
    // `listener` is set once in init; the handler is immutable.
    private let listener: Int32
    private let handler: @Sendable (Request) -> Response
    /// The connections being served, and whether `stop` was called. A connection leaves the set under the lock
    /// before its descriptor is closed, so `stop` never shuts down a number that another thread reopened.
    private let connections = Locked((open: Set<Int32>(), stopped: false))

    init(handler: @escaping @Sendable (Request) -> Response) throws {
        self.handler = handler
        (listener, port) = try LoopbackListener.open()
        Thread.detachNewThread { [self] in acceptLoop() }
    }

    var baseURL: URL { URL(string: "http://127.0.0.1:\(port)")! }

    /// Stops accepting and ends the connections being served: a script's sender returns false from then on, so
    /// no hostile script keeps writing to a client that never hangs up.
    ///
    /// The listener is only shut down here (its accept fails from then on); the accept thread closes it. Closed
    /// here, its number could be reused by another test's listener before that thread's next `accept`, which would
    /// then take (and answer, or reset) the other test's connections.
    /// Calling it again does nothing (the listener's number may belong to another socket by then).
    func stop() {
        connections.withLock { state in
            guard !state.stopped else { return }
            state.stopped = true
            shutdown(listener, Int32(SHUT_RDWR))
            for fd in state.open { shutdown(fd, Int32(SHUT_RDWR)) }
        }
    }

    private func acceptLoop() {
        while true {
            let client = accept(listener, nil, nil)
            if client < 0 {
                if errno == EINTR || errno == ECONNABORTED { continue }
                close(listener)  // stopped (or broken): no accept follows on this number
                return
            }
            Thread.detachNewThread { [self] in serve(client) }
        }
    }

    private func serve(_ fd: Int32) {
        let stopped = connections.withLock { state in
            if !state.stopped { state.open.insert(fd) }
            return state.stopped
        }
        if stopped {
            close(fd)
            return
        }
        defer {
            connections.withLock { state in
                state.open.remove(fd)
                close(fd)
            }
        }
        var timeout = timeval(tv_sec: 10, tv_usec: 0)
        setsockopt(fd, SOL_SOCKET, SO_RCVTIMEO, &timeout, socklen_t(MemoryLayout<timeval>.size))
        var head = [UInt8]()
        var buffer = [UInt8](repeating: 0, count: 4096)
        while !head.suffix(4).elementsEqual([13, 10, 13, 10]) {
            let n = recv(fd, &buffer, 1, 0)
            if n <= 0 { return }
            head.append(buffer[0])
        }
        let lines = String(decoding: head, as: UTF8.self).components(separatedBy: "\r\n")
        let parts = lines[0].split(separator: " ")
        guard parts.count >= 2 else { return }
        var headers = [String: String]()
        for line in lines.dropFirst() {
            guard let colon = line.firstIndex(of: ":") else { continue }
            let value = line[line.index(after: colon)...].trimmingCharacters(in: .whitespaces)
            headers[line[..<colon].lowercased()] = value
        }
        let request = Request(method: String(parts[0]), path: String(parts[1]), headers: headers)
        requests.withLock { $0.append(request) }
        let response = handler(request)
        if let script = response.script { return script { sendAll(fd, Array($0)) } }
        var text = "HTTP/1.1 \(response.status) Test\r\nContent-Length: \(response.body.count)\r\nConnection: close\r\n"
        for (name, value) in response.headers { text += "\(name): \(value)\r\n" }
        text += "\r\n"
        let sent = min(response.body.count, response.stallAfter ?? response.body.count)
        guard sendAll(fd, Array(text.utf8)), sendAll(fd, Array(response.body[..<sent])) else { return }
        if response.stallAfter != nil {
            // Wait for the client to hang up (or the receive timeout).
            while recv(fd, &buffer, buffer.count, 0) > 0 {}
        }
    }

    private func sendAll(_ fd: Int32, _ bytes: [UInt8]) -> Bool {
        var offset = 0
        while offset < bytes.count {
            let n = bytes[offset...].withUnsafeBytes { send(fd, $0.baseAddress, $0.count, Int32(MSG_NOSIGNAL)) }
            if n <= 0 { return false }
            offset += n
        }
        return true
    }
}
