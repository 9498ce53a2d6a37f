import CCurl
import Foundation

#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// How a `CurlImageFetchDownloadProvider` configures its transfers.
struct CurlTransferOptions: Sendable {
    var connectTimeout: TimeInterval
    /// Seconds without a byte before the transfer fails with `URLError.timedOut`.
    var idleTimeout: TimeInterval
    var maxResponseHeaderByteCount: Int
    var maxResponseHeaderCount: Int
    var maxRedirects: Int
    /// The receive buffer; also how far a transfer may run ahead of its client before it pauses.
    var bufferSize: Int
    /// A PEM file of the certificate authorities to verify servers against; nil: the system's store.
    var certificateAuthoritiesFile: String?
    /// The IP address the connection to the URL's host and port goes to; nil: the host is resolved.
    var connectAddress: String?
}

/// One libcurl easy handle loading one request for a `CurlImageFetchDownload`.
///
/// libcurl calls the header and write callbacks on the loop's thread. The transfer queues what they bring (the
/// response head, body bytes, the completion) and drains the queue on the download queue, in order, into its
/// download. Flow control: once a buffer's worth of bytes waits undelivered, the write callback pauses the
/// transfer, and the drain unpauses it when the client caught up; so a transfer never runs more than about two
/// buffers ahead of its client, and a client that cancels (a body over its size limit, a `Content-Length`
/// refused at the headers) stops the transfer before libcurl hands over anything more: once cancelled, the next
/// callback aborts the transfer and nothing queued is delivered.
final class CurlTransfer: @unchecked Sendable {
    enum Event {
        case response(CurlResponseHead, URL)
        case data(Data)
        case completion((any Error)?, CurlImageFetchDownloadMetrics)
    }

    // Guarded by its lock: what the loop's thread and the download queue share.
    private struct Shared {
        /// Held until the completion is delivered or the transfer is cancelled (as URLSession holds its
        /// delegate's tasks), so a download runs even when its client keeps no reference to it.
        var download: CurlImageFetchDownload?
        var events: [Event] = []
        var isDrainScheduled = false
        var undeliveredByteCount = 0
        var isPaused = false
        var isCancelled = false
    }

    /// The easy handle (`CURL *`); valid until `cleanUp()`.
    let handle: UnsafeMutableRawPointer
    private let shared = Locked(Shared())
    private let queue: DispatchQueue
    private let loop: CurlMultiLoop
    private let url: URL
    private let pauseThreshold: Int

    // Used only on the loop's thread (after `init`), except `cleanUp()` from `deinit` when never added.
    private var headers: CurlResponseHeaderReader
    private var hasQueuedResponse = false
    private var abortMessage: String?
    private let errorBuffer: UnsafeMutablePointer<CChar>
    private var headerList: UnsafeMutablePointer<curl_slist>?
    private var connectToList: UnsafeMutablePointer<curl_slist>?
    private var isCleanedUp = false

    /// A transfer for `request` (http or https) reporting to `download` on `queue`; nil when libcurl cannot
    /// make a handle. Made on the download queue; it does nothing until `loop` adds it.
    init?(
        request: URLRequest, url: URL, options: CurlTransferOptions, weight: Int, loop: CurlMultiLoop,
        queue: DispatchQueue, download: CurlImageFetchDownload
    ) {
        guard let handle = curl_easy_init() else { return nil }
        self.handle = handle
        self.url = url
        self.queue = queue
        self.loop = loop
        shared.withLock { $0.download = download }
        pauseThreshold = options.bufferSize
        headers = CurlResponseHeaderReader(
            maxByteCount: options.maxResponseHeaderByteCount,
            maxLineCount: options.maxResponseHeaderCount)
        errorBuffer = .allocate(capacity: Int(CURL_ERROR_SIZE))
        errorBuffer.initialize(repeating: 0, count: Int(CURL_ERROR_SIZE))
        configure(request: request, options: options, weight: weight)
    }

    deinit { cleanUp() }

    private func configure(request: URLRequest, options: CurlTransferOptions, weight: Int) {
        func set(_ option: CURLoption, _ value: Int) { _ = tip_curl_easy_setopt_long(handle, option, value) }
        _ = tip_curl_easy_setopt_string(handle, CURLOPT_URL, url.absoluteString)
        _ = tip_curl_easy_allow_only_http(handle)
        set(CURLOPT_NOSIGNAL, 1)
        set(CURLOPT_FOLLOWLOCATION, 1)
        set(CURLOPT_MAXREDIRS, options.maxRedirects)
        // No content decoding: the body is handed over exactly as it came (see ImageFetchDownloadRequestPolicy).
        set(CURLOPT_HTTP_CONTENT_DECODING, 0)
        set(CURLOPT_CONNECTTIMEOUT_MS, Int(max(0.001, options.connectTimeout) * 1000))
        // Idle timeout: less than one byte per second for that many whole seconds, while waiting for the
        // response as well as during the body.
        set(CURLOPT_LOW_SPEED_LIMIT, 1)
        set(CURLOPT_LOW_SPEED_TIME, max(1, Int(options.idleTimeout.rounded(.up))))
        set(CURLOPT_BUFFERSIZE, options.bufferSize)
        // An https transfer to a host with an HTTP/2 connection (or one being set up) waits to share it. Not a
        // plain http one: libcurl speaks HTTP/1.1 there, so it would wait for a connection it can never share
        // (one slow download to a host held up every other download to it until its response came).
        if url.scheme?.lowercased() == "https" { set(CURLOPT_PIPEWAIT, 1) }
        set(CURLOPT_SUPPRESS_CONNECT_HEADERS, 1)
        set(CURLOPT_TCP_KEEPALIVE, 1)
        set(CURLOPT_STREAM_WEIGHT, weight)
        _ = tip_curl_easy_setopt_pointer(handle, CURLOPT_ERRORBUFFER, errorBuffer)
        if let file = options.certificateAuthoritiesFile {
            _ = tip_curl_easy_setopt_string(handle, CURLOPT_CAINFO, file)
        }
        if let address = options.connectAddress, let entry = Self.connectToEntry(url: url, address: address) {
            connectToList = curl_slist_append(connectToList, entry)
            _ = tip_curl_easy_setopt_pointer(handle, CURLOPT_CONNECT_TO, connectToList)
        }

        let fields = request.allHTTPHeaderFields ?? [:]
        var lines = fields.sorted { $0.key < $1.key }.map { name, value in
            // libcurl's syntax for a header with an empty value is "Name;".
            value.isEmpty ? "\(name);" : "\(name): \(value)"
        }
        if !fields.keys.contains(where: { HTTPFieldText.equalsIgnoringASCIICase($0, "User-Agent") }) {
            lines.append("User-Agent: \(CurlImageFetchDownloadProvider.defaultUserAgent)")
        }
        for line in lines { headerList = curl_slist_append(headerList, line) }
        _ = tip_curl_easy_setopt_pointer(handle, CURLOPT_HTTPHEADER, headerList)

        let context = Unmanaged.passUnretained(self).toOpaque()
        _ = tip_curl_easy_setopt_write_function(handle, CURLOPT_HEADERFUNCTION) { buffer, size, count, context in
            guard let context else { return 0 }
            let transfer = Unmanaged<CurlTransfer>.fromOpaque(context).takeUnretainedValue()
            return transfer.receiveHeader(UnsafeRawBufferPointer(start: buffer, count: size * count))
        }
        _ = tip_curl_easy_setopt_pointer(handle, CURLOPT_HEADERDATA, context)
        _ = tip_curl_easy_setopt_write_function(handle, CURLOPT_WRITEFUNCTION) { buffer, size, count, context in
            guard let context else { return 0 }
            let transfer = Unmanaged<CurlTransfer>.fromOpaque(context).takeUnretainedValue()
            return transfer.receiveBody(UnsafeRawBufferPointer(start: buffer, count: size * count))
        }
        _ = tip_curl_easy_setopt_pointer(handle, CURLOPT_WRITEDATA, context)
    }

    /// Whether `cancel()` was called.
    var isCancelled: Bool { shared.withLock { $0.isCancelled } }

    /// Stops the transfer from any thread: the next callback aborts it, nothing queued is delivered, and the
    /// loop removes and frees the handle. Its download reports the cancellation itself.
    func cancel() {
        let wasCancelled = shared.withLock { shared -> Bool in
            defer {
                shared.isCancelled = true
                shared.events = []
                shared.download = nil
            }
            return shared.isCancelled
        }
        if !wasCancelled { loop.remove(self) }
    }

    // MARK: - libcurl callbacks, on the loop's thread

    private func receiveHeader(_ line: UnsafeRawBufferPointer) -> Int {
        if isCancelled { return 0 }
        if let message = headers.read(line) {
            abortMessage = message
            return 0
        }
        return line.count
    }

    private func receiveBody(_ bytes: UnsafeRawBufferPointer) -> Int {
        var response: (CurlResponseHead, URL)?
        if !hasQueuedResponse {
            guard let head = headers.finalHead else {
                abortMessage = "The server sent a body before a complete response header."
                return 0
            }
            response = (head, effectiveURL)
        }
        enum Outcome {
            case accepted(scheduleDrain: Bool)
            case paused, aborted
        }
        let outcome = shared.withLock { shared -> Outcome in
            if shared.isCancelled { return .aborted }
            if shared.undeliveredByteCount >= pauseThreshold {
                shared.isPaused = true
                return .paused
            }
            if let response { shared.events.append(.response(response.0, response.1)) }
            if case .data(var data)? = shared.events.last {
                // Taken out first, so the append does not copy the bytes queued so far.
                shared.events.removeLast()
                if let base = bytes.baseAddress {
                    data.append(base.assumingMemoryBound(to: UInt8.self), count: bytes.count)
                }
                shared.events.append(.data(data))
            } else {
                shared.events.append(.data(Data(bytes)))
            }
            shared.undeliveredByteCount += bytes.count
            defer { shared.isDrainScheduled = true }
            return .accepted(scheduleDrain: !shared.isDrainScheduled)
        }
        switch outcome {
        case .aborted:
            return 0
        case .paused:
            return tip_curl_writefunc_pause
        case .accepted(let scheduleDrain):
            if response != nil {
                hasQueuedResponse = true
                headers.isReadingTrailer = true
            }
            if scheduleDrain { loop.drainAfterPerform(self) }
            return bytes.count
        }
    }

    /// The URL of the last request (after redirects).
    private var effectiveURL: URL {
        var pointer: UnsafeMutablePointer<CChar>?
        guard tip_curl_easy_getinfo_string(handle, CURLINFO_EFFECTIVE_URL, &pointer) == CURLE_OK, let pointer,
            let effective = URL(string: String(cString: pointer))
        else { return url }
        return effective
    }

    // MARK: - The loop's calls, on its thread

    /// libcurl finished the transfer with `result`: queues the response (when no body brought it), then the
    /// completion. A redirect refused (to a non-HTTP URL) or one past `maxRedirects` ends with its own error,
    /// its response unreported (the client would take it for a redirect without a usable `Location`).
    func didFinish(result: CURLcode) {
        var events: [Event] = []
        let head = headers.finalHead
        let isRedirect = head.map { (300..<400).contains($0.statusCode) } == true
        let refusedRedirect = isRedirect && result == CURLE_UNSUPPORTED_PROTOCOL
        let tooManyRedirects = isRedirect && result == CURLE_TOO_MANY_REDIRECTS
        if !hasQueuedResponse, let head, !refusedRedirect, !tooManyRedirects {
            events.append(.response(head, effectiveURL))
        }
        events.append(.completion(error(for: result, head: head, refusedRedirect: refusedRedirect), metrics()))
        let scheduleDrain = shared.withLock { shared -> Bool in
            guard !shared.isCancelled else { return false }
            shared.events += events
            defer { shared.isDrainScheduled = true }
            return !shared.isDrainScheduled
        }
        if scheduleDrain { loop.drainAfterPerform(self) }
    }

    private func error(for result: CURLcode, head: CurlResponseHead?, refusedRedirect: Bool) -> (any Error)? {
        if let abortMessage {
            return CurlTransferError.urlError(
                .badServerResponse, message: abortMessage, url: url,
                curlCode: Int(result.rawValue))
        }
        if refusedRedirect, let head {
            return ImageFetchError(
                .httpTransactionError,
                "The server redirected (HTTP \(head.statusCode)) to a non-HTTP URL; the redirect was refused. "
                    + "Fix the image URL or the server's Location header.",
                httpStatusCode: head.statusCode)
        }
        guard result == CURLE_OK else {
            let detail = String(cString: errorBuffer)
            return CurlTransferError.urlError(result, detail: detail, url: url)
        }
        guard head != nil else {
            return CurlTransferError.urlError(.badServerResponse, message: "The server sent no response.", url: url)
        }
        return nil
    }

    /// libcurl's timings and facts of the finished transfer.
    private func metrics() -> CurlImageFetchDownloadMetrics {
        func long(_ info: CURLINFO) -> Int? {
            var value = 0
            return tip_curl_easy_getinfo_long(handle, info, &value) == CURLE_OK ? value : nil
        }
        func seconds(_ info: CURLINFO) -> TimeInterval? {
            var value: curl_off_t = 0
            return tip_curl_easy_getinfo_off_t(handle, info, &value) == CURLE_OK ? TimeInterval(value) / 1e6 : nil
        }
        var metrics = CurlImageFetchDownloadMetrics()
        metrics.httpVersion = long(CURLINFO_HTTP_VERSION).flatMap(Self.versionName)
        metrics.redirectCount = long(CURLINFO_REDIRECT_COUNT) ?? 0
        metrics.reusedConnection = long(CURLINFO_NUM_CONNECTS).map { $0 == 0 }
        metrics.nameLookupTime = seconds(CURLINFO_NAMELOOKUP_TIME_T)
        metrics.connectTime = seconds(CURLINFO_CONNECT_TIME_T)
        metrics.tlsHandshakeTime = seconds(CURLINFO_APPCONNECT_TIME_T)
        metrics.firstByteTime = seconds(CURLINFO_STARTTRANSFER_TIME_T)
        metrics.totalTime = seconds(CURLINFO_TOTAL_TIME_T)
        return metrics
    }

    private static func versionName(_ version: Int) -> String? {
        switch version {
        case Int(CURL_HTTP_VERSION_1_0): return "HTTP/1.0"
        case Int(CURL_HTTP_VERSION_1_1): return "HTTP/1.1"
        case Int(CURL_HTTP_VERSION_2_0): return "HTTP/2"
        case Int(CURL_HTTP_VERSION_3): return "HTTP/3"
        default: return nil
        }
    }

    /// libcurl's `CONNECT_TO` entry sending connections for `url`'s host and port to `address` (same port):
    /// "HOST:PORT:ADDRESS:PORT", IPv6 addresses in brackets. Nil for a URL without a host, or an address that is
    /// not an IP address (a name would be resolved, which is what the option exists to avoid).
    static func connectToEntry(url: URL, address: String) -> String? {
        guard let host = url.host, !host.isEmpty else { return nil }
        let port = url.port ?? (url.scheme?.lowercased() == "https" ? 443 : 80)
        let bare = address.hasPrefix("[") && address.hasSuffix("]") ? String(address.dropFirst().dropLast()) : address
        var v4 = in_addr(), v6 = in6_addr()
        let target: String
        if inet_pton(AF_INET, bare, &v4) == 1 {
            target = bare
        } else if inet_pton(AF_INET6, bare, &v6) == 1 {
            target = "[\(bare)]"
        } else {
            return nil
        }
        let hostPart = host.contains(":") && !host.hasPrefix("[") ? "[\(host)]" : host
        return "\(hostPart):\(port):\(target):\(port)"
    }

    /// Frees the handle and what it used. Called once the handle is out of the multi handle (or never went in).
    func cleanUp() {
        guard !isCleanedUp else { return }
        isCleanedUp = true
        curl_easy_cleanup(handle)
        curl_slist_free_all(headerList)
        headerList = nil
        curl_slist_free_all(connectToList)
        connectToList = nil
        errorBuffer.deallocate()
    }

    // MARK: - Delivery, on the download queue

    /// Queues a drain on the download queue (the loop calls it once per transfer that queued events during
    /// a `curl_multi_perform`: a response, its bytes and its completion arriving together make one drain).
    func scheduleDrain() {
        queue.async { self.drain() }
    }

    private func drain() {
        let (events, download) = shared.withLock { shared -> ([Event], CurlImageFetchDownload?) in
            let taken = (shared.events, shared.download)
            // The completion is the last event: after it, the transfer lets its download go.
            if case .completion? = shared.events.last { shared.download = nil }
            shared.events = []
            shared.isDrainScheduled = false
            return taken
        }
        var delivered = 0
        for event in events {
            switch event {
            case .response(let head, let url):
                download?.transferDidReceive(head, url: url)
            case .data(let data):
                delivered += data.count
                download?.transferDidReceive(data)
            case .completion(let error, let metrics):
                download?.transferDidComplete(error: error, metrics: metrics)
            }
        }
        guard delivered > 0 else { return }
        let resume = shared.withLock { shared -> Bool in
            shared.undeliveredByteCount -= delivered
            guard shared.isPaused, !shared.isCancelled, shared.undeliveredByteCount < pauseThreshold else {
                return false
            }
            shared.isPaused = false
            return true
        }
        if resume { loop.resume(self) }
    }
}
