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

    /// Sends `body` from `offset` in chunks, paced when `bitsPerSecond` > 0.
    private func send(_ body: Data, from offset: Int, bitsPerSecond: UInt64) {
        guard let client else { return }
        guard offset < body.count else { return finish(nil) }
        let end = min(body.count, offset + Self.chunkSize)
        client.download(self, didReceiveData: body.subdata(in: offset..<end))
        if bitsPerSecond == 0 {
            queue.async { self.send(body, from: end, bitsPerSecond: bitsPerSecond) }
        } else {
            let seconds = Double((end - offset) * 8) / Double(bitsPerSecond)
            queue.asyncAfter(deadline: .now() + seconds) { self.send(body, from: end, bitsPerSecond: bitsPerSecond) }
        }
    }

    /// `N` from `bytes=N-` (the only form the downloader sends).
    static func firstByte(ofRange value: String) -> Int? {
        let trimmed = value.trimmingCharacters(in: .whitespaces).lowercased()
        guard trimmed.hasPrefix("bytes="), trimmed.hasSuffix("-") else { return nil }
        return Int(trimmed.dropFirst(6).dropLast())
    }
}
