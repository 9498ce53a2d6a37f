import Dispatch

/// Marks a queue with its own identity, so that code can tell when it already runs there.
private let queueIdentityKey = DispatchSpecificKey<ObjectIdentifier>()

extension DispatchQueue {
    /// Lets ``isCurrent`` recognise this queue (marking it again changes nothing and costs only a lookup:
    /// setting a specific on a queue that is running queues a barrier block on it, a hop per call).
    func markIdentity() {
        guard getSpecific(key: queueIdentityKey) != ObjectIdentifier(self) else { return }
        setSpecific(key: queueIdentityKey, value: ObjectIdentifier(self))
    }

    /// Whether the calling code runs on this queue, once it was marked with ``markIdentity()``.
    var isCurrent: Bool {
        DispatchQueue.getSpecific(key: queueIdentityKey) == ObjectIdentifier(self)
    }
}
