import Foundation
import Synchronization

#if canImport(Glibc)
import Glibc
#endif

/// A loopback HTTP origin that answers every request by running `script`, which writes exactly the bytes it
/// wants (blocking sockets, a thread per connection): for responses no real server would send.
final class ScriptedOrigin: Sendable {
    /// Writes bytes to the connection; false once the client has gone.
    typealias Send = (ArraySlice<UInt8>) -> Bool

    let port: Int
    /// The request heads received, in order.
    let requestHeads = Mutex<[String]>([])
    /// Bytes the scripts wrote, over all connections.
    let sentByteCount = Mutex(0)
    private let listener: Int32
    private let script: @Sendable (Send) -> Void

    init(script: @escaping @Sendable (Send) -> Void) throws {
        self.script = script
        let fd = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        guard fd >= 0 else { throw POSIXError(.EMFILE) }
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_addr.s_addr = inet_addr("127.0.0.1")
        var length = socklen_t(MemoryLayout<sockaddr_in>.size)
        let bound = withUnsafeMutablePointer(to: &address) { pointer in
            pointer.withMemoryRebound(to: sockaddr.self, capacity: 1) { socketAddress in
                bind(fd, socketAddress, length) == 0 && listen(fd, 16) == 0
                    && getsockname(fd, socketAddress, &length) == 0
            }
        }
        guard bound else {
            close(fd)
            throw POSIXError(.EADDRINUSE)
        }
        listener = fd
        port = Int(UInt16(bigEndian: address.sin_port))
        Thread.detachNewThread { [self] in acceptLoop() }
    }

    /// The URL of `path` on this origin.
    func url(_ path: String) -> URL { URL(string: "http://127.0.0.1:\(port)/\(path)")! }

    /// Stops accepting; connections still open end when their scripts do.
    func stop() {
        shutdown(listener, Int32(SHUT_RDWR))
    }

    deinit { close(listener) }

    private func acceptLoop() {
        while true {
            let connection = accept(listener, nil, nil)
            guard connection >= 0 else { return }
            Thread.detachNewThread { [self] in serve(connection) }
        }
    }

    private func serve(_ connection: Int32) {
        defer { close(connection) }
        var head = [UInt8]()
        var byte: UInt8 = 0
        while !head.ends(with: Array("\r\n\r\n".utf8)) {
            guard recv(connection, &byte, 1, 0) == 1 else { return }
            head.append(byte)
        }
        requestHeads.withLock { $0.append(String(decoding: head, as: UTF8.self)) }
        script { bytes in
            var offset = bytes.startIndex
            while offset < bytes.endIndex {
                let written = bytes[offset...].withUnsafeBytes {
                    send(connection, $0.baseAddress, $0.count, Int32(MSG_NOSIGNAL))
                }
                guard written > 0 else { return false }
                sentByteCount.withLock { $0 += written }
                offset += written
            }
            return true
        }
    }
}

extension Array where Element: Equatable {
    fileprivate func ends(with suffix: [Element]) -> Bool {
        count >= suffix.count && Array(self[(count - suffix.count)...]) == suffix
    }
}
