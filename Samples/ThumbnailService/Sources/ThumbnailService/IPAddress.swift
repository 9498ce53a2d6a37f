import Foundation

#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// An IPv4 or IPv6 address as its network-order bytes (4 or 16).
///
/// ```swift
/// IPAddress("10.0.0.1")?.scope          // .privateNetwork
/// IPAddress("::ffff:127.0.0.1")?.scope  // .loopback (the IPv4 address inside is what counts)
/// ```
public struct IPAddress: Hashable, Sendable, CustomStringConvertible {
    /// The address bytes in network order: 4 for IPv4, 16 for IPv6.
    public let bytes: [UInt8]

    /// An address of 4 (IPv4) or 16 (IPv6) bytes; nil for any other count.
    public init?(bytes: [UInt8]) {
        guard bytes.count == 4 || bytes.count == 16 else { return nil }
        self.bytes = bytes
    }

    /// Parses the textual forms `inet_pton` reads ("192.0.2.1", "2001:db8::1", "::ffff:10.0.0.1"); IPv6
    /// literals may come in URL brackets ("[::1]"). Nil for anything else (host names, "010.1.1.1" style forms).
    public init?(_ text: String) {
        var text = Substring(text)
        if text.hasPrefix("["), text.hasSuffix("]") { text = text.dropFirst().dropLast() }
        var v4 = in_addr()
        if inet_pton(AF_INET, String(text), &v4) == 1 {
            self.bytes = withUnsafeBytes(of: &v4) { Array($0) }
            return
        }
        var v6 = in6_addr()
        if inet_pton(AF_INET6, String(text), &v6) == 1 {
            self.bytes = withUnsafeBytes(of: &v6) { Array($0) }
            return
        }
        return nil
    }

    /// True for a 4-byte address.
    public var isIPv4: Bool { bytes.count == 4 }

    /// The IPv4 address an IPv6 address carries in its last 4 bytes when it is IPv4-mapped (`::ffff:a.b.c.d`),
    /// IPv4-compatible (`::a.b.c.d`, deprecated) or NAT64 (`64:ff9b::a.b.c.d`); nil otherwise and for IPv4.
    public var embeddedIPv4: IPAddress? {
        guard bytes.count == 16 else { return nil }
        let head = bytes[0..<12]
        let mapped = head.elementsEqual([0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0xFF, 0xFF])
        let compatible =
            head.allSatisfy { $0 == 0 } && bytes[12..<16].contains { $0 != 0 }
            && !(bytes[12..<15].allSatisfy { $0 == 0 } && bytes[15] == 1)  // ::1 is loopback, not 0.0.0.1
        let nat64 = head.elementsEqual([0, 0x64, 0xFF, 0x9B, 0, 0, 0, 0, 0, 0, 0, 0])
        guard mapped || compatible || nat64 else { return nil }
        return IPAddress(bytes: Array(bytes[12..<16]))
    }

    /// The address in its usual text form ("192.0.2.1", "2001:db8::1").
    public var description: String {
        var buffer = [CChar](repeating: 0, count: Int(INET6_ADDRSTRLEN) + 1)
        let family = isIPv4 ? AF_INET : AF_INET6
        let written = bytes.withUnsafeBytes { raw in
            inet_ntop(family, raw.baseAddress, &buffer, socklen_t(buffer.count))
        }
        guard written != nil else { return bytes.map(String.init).joined(separator: ".") }
        return String(decoding: buffer.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }, as: UTF8.self)
    }

    /// The address as a URL host: IPv6 in brackets.
    public var urlHost: String { isIPv4 ? description : "[\(description)]" }
}
