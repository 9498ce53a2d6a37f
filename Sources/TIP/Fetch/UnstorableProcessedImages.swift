/// The processed-image identifiers of a pipeline whose final image was found not worth storing on disk (at its
/// original size, from a `no-store` response, a placeholder or partial), so that fetches asking to store them do
/// not pass over rendered-cache hits for a file that will never be written. Bounded: forgotten wholesale past
/// ``limit`` identifiers (a forgotten one costs one more decode). Thread-safe.
final class UnstorableProcessedImages: Sendable {
    /// The most identifiers kept.
    static let limit = 4_096
    private let identifiers = Locked(Set<String>())

    /// Whether `identifier` was found not worth storing.
    func contains(_ identifier: String) -> Bool {
        identifiers.withLock { $0.contains(identifier) }
    }

    /// Notes that `identifier`'s image is not stored.
    func insert(_ identifier: String) {
        identifiers.withLock { set in
            if set.count >= Self.limit { set.removeAll() }
            set.insert(identifier)
        }
    }
}
