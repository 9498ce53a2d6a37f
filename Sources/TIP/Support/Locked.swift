#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// A value guarded by a pthread mutex. Package-visible: `TIPImageServer` uses it too.
///
/// ```swift
/// let counter = Locked(0)
/// counter.withLock { $0 += 1 }
/// ```
///
/// We use this instead of `Synchronization.Mutex` because on Linux `Mutex` is built on raw futexes
/// that ThreadSanitizer cannot see: every access under it is reported as a race, which hides real
/// ones. pthread mutexes are intercepted by the sanitizer. Not recursive: `body` must not take the
/// same lock again.
package final class Locked<Value>: @unchecked Sendable {
    // `value` is only touched between pthread_mutex_lock and pthread_mutex_unlock. Both are visible to
    // inlined code only, so that `withLock` specializes in the modules that use it (image-table hits).
    @usableFromInline var value: Value
    @usableFromInline let mutex: UnsafeMutablePointer<pthread_mutex_t>

    /// Guards `value`.
    package init(_ value: consuming Value) {
        self.value = consume value  // moved in: a copy of a large state here showed up in every fetch
        mutex = UnsafeMutablePointer<pthread_mutex_t>.allocate(capacity: 1)
        mutex.initialize(to: pthread_mutex_t())
        pthread_mutex_init(mutex, nil)
    }

    deinit {
        pthread_mutex_destroy(mutex)
        mutex.deinitialize(count: 1)
        mutex.deallocate()
    }

    /// Runs `body` with exclusive access to the value.
    @inlinable
    package func withLock<R>(_ body: (inout Value) throws -> R) rethrows -> R {
        pthread_mutex_lock(mutex)
        defer { pthread_mutex_unlock(mutex) }
        return try body(&value)
    }

    /// Runs `body` with exclusive access when the lock is free right now; returns nil, without waiting,
    /// when another thread holds it.
    package func withLockIfAvailable<R>(_ body: (inout Value) throws -> R) rethrows -> R? {
        guard pthread_mutex_trylock(mutex) == 0 else { return nil }
        defer { pthread_mutex_unlock(mutex) }
        return try body(&value)
    }
}
