import Dispatch

/// Marks a queue with its own identity, so that code can tell when it already runs there.
private let queueIdentityKey = DispatchSpecificKey<ObjectIdentifier>()

extension DispatchQueue {
    /// Lets ``isCurrent`` recognise this queue (marking it again changes nothing).
    func markIdentity() {
        setSpecific(key: queueIdentityKey, value: ObjectIdentifier(self))
    }

    /// Whether the calling code runs on this queue, once it was marked with ``markIdentity()``.
    var isCurrent: Bool {
        DispatchQueue.getSpecific(key: queueIdentityKey) == ObjectIdentifier(self)
    }
}
