import Foundation
import NIOConcurrencyHelpers
import NIOCore

/// Everything the connections share: resources, throttles, faults, the request log and the open connections.
/// Thread-safe: all of it lives in one `NIOLockedValueBox` (a pthread mutex, which ThreadSanitizer sees); file reads
/// and hashing happen outside the lock.
final class ServerStore: Sendable {
    /// What a request learns when it begins.
    struct Ticket {
        /// The record's identifier for `updateRecord`.
        var recordID: Int
        /// The fault in effect for the path, if any.
        var fault: TIPImageServer.Fault?
        /// The path's throttle, else the server's, else `nil`.
        var throttle: TIPImageServer.Throttle?
        /// Validator changes applied to the path so far (this request's included).
        var generation: Int
        /// Header fields added to the path's responses (``TIPImageServer/setResponseHeaders(_:for:)``).
        var extraHeaders: [(name: String, value: String)] = []
    }

    private struct CachedHash: Sendable {
        var size: Int
        var modified: Date
        var hash: UInt64
    }

    private struct State: Sendable {
        var images: [String: ServedResource] = [:]
        var directory: String?
        var fileHashes: [String: CachedHash] = [:]
        var defaultThrottle: TIPImageServer.Throttle?
        var throttles: [String: TIPImageServer.Throttle] = [:]
        var faults: [String: TIPImageServer.Fault] = [:]
        var generations: [String: Int] = [:]
        var extraHeaders: [String: [(name: String, value: String)]] = [:]
        var log: [TIPImageServer.RequestRecord] = []
        /// Record identifier of `log[0]`; `resetLog` moves it past every earlier record.
        var logBase = 0
        var channels: [ObjectIdentifier: any Channel] = [:]
    }

    private let state: NIOLockedValueBox<State>
    /// `Last-Modified` for in-memory images set without a date.
    let defaultLastModified: Date

    init(configuration: TIPImageServer.Configuration) {
        var initial = State()
        initial.defaultThrottle = configuration.throttle
        state = NIOLockedValueBox(initial)
        defaultLastModified = configuration.defaultLastModified
    }

    // MARK: Resources

    func setImage(_ resource: ServedResource, at path: String) {
        state.withLockedValue { $0.images[path] = resource }
    }

    func removeImage(at path: String) {
        state.withLockedValue { _ = $0.images.removeValue(forKey: path) }
    }

    func removeAllImages() {
        state.withLockedValue { $0.images.removeAll() }
    }

    func setDirectory(_ realPath: String?) {
        state.withLockedValue {
            $0.directory = realPath
            $0.fileHashes.removeAll()
        }
    }

    /// The in-memory image at `path`, else the file it names in the served directory, else `nil`.
    func resource(for path: String) -> ServedResource? {
        let (image, directory) = state.withLockedValue { ($0.images[path], $0.directory) }
        if let image { return image }
        guard let directory, let file = FileResolver.resolve(rawPath: path, root: directory),
            let (body, modified) = FileResolver.read(file)
        else { return nil }
        let whole = Date(timeIntervalSince1970: TimeInterval(modified))
        let cached = state.withLockedValue { $0.fileHashes[file] }
        let hash: UInt64
        if let cached, cached.size == body.readableBytes, cached.modified == whole {
            hash = cached.hash
        } else {
            hash = ServedResource.hash(body)
            state.withLockedValue {
                $0.fileHashes[file] = CachedHash(size: body.readableBytes, modified: whole, hash: hash)
            }
        }
        return ServedResource(body: body, contentType: ContentType.forPath(file), lastModified: whole, bodyHash: hash)
    }

    // MARK: Throttles, faults, validators

    func setDefaultThrottle(_ throttle: TIPImageServer.Throttle?) {
        state.withLockedValue { $0.defaultThrottle = throttle }
    }

    func setThrottle(_ throttle: TIPImageServer.Throttle?, for path: String) {
        state.withLockedValue { $0.throttles[path] = throttle }
    }

    func setFault(_ fault: TIPImageServer.Fault?, for path: String) {
        state.withLockedValue { $0.faults[path] = fault }
    }

    func setResponseHeaders(_ headers: [(name: String, value: String)], for path: String) {
        state.withLockedValue { $0.extraHeaders[path] = headers.isEmpty ? nil : headers }
    }

    func changeValidator(at path: String) {
        state.withLockedValue { $0.generations[path, default: 0] += 1 }
    }

    // MARK: Requests and the log

    /// Logs a new request and returns what applies to it; consumes one-shot faults.
    func beginRequest(method: String, path: String, uri: String, headers: [(name: String, value: String)]) -> Ticket {
        state.withLockedValue { state in
            let fault = state.faults[path]
            switch fault {
            case .changeValidatorEveryRequest:
                state.generations[path, default: 0] += 1
            case .changeValidatorOnce:
                state.generations[path, default: 0] += 1
                state.faults[path] = nil
            default:
                break
            }
            let record = TIPImageServer.RequestRecord(
                method: method, path: path, uri: uri, headers: headers, status: 0, bytesSent: 0,
                isComplete: false)
            state.log.append(record)
            return Ticket(
                recordID: state.logBase + state.log.count - 1,
                fault: fault,
                throttle: state.throttles[path] ?? state.defaultThrottle,
                generation: state.generations[path] ?? 0,
                extraHeaders: state.extraHeaders[path] ?? [])
        }
    }

    /// Sets the status of a record (ignored when the log was reset since).
    func setStatus(_ status: Int, record id: Int) {
        state.withLockedValue { state in
            let index = id - state.logBase
            if index >= 0, index < state.log.count { state.log[index].status = status }
        }
    }

    /// Adds body bytes to a record (ignored when the log was reset since).
    func addBytes(_ count: Int, record id: Int) {
        state.withLockedValue { state in
            let index = id - state.logBase
            if index >= 0, index < state.log.count { state.log[index].bytesSent += count }
        }
    }

    /// Marks a record complete (ignored when the log was reset since).
    func markComplete(record id: Int) {
        state.withLockedValue { state in
            let index = id - state.logBase
            if index >= 0, index < state.log.count { state.log[index].isComplete = true }
        }
    }

    func records(for path: String?) -> [TIPImageServer.RequestRecord] {
        state.withLockedValue { state in
            guard let path else { return state.log }
            return state.log.filter { $0.path == path }
        }
    }

    func requestCount(for path: String) -> Int {
        state.withLockedValue { state in state.log.reduce(0) { $0 + ($1.path == path ? 1 : 0) } }
    }

    func resetLog() {
        state.withLockedValue { state in
            state.logBase += state.log.count
            state.log.removeAll()
        }
    }

    // MARK: Connections

    func register(_ channel: any Channel) {
        state.withLockedValue { $0.channels[ObjectIdentifier(channel)] = channel }
    }

    func unregister(_ channel: any Channel) {
        state.withLockedValue { _ = $0.channels.removeValue(forKey: ObjectIdentifier(channel)) }
    }

    var openConnectionCount: Int {
        state.withLockedValue { $0.channels.count }
    }

    /// Removes and returns every open connection.
    func takeChannels() -> [any Channel] {
        state.withLockedValue { state in
            let channels = Array(state.channels.values)
            state.channels.removeAll()
            return channels
        }
    }
}
