import Foundation

#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// Resolves host names to addresses with the system's `getaddrinfo`, off the caller's thread.
public enum HostResolver {
    /// The addresses of `host` (an IP literal is returned as it is, without a lookup), IPv4 and IPv6, in the
    /// resolver's order and without repeats. Throws `ThumbnailError.originFailed` (502) when the name does not
    /// resolve. Runs the lookup on a global dispatch queue so it does not hold a Swift-concurrency thread.
    public static func resolve(_ host: String) async throws(ThumbnailError) -> [IPAddress] {
        if let literal = IPAddress(host) { return [literal] }
        let result: Result<[IPAddress], ThumbnailError> = await withCheckedContinuation { continuation in
            DispatchQueue.global().async { continuation.resume(returning: lookUp(host)) }
        }
        return try result.get()
    }

    /// `getaddrinfo` for TCP addresses of `host`.
    static func lookUp(_ host: String) -> Result<[IPAddress], ThumbnailError> {
        var hints = addrinfo()
        hints.ai_family = AF_UNSPEC
        #if canImport(Glibc)
        hints.ai_socktype = Int32(SOCK_STREAM.rawValue)
        #else
        hints.ai_socktype = SOCK_STREAM
        #endif
        var list: UnsafeMutablePointer<addrinfo>?
        let status = getaddrinfo(host, nil, &hints, &list)
        guard status == 0, let first = list else {
            let reason = String(cString: gai_strerror(status))
            return .failure(.originFailed("could not resolve \(host): \(reason)"))
        }
        defer { freeaddrinfo(first) }
        var addresses: [IPAddress] = []
        var node: UnsafeMutablePointer<addrinfo>? = first
        while let current = node {
            if let address = Self.address(of: current.pointee), !addresses.contains(address) {
                addresses.append(address)
            }
            node = current.pointee.ai_next
        }
        return .success(addresses)
    }

    private static func address(of info: addrinfo) -> IPAddress? {
        guard let socketAddress = info.ai_addr else { return nil }
        switch info.ai_family {
        case AF_INET:
            var v4 = socketAddress.withMemoryRebound(to: sockaddr_in.self, capacity: 1) { $0.pointee.sin_addr }
            return IPAddress(bytes: withUnsafeBytes(of: &v4) { Array($0) })
        case AF_INET6:
            var v6 = socketAddress.withMemoryRebound(to: sockaddr_in6.self, capacity: 1) { $0.pointee.sin6_addr }
            return IPAddress(bytes: withUnsafeBytes(of: &v6) { Array($0) })
        default:
            return nil
        }
    }
}
