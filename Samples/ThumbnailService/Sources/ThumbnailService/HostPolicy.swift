import Foundation

/// Which origins the service fetches from: it is not an open proxy.
///
/// ```swift
/// let policy = HostPolicy(allowedHosts: ["images.example.com"], privateHosts: ["127.0.0.1"])
/// try policy.checkURL(URL(string: "https://images.example.com/a.jpg")!)   // the host is allowed
/// try policy.checkAddresses([IPAddress("10.0.0.7")!], host: "images.example.com")  // throws: private
/// ```
///
/// - **Hosts** match exactly, case-insensitively, without a trailing dot; the port is not part of a host (any
///   port of an allowed host may be asked for). No wildcards: list each host.
/// - **Addresses**: every address a host resolves to is checked, and a fetch connects only to a checked one.
///   Public (global) addresses are fetched for any allowed host; private, loopback and link-local addresses
///   only for hosts in `privateHosts` (`--allow-private-host`, which allows the host as well); unspecified,
///   multicast, broadcast and reserved addresses never. IPv4-mapped, IPv4-compatible and NAT64 IPv6 forms count as
///   the IPv4 address inside.
/// - **URLs**: http and https only, no user name or password, a host present.
public struct HostPolicy: Sendable {
    /// Hosts whose public addresses may be fetched from (lowercased).
    public let allowedHosts: Set<String>
    /// Hosts that may also resolve to private, loopback or link-local addresses (lowercased).
    public let privateHosts: Set<String>

    /// A policy allowing `allowedHosts` on public addresses and `privateHosts` on any usable address.
    public init(allowedHosts: [String], privateHosts: [String] = []) {
        self.allowedHosts = Set(allowedHosts.map(Self.normalizedHost))
        self.privateHosts = Set(privateHosts.map(Self.normalizedHost))
    }

    /// A host as it is compared: lowercased, brackets and one trailing dot removed.
    public static func normalizedHost(_ host: String) -> String {
        var host = host.lowercased()
        if host.hasPrefix("["), host.hasSuffix("]") { host = String(host.dropFirst().dropLast()) }
        if host.hasSuffix("."), host.count > 1 { host.removeLast() }
        return host
    }

    /// The URL's normalized host when its scheme, credentials and host pass; throws `ThumbnailError`
    /// (400 for a URL the service never fetches, 403 for a host not allowed).
    public func checkURL(_ url: URL) throws(ThumbnailError) -> String {
        guard let scheme = url.scheme?.lowercased(), scheme == "http" || scheme == "https" else {
            throw .badParameter("url", "only http and https URLs are fetched")
        }
        guard url.user == nil, url.password == nil else {
            throw .badParameter("url", "a URL with a user name or password is not fetched")
        }
        guard let rawHost = url.host, !rawHost.isEmpty else { throw .badParameter("url", "the URL has no host") }
        let host = Self.normalizedHost(rawHost)
        guard allowedHosts.contains(host) || privateHosts.contains(host) else {
            throw .hostNotAllowed("the host \(host) is not allowed (start the service with --allow-host \(host))")
        }
        return host
    }

    /// The addresses of `addresses` that `host` may be fetched from, in their order; throws 403 when none
    /// is, naming the first refused address and why.
    public func checkAddresses(_ addresses: [IPAddress], host: String) throws(ThumbnailError) -> [IPAddress] {
        let privateAllowed = privateHosts.contains(Self.normalizedHost(host))
        var refused: (IPAddress, AddressScope)?
        var usable: [IPAddress] = []
        for address in addresses {
            let scope = AddressScope.of(address)
            if scope == .global || (scope.isPrivate && privateAllowed) {
                usable.append(address)
            } else if refused == nil {
                refused = (address, scope)
            }
        }
        // One refused address refuses the host: a name that mixes public and private answers is a rebinding
        // attempt or a misconfiguration, and neither should be fetched from.
        if let (address, scope) = refused {
            let advice = scope == .unusable ? "" : " (allow it with --allow-private-host \(host) if you mean it)"
            throw .hostNotAllowed("\(host) resolves to \(address), a \(scope.rawValue) address\(advice)")
        }
        guard !usable.isEmpty else { throw .originFailed("\(host) has no address") }
        return usable
    }
}
