import AsyncHTTPClient
import Foundation
import NIOCore
import NIOHTTP1
import Synchronization
import TIP

#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// One AsyncHTTPClient request for a download: the response delegate that hands the head, the body parts and
/// the end to the download's queue, with flow control (reading stops while more than `maxBufferedByteCount`
/// bytes wait for TIP) and the idle timeout. Delegate calls arrive on the task's event loop; `stop()` may come
/// from any thread.
final class AsyncHTTPClientLoad: HTTPClientResponseDelegate, Sendable {
    typealias Response = Void

    private struct State {
        var download: AsyncHTTPClientImageFetchDownload?
        var task: HTTPClient.Task<Void>?
        var isStopped = false
        /// The URL of the request the latest response head answered (after redirects).
        var url: URL
        var redirectCount = 0
        /// Bytes handed to the download's queue and not yet delivered.
        var bufferedByteCount = 0
        /// Completed once the buffered bytes are delivered: AsyncHTTPClient reads no further body until then.
        var readPromise: EventLoopPromise<Void>?
        var lastActivity = NIODeadline.now()
        var idleCheck: Scheduled<Void>?
    }

    private let request: HTTPClient.Request
    private let options: AsyncHTTPClientDownloadOptions
    private let queue: DispatchQueue
    private let state: Mutex<State>

    init(
        request: HTTPClient.Request, url: URL, options: AsyncHTTPClientDownloadOptions,
        download: AsyncHTTPClientImageFetchDownload
    ) {
        self.request = request
        self.options = options
        queue = download.queue
        state = Mutex(State(download: download, url: url))
    }

    /// Sends the request on `client`.
    func start(on client: HTTPClient) {
        let task = client.execute(request: request, delegate: self)
        let stopped = state.withLock { state -> Bool in
            state.task = task
            return state.isStopped
        }
        if stopped { return task.cancel() }
        // Some failures reach only the task's future, never the delegate: a redirect cycle or one too many, a
        // task failed after it already ended. The download ends on the first of the two to say so (`end()` lets
        // one through).
        task.futureResult.whenFailure { error in self.didFail(error) }
        task.eventLoop.execute { self.scheduleIdleCheck(on: task.eventLoop) }
    }

    /// Stops the request; nothing more reaches the download.
    func stop() {
        let (task, promise, check) = state.withLock { state in
            state.isStopped = true
            state.download = nil
            defer { (state.readPromise, state.idleCheck) = (nil, nil) }
            return (state.task, state.readPromise, state.idleCheck)
        }
        check?.cancel()
        promise?.succeed(())
        task?.cancel()
    }

    // MARK: - Idle timeout

    /// Checks for silence at `deadline` (default: the idle timeout after the last activity).
    private func scheduleIdleCheck(on eventLoop: any EventLoop, at deadline: NIODeadline? = nil) {
        let deadline = deadline ?? state.withLock { $0.lastActivity } + options.idleTimeout
        let check = eventLoop.scheduleTask(deadline: deadline) { self.checkIdle(on: eventLoop) }
        let keep = state.withLock { state -> Bool in
            guard !state.isStopped, state.download != nil else { return false }
            state.idleCheck = check
            return true
        }
        if !keep { check.cancel() }
    }

    private func checkIdle(on eventLoop: any EventLoop) {
        enum Verdict {
            case ended
            case idle(HTTPClient.Task<Void>)
            case waitsForTIP, active
        }
        let verdict = state.withLock { state -> Verdict in
            guard !state.isStopped, state.download != nil, let task = state.task else { return .ended }
            // While reading waits for TIP, the silence is ours, not the server's.
            if state.readPromise != nil { return .waitsForTIP }
            return NIODeadline.now() - state.lastActivity >= options.idleTimeout ? .idle(task) : .active
        }
        switch verdict {
        case .ended: return
        case .idle(let task):
            let seconds = Double(options.idleTimeout.nanoseconds) / 1_000_000_000
            task.fail(reason: AsyncHTTPClientIdleTimeout(seconds: seconds))
        case .waitsForTIP: scheduleIdleCheck(on: eventLoop, at: .now() + options.idleTimeout)
        case .active: scheduleIdleCheck(on: eventLoop)
        }
    }

    // MARK: - HTTPClientResponseDelegate, on the task's event loop

    func didVisitURL(task: HTTPClient.Task<Void>, _ request: HTTPClient.Request, _ head: HTTPResponseHead) {
        state.withLock { state in
            if state.url != request.url { state.redirectCount += 1 }
            state.url = request.url
            state.lastActivity = .now()
        }
    }

    func didReceiveHead(task: HTTPClient.Task<Void>, _ head: HTTPResponseHead) -> EventLoopFuture<Void> {
        let (download, url, redirects) = state.withLock { state in
            state.lastActivity = .now()
            return (state.download, state.url, state.redirectCount)
        }
        guard let download else { return task.eventLoop.makeSucceededVoidFuture() }
        guard let response = HTTPURLResponse.make(head: head, url: url) else {
            // Failing the future fails the request with this error (`didReceiveError`).
            let message = "Foundation refused the response head (status \(head.status.code))"
            return task.eventLoop.makeFailedFuture(
                URLError(.badServerResponse, userInfo: [NSLocalizedDescriptionKey: message]))
        }
        queue.async { download.loadDidReceive(response, head: head, redirectCount: redirects) }
        return task.eventLoop.makeSucceededVoidFuture()
    }

    func didReceiveBodyPart(task: HTTPClient.Task<Void>, _ buffer: ByteBuffer) -> EventLoopFuture<Void> {
        let count = buffer.readableBytes
        let (download, wait) = state.withLock {
            state -> (AsyncHTTPClientImageFetchDownload?, EventLoopPromise<Void>?) in
            state.lastActivity = .now()
            guard let download = state.download else { return (nil, nil) }
            state.bufferedByteCount += count
            guard state.bufferedByteCount > options.maxBufferedByteCount else { return (download, nil) }
            let promise = task.eventLoop.makePromise(of: Void.self)
            state.readPromise = promise
            return (download, promise)
        }
        guard let download else { return task.eventLoop.makeSucceededVoidFuture() }
        if wait != nil { download.loadDidPauseReading() }
        let data = Data(buffer.readableBytesView)
        queue.async {
            download.loadDidReceive(data)
            self.didDeliver(count)
        }
        return wait?.futureResult ?? task.eventLoop.makeSucceededVoidFuture()
    }

    func didReceiveError(task: HTTPClient.Task<Void>, _ error: any Error) {
        didFail(error)
    }

    /// The request failed with `error` (from the delegate or the task's future): the download ends with it once.
    private func didFail(_ error: any Error) {
        guard let (download, url) = end() else { return }
        let failure = AsyncHTTPClientDownloadError.urlError(error, url: url)
        queue.async { download.loadDidComplete(error: failure) }
    }

    func didFinishRequest(task: HTTPClient.Task<Void>) throws {
        guard let (download, _) = end() else { return }
        queue.async { download.loadDidComplete(error: nil) }
    }

    // MARK: - Steps

    /// On the download queue: `count` bytes reached TIP; reading resumes once the rest fits the buffer.
    private func didDeliver(_ count: Int) {
        let promise = state.withLock { state -> EventLoopPromise<Void>? in
            state.bufferedByteCount -= count
            guard state.bufferedByteCount <= options.maxBufferedByteCount, let promise = state.readPromise else {
                return nil
            }
            state.readPromise = nil
            state.lastActivity = .now()  // the idle timeout counts from the resumption
            return promise
        }
        promise?.succeed(())
    }

    /// The request ended: the download to tell and the last URL, unless it was stopped.
    private func end() -> (AsyncHTTPClientImageFetchDownload, URL)? {
        let (ended, check, promise) = state.withLock { state in
            defer { (state.download, state.idleCheck, state.readPromise) = (nil, nil, nil) }
            return (state.download.map { ($0, state.url) }, state.idleCheck, state.readPromise)
        }
        check?.cancel()
        promise?.succeed(())  // nothing more will be read; a promise must not be left unfulfilled
        return ended
    }
}
