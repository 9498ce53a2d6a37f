import Foundation

/// The form in which an identifier's bytes go to disk. Swift compares strings by canonical equivalence ("é" as
/// one scalar equals "e" plus a combining acute), so the memory caches, keyed by `String`, take both spellings
/// for one identifier; the disk takes their Unicode NFC form, so that it agrees.
package enum CanonicalIdentifier {
    /// `identifier` in NFC (ASCII, always NFC already, is returned as is without work).
    package static func normalized(_ identifier: String) -> String {
        identifier.utf8.allSatisfy { $0 < 0x80 } ? identifier : identifier.precomposedStringWithCanonicalMapping
    }
}
