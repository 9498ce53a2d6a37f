import Dispatch

/// Identifiers of images served from the rendered cache, gathered for ``delay`` and then handed to a cache in one
/// batch, off the caller's thread: the synchronous rendered-cache hit must not pay for waking a thread each time (a
/// block sent at once ran on the other core before the next hit, so every hit woke a worker: 13% of the hit's time).
final class DeferredTouches: Sendable {
    private let pending = Locked<[String]>([])

    /// How long touches gather before they are applied.
    static let delay = DispatchTimeInterval.milliseconds(5)

    /// Adds `identifier`; the first one pending schedules `apply`, which gets the batch (``lastMentionOrder(_:)``)
    /// on a utility queue.
    func add(_ identifier: String, apply: @escaping @Sendable ([String]) -> Void) {
        let first = pending.withLock { pending -> Bool in
            pending.append(identifier)
            return pending.count == 1
        }
        guard first else { return }
        DispatchQueue.global(qos: .utility).asyncAfter(deadline: .now() + Self.delay) { [self] in
            let batch = pending.withLock { pending -> [String] in
                defer { pending.removeAll(keepingCapacity: true) }
                return pending
            }
            apply(batch)
        }
    }

    /// Each of `identifiers` once, in the place of its last mention (the recency order touching them one by one
    /// would leave): a list that keeps showing the same images touches each once per batch.
    static func lastMentionOrder(_ identifiers: [String]) -> [String] {
        var seen = Set<String>(minimumCapacity: min(identifiers.count, 64))
        var order: [String] = []
        for identifier in identifiers.reversed() where seen.insert(identifier).inserted { order.append(identifier) }
        return order.reversed()
    }
}
