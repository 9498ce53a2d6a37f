import CCurl
import Foundation

/// One libcurl multi handle and the thread that drives it: every libcurl call on a running transfer (adding,
/// performing, pausing, removing, cleaning up) happens on that thread, so no handle is ever used by two threads.
///
/// Other threads post commands (add, remove, resume, re-weight) and wake the thread with `curl_multi_wakeup`;
/// the thread applies them, calls `curl_multi_perform`, finishes the transfers libcurl reports done, and waits
/// in `curl_multi_poll` for socket activity, libcurl's next timeout or the next wake-up. The multi handle keeps
/// the connection cache (keep-alive connections per host, HTTP/2 connections shared by multiplexed
/// transfers) and the DNS cache; a share handle adds TLS session resumption across connections.
final class CurlMultiLoop: @unchecked Sendable {
    // `inbox` is guarded by its lock. `running`, `multi` and `share` are used only on the loop's thread
    // (and by `init` before the thread starts).
    private struct Inbox {
        var adds: [CurlTransfer] = []
        var removals: [CurlTransfer] = []
        var resumes: [CurlTransfer] = []
        var weights: [(CurlTransfer, Int)] = []
        /// Set by `shutDown()`: the thread finishes what it holds and ends.
        var isShuttingDown = false
        /// Set by the thread just before it cleans the multi handle up: no wake-up may touch it after that.
        var isClosed = false
        /// Whether the thread was woken for commands it has not taken yet: a command posted meanwhile rides
        /// on that wake-up instead of sending another (a burst of adds wakes the thread once).
        var isWakePending = false
    }

    private let inbox = Locked(Inbox())
    private let multi: UnsafeMutableRawPointer
    private let share: UnsafeMutableRawPointer?
    private var running: [UnsafeMutableRawPointer: CurlTransfer] = [:]
    /// Transfers that queued events since the last flush (loop thread only); see `drainAfterPerform(_:)`.
    private var pendingDrains: [CurlTransfer] = []

    /// Live loop threads in this process (for tests: a provider and its downloads gone, its thread ends).
    static let liveThreadCount = Locked(0)

    /// The most idle connections the multi handle keeps for reuse.
    static let connectionCacheSize = 32

    /// Makes the multi handle; nil when libcurl cannot (out of memory). Call `start()` next.
    init?() {
        CurlGlobal.initializeOnce()
        guard let multi = curl_multi_init() else { return nil }
        self.multi = multi
        // HTTP/2 transfers to one host share one connection (libcurl's default, made explicit).
        _ = tip_curl_multi_setopt_long(multi, CURLMOPT_PIPELINING, CURLPIPE_MULTIPLEX)
        _ = tip_curl_multi_setopt_long(multi, CURLMOPT_MAXCONNECTS, Self.connectionCacheSize)
        share = curl_share_init()
        if let share {
            _ = tip_curl_share_setopt_long(share, CURLSHOPT_SHARE, Int(CURL_LOCK_DATA_SSL_SESSION.rawValue))
        }
    }

    /// Starts the thread that drives the multi handle.
    func start() {
        Self.liveThreadCount.withLock { $0 += 1 }
        let thread = Thread { [self] in run() }
        thread.name = "TIP.curl"
        thread.start()
    }

    /// Ends the thread once it has applied the commands already posted; transfers still running are stopped
    /// silently (their downloads are gone: they held the session that owns this loop).
    func shutDown() {
        post { $0.isShuttingDown = true }
    }

    /// Adds `transfer` to the multi handle (unless it was cancelled before the thread got to it).
    func add(_ transfer: CurlTransfer) {
        post { $0.adds.append(transfer) }
    }

    /// Stops `transfer` and frees its handle; no callback of it runs after that.
    func remove(_ transfer: CurlTransfer) {
        post { $0.removals.append(transfer) }
    }

    /// Unpauses `transfer` (paused by its write callback while its client caught up).
    func resume(_ transfer: CurlTransfer) {
        post { $0.resumes.append(transfer) }
    }

    /// Sets `transfer`'s HTTP/2 stream weight (1...256).
    func setWeight(_ weight: Int, of transfer: CurlTransfer) {
        post { $0.weights.append((transfer, weight)) }
    }

    private func post(_ command: (inout Inbox) -> Void) {
        inbox.withLock { inbox in
            guard !inbox.isClosed else { return }
            command(&inbox)
            guard !inbox.isWakePending else { return }
            inbox.isWakePending = true
            // Under the lock, so the thread cannot clean the multi handle up in between.
            _ = curl_multi_wakeup(multi)
        }
    }

    // MARK: - On the loop's thread

    private func run() {
        var stillRunning: Int32 = 0
        while true {
            let commands = inbox.withLock { inbox -> Inbox in
                defer {
                    inbox.adds = []
                    inbox.removals = []
                    inbox.resumes = []
                    inbox.weights = []
                    inbox.isWakePending = false  // commands posted from now on wake the thread again
                }
                return inbox
            }
            for transfer in commands.adds { begin(transfer) }
            for transfer in commands.removals { end(transfer, result: nil) }
            for transfer in commands.resumes where isRunning(transfer) {
                _ = curl_easy_pause(transfer.handle, tip_curl_pause_continue)
            }
            for (transfer, weight) in commands.weights where isRunning(transfer) {
                _ = tip_curl_easy_setopt_long(transfer.handle, CURLOPT_STREAM_WEIGHT, weight)
            }
            if commands.isShuttingDown { break }
            _ = curl_multi_perform(multi, &stillRunning)
            var queued: Int32 = 0
            while let message = curl_multi_info_read(multi, &queued) {
                guard message.pointee.msg == CURLMSG_DONE, let handle = message.pointee.easy_handle,
                    let transfer = running[handle]
                else { continue }
                end(transfer, result: message.pointee.data.result)
            }
            flushDrains()
            // Idle: sleep until woken; otherwise libcurl shortens the wait to its own next timeout.
            _ = curl_multi_poll(multi, nil, 0, running.isEmpty ? 600_000 : 1_000, nil)
        }
        close()
    }

    /// Asks for `transfer`'s events to be drained once this round of callbacks is over (on the loop's thread,
    /// from its callbacks and completion): a small response's head, bytes and completion usually arrive in one
    /// `curl_multi_perform`, and go to the download queue as one block, one thread wake-up instead of two or
    /// three.
    func drainAfterPerform(_ transfer: CurlTransfer) {
        pendingDrains.append(transfer)
    }

    private func flushDrains() {
        guard !pendingDrains.isEmpty else { return }
        for transfer in pendingDrains { transfer.scheduleDrain() }
        pendingDrains.removeAll(keepingCapacity: true)
    }

    /// Whether `transfer` itself is in the multi handle (a freed handle's address may be reused by a new one).
    private func isRunning(_ transfer: CurlTransfer) -> Bool {
        running[transfer.handle] === transfer
    }

    private func begin(_ transfer: CurlTransfer) {
        guard !transfer.isCancelled else { return transfer.cleanUp() }
        if let share { _ = tip_curl_easy_setopt_pointer(transfer.handle, CURLOPT_SHARE, share) }
        running[transfer.handle] = transfer
        if curl_multi_add_handle(multi, transfer.handle) != CURLM_OK {
            running[transfer.handle] = nil
            transfer.didFinish(result: CURLE_OUT_OF_MEMORY)
            transfer.cleanUp()
        }
    }

    /// Takes `transfer` out of the multi handle: reports `result` when libcurl finished it (nil: it was removed
    /// on request and reports nothing), then frees its handle.
    private func end(_ transfer: CurlTransfer, result: CURLcode?) {
        guard isRunning(transfer) else { return }
        running[transfer.handle] = nil
        _ = curl_multi_remove_handle(multi, transfer.handle)
        if let result { transfer.didFinish(result: result) }
        transfer.cleanUp()
    }

    private func close() {
        flushDrains()
        inbox.withLock { $0.isClosed = true }
        for transfer in running.values {
            _ = curl_multi_remove_handle(multi, transfer.handle)
            transfer.cleanUp()
        }
        running = [:]
        // Commands posted before the close still hold transfers that were never added.
        let leftovers = inbox.withLock { inbox -> [CurlTransfer] in
            defer { inbox.adds = [] }
            return inbox.adds
        }
        for transfer in leftovers { transfer.cleanUp() }
        _ = curl_multi_cleanup(multi)
        if let share { _ = curl_share_cleanup(share) }
        Self.liveThreadCount.withLock { $0 -= 1 }
    }
}

/// libcurl's process-wide initialization, done once (FoundationNetworking's own call is reference-counted
/// alongside it).
enum CurlGlobal {
    private static let initialized: Bool = curl_global_init(tip_curl_global_all) == CURLE_OK

    /// Initializes libcurl on first use; thread-safe.
    static func initializeOnce() { _ = initialized }

    /// libcurl's version, "7.88.1".
    static let version: String = {
        guard let info = curl_version_info(tip_curl_version_now), let version = info.pointee.version else { return "?" }
        return String(cString: version)
    }()
}
