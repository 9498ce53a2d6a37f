import Foundation

@testable import TIP

/// Outcomes of a batch of benchmark downloads, shared by its members.
final class DownloadTally: Sendable {
    private struct State {
        var successes = 0
        var updates = 0
        var failures: [String] = []
    }

    private let state = Locked(State())
    private let group = DispatchGroup()

    /// Counts one download that has to complete before `wait` returns.
    func enter() { group.enter() }

    /// Update callbacks the successful members received, in all.
    var updateCount: Int { state.withLock { $0.updates } }

    func succeeded(updates: Int = 0) {
        state.withLock {
            $0.successes += 1
            $0.updates += updates
        }
        group.leave()
    }

    func failed(_ reason: String) {
        state.withLock { $0.failures.append(reason) }
        group.leave()
    }

    /// Waits for every entered download; throws when one failed, or when `timeout` passed.
    func wait(expecting count: Int, timeout: TimeInterval = 120) throws {
        guard group.wait(timeout: .now() + timeout) == .success else {
            throw BenchmarkFailure(
                """
                downloads did not complete within \(Int(timeout)) s (\(state.withLock { $0.successes }) of \
                \(count) succeeded)
                """
            )
        }
        let (successes, failures) = state.withLock { ($0.successes, $0.failures) }
        guard failures.isEmpty, successes == count else {
            throw BenchmarkFailure(
                """
                \(successes) of \(count) downloads succeeded; \(failures.count) failed, first: \
                \(failures.first ?? "none")
                """
            )
        }
    }
}

/// A broken benchmark run: the numbers it would print mean nothing.
struct BenchmarkFailure: Error, CustomStringConvertible {
    let description: String
    init(_ description: String) { self.description = description }
}

/// A lean downloader member: checks that the updates and the result carry exactly the expected bytes,
/// then reports to its tally. It keeps no body (a fetch operation would decode incrementally instead).
final class BenchmarkDownloadMember: ImageDownloadMember {
    let imageDownloadRequest: ImageDownloadRequest
    let imageDownloadQueue: DispatchQueue
    var imageDownloadPriority: ImageFetchPriority { .normal }

    private let expectedByteCount: Int
    private let tally: DownloadTally
    /// Bytes and update callbacks delivered (touched only on `imageDownloadQueue`, but the type must be Sendable).
    private let received = Locked((bytes: 0, updates: 0))

    init(_ request: ImageDownloadRequest, expectedByteCount: Int, queue: DispatchQueue, tally: DownloadTally) {
        imageDownloadRequest = request
        imageDownloadQueue = queue
        self.expectedByteCount = expectedByteCount
        self.tally = tally
        tally.enter()
    }

    func imageDownloadDidStart(_ download: ImageDownloadHandle, resumedByteCount: Int, expectedLength: Int?) {}

    func imageDownloadDidReset(_ download: ImageDownloadHandle) {
        received.withLock { $0.bytes = 0 }
    }

    func imageDownload(_ download: ImageDownloadHandle, didUpdate update: ImageDownloadUpdate) {
        received.withLock {
            $0.bytes += update.appendedByteCount
            $0.updates += 1
        }
    }

    func imageDownload(_ download: ImageDownloadHandle, didCompleteWith result: Result<ImageDownloadResult, any Error>)
    {
        switch result {
        case .success(let value):
            let updates = received.withLock { $0 }
            if value.data.count == expectedByteCount && updates.bytes == expectedByteCount {
                tally.succeeded(updates: updates.updates)
            } else {
                tally.failed(
                    """
                    \(download.url.path): \(value.data.count) bytes in the result, \(updates.bytes) in the \
                    updates, expected \(expectedByteCount)
                    """
                )
            }
        case .failure(let error):
            tally.failed("\(download.url.path): \(error)")
        }
    }
}
