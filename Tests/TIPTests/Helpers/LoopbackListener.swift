import Foundation

#if canImport(Glibc)
import Glibc
#endif

/// A listening TCP socket on 127.0.0.1 at a port the system picks, for the tests' hand-made servers.
enum LoopbackListener {
    /// The socket and its port; throws when no socket can be bound.
    static func open() throws -> (descriptor: Int32, port: UInt16) {
        let fd = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        guard fd >= 0 else { throw POSIXError(.EIO) }
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_addr.s_addr = inet_addr("127.0.0.1")
        address.sin_port = 0
        var length = socklen_t(MemoryLayout<sockaddr_in>.size)
        let bound = withUnsafeMutablePointer(to: &address) { pointer in
            pointer.withMemoryRebound(to: sockaddr.self, capacity: 1) { raw -> Bool in
                bind(fd, raw, length) == 0 && listen(fd, 16) == 0 && getsockname(fd, raw, &length) == 0
            }
        }
        guard bound else { close(fd); throw POSIXError(.EADDRINUSE) }
        return (fd, UInt16(bigEndian: address.sin_port))
    }
}
