/// Where an IP address points, as far as fetching from it is concerned.
///
/// The service fetches from `.global` addresses for every allowed host, from the private kinds
/// (`.privateNetwork`, `.sharedAddressSpace`, `.uniqueLocal`, `.loopback`, `.linkLocal`) only for hosts allowed
/// with `--allow-private-host`, and never from `.unusable` ones.
public enum AddressScope: String, Sendable, CaseIterable {
    /// A public unicast address.
    case global
    /// RFC 1918: 10/8, 172.16/12, 192.168/16.
    case privateNetwork
    /// RFC 6598 carrier-grade NAT: 100.64/10.
    case sharedAddressSpace
    /// IPv6 unique local: fc00::/7.
    case uniqueLocal
    /// 127/8 and ::1.
    case loopback
    /// 169.254/16 (cloud metadata services live here) and fe80::/10.
    case linkLocal
    /// Never a server: unspecified (0/8, ::), multicast (224/4, ff00::/8), reserved and broadcast (240/4),
    /// and the IETF protocol block 192.0.0/24.
    case unusable

    /// True for the scopes only `--allow-private-host` opens.
    public var isPrivate: Bool {
        switch self {
        case .privateNetwork, .sharedAddressSpace, .uniqueLocal, .loopback, .linkLocal: true
        case .global, .unusable: false
        }
    }

    /// The scope of `address`; an IPv6 address that carries an IPv4 address (mapped, compatible, NAT64) has
    /// the scope of the IPv4 address it carries.
    public static func of(_ address: IPAddress) -> AddressScope {
        if let inner = address.embeddedIPv4 { return of(inner) }
        let b = address.bytes
        if address.isIPv4 {
            switch (b[0], b[1]) {
            case (0, _): return .unusable
            case (10, _): return .privateNetwork
            case (100, 64...127): return .sharedAddressSpace
            case (127, _): return .loopback
            case (169, 254): return .linkLocal
            case (172, 16...31): return .privateNetwork
            case (192, 0) where b[2] == 0: return .unusable
            case (192, 168): return .privateNetwork
            case (224...255, _): return .unusable
            default: return .global
            }
        }
        if b.allSatisfy({ $0 == 0 }) { return .unusable }
        if b[0..<15].allSatisfy({ $0 == 0 }) && b[15] == 1 { return .loopback }
        if b[0] == 0xFF { return .unusable }
        if b[0] & 0xFE == 0xFC { return .uniqueLocal }
        if b[0] == 0xFE && b[1] & 0xC0 == 0x80 { return .linkLocal }
        // Deprecated site-local fec0::/10 behaves as a private network where it is still routed.
        if b[0] == 0xFE && b[1] & 0xC0 == 0xC0 { return .uniqueLocal }
        return .global
    }
}
