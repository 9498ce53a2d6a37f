#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// A value guarded by a pthread mutex. Used instead of `Synchronization.Mutex`, whose futex-based Linux
/// implementation ThreadSanitizer cannot see (it reports false races on values only touched under the lock).
final class LockedValue<Value: Sendable>: @unchecked Sendable {
    // `value` is only read or written between `pthread_mutex_lock(mutex)` and `pthread_mutex_unlock(mutex)`.
    private let mutex: UnsafeMutablePointer<pthread_mutex_t>
    private var value: Value

    init(_ value: Value) {
        mutex = .allocate(capacity: 1)
        mutex.initialize(to: pthread_mutex_t())
        pthread_mutex_init(mutex, nil)
        self.value = value
    }

    deinit {
        pthread_mutex_destroy(mutex)
        mutex.deinitialize(count: 1)
        mutex.deallocate()
    }

    /// Runs `body` with exclusive access to the value. Do not call `withLock` on the same object inside `body`.
    func withLock<Result>(_ body: (inout Value) throws -> Result) rethrows -> Result {
        pthread_mutex_lock(mutex)
        defer { pthread_mutex_unlock(mutex) }
        return try body(&value)
    }
}
