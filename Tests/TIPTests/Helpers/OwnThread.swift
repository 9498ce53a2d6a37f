import Foundation

/// Runs blocking `body` on a thread of its own (with its own run loop) and returns what it returns: never on one of
/// the concurrency pool's threads, which every async test of the process shares (two on a 2-core machine).
func onOwnThread<T: Sendable>(_ body: @escaping @Sendable () throws -> T) async throws -> T {
    try await withCheckedThrowingContinuation { (continuation: CheckedContinuation<T, any Error>) in
        Thread { continuation.resume(with: Result { try body() }) }.start()
    }
}
