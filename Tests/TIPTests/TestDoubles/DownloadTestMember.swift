import Foundation

@testable import TIP

#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// A downloader member for tests: records every callback (in order) and lets a test await the completion.
final class DownloadTestMember: ImageDownloadMember {
    enum Event: Equatable, Sendable {
        case started(resumed: Int, expected: Int?)
        case reset
        case update(total: Int)
        case completed(success: Bool)
    }

    private struct State {
        var priority: ImageFetchPriority
        var events: [Event] = []
        var received = 0
        var result: Result<ImageDownloadResult, any Error>?
    }

    let imageDownloadRequest: ImageDownloadRequest
    let imageDownloadQueue: DispatchQueue
    private let state: Locked<State>
    /// Runs on the member's queue after each update (e.g. to cancel mid-download).
    let onUpdate: (@Sendable (DownloadTestMember, ImageDownloadUpdate) -> Void)?

    init(
        _ request: ImageDownloadRequest, priority: ImageFetchPriority = .normal,
        queue: DispatchQueue = DispatchQueue(label: "tip-tests.download-member"),
        onUpdate: (@Sendable (DownloadTestMember, ImageDownloadUpdate) -> Void)? = nil
    ) {
        imageDownloadRequest = request
        imageDownloadQueue = queue
        state = Locked(State(priority: priority))
        self.onUpdate = onUpdate
    }

    var imageDownloadPriority: ImageFetchPriority {
        get { state.withLock { $0.priority } }
        set { state.withLock { $0.priority = newValue } }
    }

    var events: [Event] { state.withLock { $0.events } }
    /// The bytes the updates announced (back to 0 on a reset).
    var receivedByteCount: Int { state.withLock { $0.received } }
    var result: Result<ImageDownloadResult, any Error>? { state.withLock { $0.result } }

    func imageDownloadDidStart(_ download: ImageDownloadHandle, resumedByteCount: Int, expectedLength: Int?) {
        state.withLock { $0.events.append(.started(resumed: resumedByteCount, expected: expectedLength)) }
    }

    func imageDownloadDidReset(_ download: ImageDownloadHandle) {
        state.withLock {
            $0.events.append(.reset)
            $0.received = 0
        }
    }

    func imageDownload(_ download: ImageDownloadHandle, didUpdate update: ImageDownloadUpdate) {
        state.withLock {
            $0.events.append(.update(total: update.totalByteCount))
            $0.received += update.appendedByteCount
        }
        onUpdate?(self, update)
    }

    func imageDownload(_ download: ImageDownloadHandle, didCompleteWith result: Result<ImageDownloadResult, any Error>)
    {
        state.withLock {
            if $0.result != nil { $0.events.append(.completed(success: false)) }  // a second completion: a bug
            $0.result = result
            if case .success = result {
                $0.events.append(.completed(success: true))
            } else {
                $0.events.append(.completed(success: false))
            }
        }
    }

    /// Waits for the completion (nil on timeout).
    func completion(timeout: Duration = .seconds(60)) async -> Result<ImageDownloadResult, any Error>? {
        _ = await eventually(timeout: timeout) { self.result != nil }
        return result
    }

    /// The completion's error, if it failed.
    func failure(timeout: Duration = .seconds(60)) async -> (any Error)? {
        if case .failure(let error) = await completion(timeout: timeout) { return error }
        return nil
    }

    /// The completion's value, if it succeeded.
    func success(timeout: Duration = .seconds(60)) async -> ImageDownloadResult? {
        if case .success(let value) = await completion(timeout: timeout) { return value }
        return nil
    }
}
