import Foundation

@testable import TIP

#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// A download provider the test steps by hand: each download starts, hydrates and authorizes on its own, then
/// waits for the test to send the response, the bytes and the end. No network, no timing: what a test asserts
/// happens because the test made it happen.
///
/// ```swift
/// let download = try await provider.next()
/// download.respond(status: 200, headers: ["Content-Length": "\(data.count)"])
/// download.send(data)
/// download.finish()
/// ```
final class SteppedDownloadProvider: ImageFetchDownloadProvider {
    private let made = Locked<[SteppedDownload]>([])
    private let taken = Locked(0)

    func imageFetchDownload(with context: any ImageFetchDownloadContext) -> any ImageFetchDownload {
        let download = SteppedDownload(context: context)
        made.withLock { $0.append(download) }
        return download
    }

    /// Downloads made so far.
    var count: Int { made.withLock { $0.count } }

    /// All downloads made so far, in order.
    var all: [SteppedDownload] { made.withLock { $0 } }

    /// The next download not yet taken, once it was made and has sent its request (hydrated and authorized).
    func next(timeout: Duration = .seconds(60)) async throws -> SteppedDownload {
        let index = taken.withLock { index in
            defer { index += 1 }
            return index
        }
        guard
            await eventually(
                timeout: timeout,
                { [made] in
                    made.withLock {
                        $0.count > index && $0[index].sentRequest != nil || ($0.count > index && $0[index].isOver)
                    }
                })
        else { throw SteppedDownloadError.noDownload(index) }
        return made.withLock { $0[index] }
    }
}

/// Why a stepped download could not be had.
enum SteppedDownloadError: Error {
    case noDownload(Int)
}

/// One download of ``SteppedDownloadProvider``. Every client call happens on the context's queue, in the
/// contract's order; `cancel(description:)` ends it with a `cancelled` error unless it already ended. It records
/// what a test asserts about it: the request that went out (``header(_:)``), every priority it was given
/// (``priorities``) and whether it was cancelled (``waitUntilCancelled(timeout:)``).
final class SteppedDownload: ImageFetchDownload {
    private struct State {
        var context: (any ImageFetchDownloadContext)?
        var priority = Operation.QueuePriority.normal
        var priorities: [Operation.QueuePriority] = []
        var sentRequest: URLRequest?
        var cancelDescription: String?
        var isOver = false
    }

    private let state: Locked<State>
    private let queue: DispatchQueue

    init(context: any ImageFetchDownloadContext) {
        state = Locked(State(context: context))
        queue = context.downloadQueue
    }

    var context: (any ImageFetchDownloadContext)? { state.withLock { $0.context } }
    var finalURLRequest: URLRequest? { sentRequest }
    var priority: Operation.QueuePriority {
        get { state.withLock { $0.priority } }
        set {
            state.withLock {
                $0.priority = newValue
                $0.priorities.append(newValue)
            }
        }
    }

    /// Every priority the downloader gave the download, in order (the first one before `start()`).
    var priorities: [Operation.QueuePriority] { state.withLock { $0.priorities } }

    /// The request as it would go out (hydrated, with `Authorization`), once prepared.
    var sentRequest: URLRequest? { state.withLock { $0.sentRequest } }
    /// Why the download was cancelled, if it was.
    var cancelDescription: String? { state.withLock { $0.cancelDescription } }
    /// Whether the download ended (completed, or cancelled).
    var isOver: Bool { state.withLock { $0.isOver } }
    /// Whether the client cancelled the download (before it ended otherwise).
    var isCancelled: Bool { cancelDescription != nil }

    /// The value of the header `name` in the request that went out; nil before it went out or when absent.
    func header(_ name: String) -> String? {
        sentRequest?.value(forHTTPHeaderField: name)
    }

    func start() {
        queue.async { [self] in
            guard let context else { return }
            let client = context.client
            client.downloadDidStart(self)
            client.download(self, hydrateRequest: context.originalRequest) { error in
                self.queue.async {
                    if let error { return self.end(error) }
                    let hydrated = context.hydratedRequest ?? context.originalRequest
                    client.download(self, authorizeRequest: hydrated) { error in
                        self.queue.async {
                            if let error { return self.end(error) }
                            var request = hydrated
                            if let authorization = context.authorization {
                                request.setValue(authorization, forHTTPHeaderField: "Authorization")
                            }
                            self.state.withLock { $0.sentRequest = request }
                        }
                    }
                }
            }
        }
    }

    /// Sends the response (on the download queue).
    func respond(status: Int, headers: [String: String] = [:]) {
        queue.async { [self] in
            guard let client = liveClient, let url = context?.originalRequest.url,
                let response = HTTPURLResponse(
                    url: url, statusCode: status, httpVersion: "HTTP/1.1", headerFields: headers)
            else { return }
            client.download(self, didReceiveResponse: response)
        }
    }

    /// Sends a chunk of the body (on the download queue).
    func send(_ data: Data) {
        queue.async { [self] in liveClient?.download(self, didReceiveData: data) }
    }

    /// Sends `data` in chunks of `size` bytes.
    func send(_ data: Data, chunkSize size: Int) {
        var offset = data.startIndex
        while offset < data.endIndex {
            let end = min(data.endIndex, offset + size)
            send(data.subdata(in: offset..<end))
            offset = end
        }
    }

    /// Answers with the whole of `data` (a resumable 200 with `entityTag`), in chunks of `chunkSize` bytes
    /// (nil: one chunk), and ends the download.
    func serve(_ data: Data, entityTag: String = "\"v\"", type: String = "image/jpeg", chunkSize: Int? = nil) {
        respond(
            status: 200,
            headers: SteppedPipelineEnvironment.resumableHeaders(length: data.count, entityTag: entityTag, type: type))
        send(data, chunkSize: chunkSize ?? max(1, data.count))
        finish()
    }

    /// Ends the download: nil for success.
    func finish(_ error: (any Error)? = nil) {
        queue.async { [self] in end(error) }
    }

    func cancel(description: String) {
        let first = state.withLock { state -> Bool in
            guard state.cancelDescription == nil, !state.isOver else { return false }
            state.cancelDescription = description
            return true
        }
        if first { queue.async { self.end(ImageFetchError.cancelled(description)) } }
    }

    func discardContext() {
        state.withLock { $0.context = nil }
    }

    /// Waits until every call sent so far (response, chunks) ran on the download queue; false on timeout.
    func flush(timeout: Duration = .seconds(60)) async -> Bool {
        let ran = Locked(false)
        queue.async { ran.withLock { $0 = true } }
        return await eventually(timeout: timeout) { ran.withLock { $0 } }
    }

    /// Waits until the download ended (completed or cancelled); false on timeout.
    func waitUntilOver(timeout: Duration = .seconds(60)) async -> Bool {
        await eventually(timeout: timeout) { self.isOver }
    }

    /// Waits until the client cancelled the download and it ended; false on timeout, or when it ended otherwise.
    func waitUntilCancelled(timeout: Duration = .seconds(60)) async -> Bool {
        await eventually(timeout: timeout) { self.isOver } && isCancelled
    }

    private var liveClient: (any ImageFetchDownloadClient)? {
        state.withLock { $0.isOver ? nil : $0.context?.client }
    }

    private func end(_ error: (any Error)?) {
        let client = state.withLock { state -> (any ImageFetchDownloadClient)? in
            guard !state.isOver else { return nil }
            state.isOver = true
            return state.context?.client
        }
        client?.download(self, didCompleteWithError: error)
    }
}
