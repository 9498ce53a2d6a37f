#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// The `flock` on a table's `<name>.tiptable.lock`, held until the last owner goes away: the table and every
/// mapping of its files (so every view of an entry). Another store, in this process or another, gets
/// ``ImageTableError/tableInUse(path:)`` until then.
final class ImageTableLock: Sendable {
    /// The locked descriptor, closed (and so unlocked) on deinit.
    let descriptor: Int32

    /// Takes over `descriptor`, already locked.
    init(descriptor: Int32) {
        self.descriptor = descriptor
    }

    deinit {
        close(descriptor)
    }
}
