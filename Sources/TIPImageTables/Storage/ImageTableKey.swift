import TIP

/// The 128-bit digest of an identifier (the first 16 bytes of its SHA-1) that an entry's record keeps, so
/// that records have a fixed size whatever the identifiers' lengths. Entries are matched by digest only for
/// their first lookup after a launch; from then on by the identifier itself.
struct ImageTableKey: Hashable, Sendable {
    let low: UInt64
    let high: UInt64

    init(low: UInt64, high: UInt64) {
        self.low = low
        self.high = high
    }

    /// The digest of the UTF-8 bytes of `identifier`'s NFC form: canonically equivalent identifiers, which the
    /// in-memory index (keyed by `String`) takes for one, have one digest.
    init(_ identifier: String) {
        let digest = SHA1.digest(of: CanonicalIdentifier.normalized(identifier).utf8)
        var low: UInt64 = 0, high: UInt64 = 0
        for index in 0..<8 {
            low |= UInt64(digest[index]) << (8 * index)
            high |= UInt64(digest[8 + index]) << (8 * index)
        }
        self.init(low: low, high: high)
    }
}
