import Dispatch

/// Every rendered or memory cache of all live pipelines, and their shared ``CacheBudget``, behind one
/// lock. Caches of these kinds keep their own state under this same lock, so pruning across pipelines
/// is one critical section and lookups stay synchronous (usable from the callback queue).
final class LockedCacheDomain: Sendable {
    /// The kind of cache this domain holds.
    let kind: ImageCacheType
    private let state: Locked<CacheBudget>

    init(kind: ImageCacheType, budget: CacheBudget) {
        self.kind = kind
        self.state = Locked(budget)
    }

    /// Runs `body` holding the lock that guards the budget and every cache of this kind. Must not
    /// be re-entered from `body`.
    func withLock<R>(_ body: (CacheBudget) throws -> R) rethrows -> R {
        try state.withLock { budget in try body(budget) }
    }
}

/// Every disk cache of all live pipelines, and their shared ``CacheBudget``, owned by one serial
/// queue (TIP's global disk queue): all disk metadata and file changes happen on it, so an eviction
/// can never delete a file that a concurrent write just put in place.
package final class DiskCacheDomain: @unchecked Sendable {
    // `budget` is touched only on `queue`.
    /// The serial queue that owns the budget and every disk cache's state.
    let queue: DispatchQueue
    /// The shared budget; only on `queue`.
    let budget: CacheBudget

    private static let queueKey = DispatchSpecificKey<ObjectIdentifier>()

    package init(budget: CacheBudget, label: String = "tip.disk-caches") {
        self.queue = DispatchQueue(label: label, qos: .utility)
        self.budget = budget
        queue.setSpecific(key: Self.queueKey, value: ObjectIdentifier(self))
    }

    /// Whether the caller runs on `queue`.
    var isOnQueue: Bool {
        DispatchQueue.getSpecific(key: Self.queueKey) == ObjectIdentifier(self)
    }

    /// Runs `body` on the queue and waits for it (directly when already on the queue).
    func sync<R>(_ body: () throws -> R) rethrows -> R {
        if isOnQueue { return try body() }
        return try queue.sync(execute: body)
    }

    /// Runs `body` on the queue later.
    func async(_ body: @escaping @Sendable () -> Void) {
        queue.async(execute: body)
    }
}
