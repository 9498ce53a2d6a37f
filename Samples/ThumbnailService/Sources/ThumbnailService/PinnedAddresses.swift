import Synchronization

/// The checked address each host's downloads connect to (the download provider's `connectAddress`): set just
/// before a source is fetched, read when its download starts. Only addresses the host policy accepted for that
/// host are ever stored, so whichever of a host's entries a download reads, it connects where it may.
/// Thread-safe.
final class PinnedAddresses: Sendable {
    private let byHost = Mutex<[String: String]>([:])

    /// What the provider is given for a host with nothing pinned: not an IP address, so the download fails
    /// (`URLError.cannotConnectToHost`) instead of resolving the name itself.
    static let unpinned = "unpinned"

    /// Downloads from `host` connect to `address` from now on.
    func pin(_ address: IPAddress, forHost host: String) {
        byHost.withLock { $0[Self.key(host)] = address.description }
    }

    /// The address `host`'s downloads connect to; nil when none was pinned.
    func address(forHost host: String?) -> String? {
        guard let host else { return nil }
        return byHost.withLock { $0[Self.key(host)] }
    }

    /// Host names compare case-insensitively, without a trailing dot or IPv6 brackets.
    static func key(_ host: String) -> String {
        var name = host.lowercased()
        if name.hasPrefix("["), name.hasSuffix("]") { name = String(name.dropFirst().dropLast()) }
        while name.hasSuffix(".") { name.removeLast() }
        return name
    }
}
