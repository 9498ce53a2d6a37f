import Foundation

#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// One download answered from a `StubbingImageFetchDownloadProvider` stub, on the context's queue, in contract
/// order, with the body paced by the stub's bitrate.
final class StubbedImageFetchDownload: ImageFetchDownload {
    private struct State {
        var context: (any ImageFetchDownloadContext)?
        var finalRequest: URLRequest?
        var priority: Operation.QueuePriority = .normal
        var finished = false
        var started = false
        /// The pacing timer of a paced body (one repeating timer per download, not one per chunk).
        var pacing: (any DispatchSourceTimer)?
    }

    private let state: Locked<State>
    private let queue: DispatchQueue
    private let lookUp: @Sendable (URL) -> StubbingImageFetchDownloadProvider.Stub?
    /// Bytes per paced chunk.
    static let chunkSize = 16 * 1024

    init(
        context: any ImageFetchDownloadContext,
        lookUp: @escaping @Sendable (URL) -> StubbingImageFetchDownloadProvider.Stub?
    ) {
        state = Locked(State(context: context))
        queue = context.downloadQueue
        self.lookUp = lookUp
    }

    var context: (any ImageFetchDownloadContext)? { state.withLock { $0.context } }
    var finalURLRequest: URLRequest? { state.withLock { $0.finalRequest } }
    var priority: Operation.QueuePriority {
        get { state.withLock { $0.priority } }
        set { state.withLock { $0.priority = newValue } }
    }

    func start() {
        queue.async { self.begin() }
    }

    func cancel(description: String) {
        queue.async { self.finish(ImageFetchError.cancelled(description)) }
    }

    func discardContext() {
        state.withLock { $0.context = nil }
    }

    /// The live client, or nil once finished.
    private var client: (any ImageFetchDownloadClient)? {
        state.withLock { $0.finished ? nil : $0.context?.client }
    }

    private func finish(_ error: (any Error)?) {
        state.withLock { state in
            state.pacing?.cancel()
            state.pacing = nil
        }
        guard let client else { return }
        state.withLock { $0.finished = true }
        client.download(self, didCompleteWithError: error)
    }

    private func begin() {
        guard let client, let context, !state.withLock({ $0.started }) else { return }
        state.withLock { $0.started = true }
        client.downloadDidStart(self)
        client.download(self, hydrateRequest: context.originalRequest) { error in
            self.queue.async {
                if let error { return self.finish(error) }
                self.authorize()
            }
        }
    }

    private func authorize() {
        guard let client, let context else { return }
        let request = context.hydratedRequest ?? context.originalRequest
        client.download(self, authorizeRequest: request) { error in
            self.queue.async {
                if let error { return self.finish(error) }
                self.respond(to: request)
            }
        }
    }

    private func respond(to request: URLRequest) {
        guard let client, let url = request.url else { return }
        state.withLock { $0.finalRequest = request }
        let stub = lookUp(url)
        guard let stub, !stub.data.isEmpty else {
            let response = HTTPURLResponse(
                url: url, statusCode: 404, httpVersion: "HTTP/1.1", headerFields: ["Content-Length": "0"])
            if let response { client.download(self, didReceiveResponse: response) }
            return finish(nil)
        }
        var headers = ["Last-Modified": StubbingImageFetchDownloadProvider.stubLastModified]
        if let mimeType = stub.mimeType { headers["Content-Type"] = mimeType }
        if stub.supportsResuming { headers["Accept-Ranges"] = "bytes" }
        var status = 200
        var body = stub.data
        if stub.supportsResuming, let range = request.value(forHTTPHeaderField: "Range"),
            let first = Self.firstByte(ofRange: range),
            request.value(forHTTPHeaderField: "If-Range").map({
                $0 == StubbingImageFetchDownloadProvider.stubLastModified
            }) ?? true
        {
            if first >= stub.data.count {
                headers["Content-Range"] = "bytes */\(stub.data.count)"
                headers["Content-Length"] = "0"
                if let response = HTTPURLResponse(
                    url: url, statusCode: 416, httpVersion: "HTTP/1.1", headerFields: headers)
                {
                    client.download(self, didReceiveResponse: response)
                }
                return finish(nil)
            }
            status = 206
            headers["Content-Range"] = "bytes \(first)-\(stub.data.count - 1)/\(stub.data.count)"
            body = stub.data.subdata(in: first..<stub.data.count)
        }
        headers["Content-Length"] = String(body.count)
        guard
            let response = HTTPURLResponse(url: url, statusCode: status, httpVersion: "HTTP/1.1", headerFields: headers)
        else {
            return finish(ImageFetchError(.unknown, "The stub for \(url.absoluteString) could not make a response."))
        }
        client.download(self, didReceiveResponse: response)
        send(body, from: 0, bitsPerSecond: stub.bitsPerSecond)
    }

    /// Sends `body` from `offset` in chunks, paced when `bitsPerSecond` > 0 (a chunk per tick of one repeating
    /// timer, so pacing costs the process one timer, not a timer armed per chunk).
    private func send(_ body: Data, from offset: Int, bitsPerSecond: UInt64) {
        guard bitsPerSecond > 0 else { return sendUnpaced(body, from: offset) }
        guard sendChunk(body, from: offset) < body.count else { return finish(nil) }
        let interval = Double(Self.chunkSize * 8) / Double(bitsPerSecond)
        let timer = DispatchSource.makeTimerSource(queue: queue)
        let position = PacedPosition(min(body.count, offset + Self.chunkSize))
        timer.schedule(deadline: .now() + interval, repeating: interval, leeway: .microseconds(Int(interval * 1e5)))
        // The handler holds the timer until it is cancelled: at the end, or here once the download is gone or
        // nobody listens any more (finished, or its context discarded).
        timer.setEventHandler { [weak self] in
            guard let self, self.client != nil else { return timer.cancel() }
            position.next = self.sendChunk(body, from: position.next)
            if position.next >= body.count { self.finish(nil) }
        }
        state.withLock { $0.pacing = timer }
        timer.resume()
    }

    /// Sends the chunk at `offset` (when the download is live) and returns where the next one starts.
    private func sendChunk(_ body: Data, from offset: Int) -> Int {
        let end = min(body.count, offset + Self.chunkSize)
        client?.download(self, didReceiveData: body.subdata(in: offset..<end))
        return end
    }

    /// Sends the chunks one queue turn apart, as fast as the queue runs.
    private func sendUnpaced(_ body: Data, from offset: Int) {
        guard client != nil else { return }
        guard offset < body.count else { return finish(nil) }
        let end = sendChunk(body, from: offset)
        queue.async { self.sendUnpaced(body, from: end) }
    }

    /// `N` from `bytes=N-` (the only form the downloader sends).
    static func firstByte(ofRange value: String) -> Int? {
        let trimmed = value.trimmingCharacters(in: .whitespaces).lowercased()
        guard trimmed.hasPrefix("bytes="), trimmed.hasSuffix("-") else { return nil }
        return Int(trimmed.dropFirst(6).dropLast())
    }
}

/// Where a paced body goes on: read and written only by its timer's handler, on the download's queue.
private final class PacedPosition: @unchecked Sendable {
    var next: Int
    init(_ next: Int) { self.next = next }
}
