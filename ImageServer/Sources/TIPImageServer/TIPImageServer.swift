import Foundation
import NIOConcurrencyHelpers
import NIOCore
import NIOHTTP1
import NIOPosix

/// An embedded HTTP/1.1 image server on loopback (127.0.0.1) for the sample, the tests and the benchmarks.
///
/// It serves in-memory images (`setImage(_:at:contentType:lastModified:)`) and the files of one directory
/// (`serveDirectory(_:)`) with `Content-Length`, `Content-Type`, `Accept-Ranges: bytes`, `Last-Modified` and a
/// strong `ETag`; answers `GET` and `HEAD` (other methods get 405), conditional requests (`If-None-Match`, else
/// `If-Modified-Since`: 304), single `Range` requests (206 / 416) with `If-Range` by date or entity tag; adds
/// header fields of your choice per path (caching headers: `setResponseHeaders(_:for:)`); keeps connections alive;
/// paces bodies with `Throttle`s; injects `Fault`s per path; and logs every request for assertions.
///
/// ```swift
/// let server = TIPImageServer()
/// try await server.start()
/// server.setImage(jpegData, at: "/photo.jpg")
/// server.setThrottle(.init(bytesPerSecond: 256 * 1024), for: "/photo.jpg")
/// server.setFault(.dropConnection(afterBodyBytes: 10_000), for: "/photo.jpg")
/// let url = server.url(for: "/photo.jpg")   // http://127.0.0.1:<port>/photo.jpg
/// // … fetch, then assert with server.requests(for: "/photo.jpg") …
/// await server.stop()
/// ```
///
/// `start()` and `stop()` come in a blocking and an `async` form; in an async context Swift picks the `async`
/// one (write `await`), except inside `defer`, where the blocking one runs.
///
/// Thread contract: every method may be called from any thread at any time, also while requests are being
/// served; changes apply to requests that begin afterwards. Call `stop()` when done (deinit also stops the
/// server, without waiting).
public final class TIPImageServer: Sendable {
    private enum Lifecycle: Sendable {
        case idle
        case starting
        case running(group: MultiThreadedEventLoopGroup, channel: any Channel, port: Int)
        case stopped
    }

    /// The configuration the server was made with.
    public let configuration: Configuration
    private let store: ServerStore
    private let lifecycle = NIOLockedValueBox<Lifecycle>(.idle)

    /// Makes a server (not listening yet; call `start()`).
    public init(configuration: Configuration = Configuration()) {
        self.configuration = configuration
        store = ServerStore(configuration: configuration)
    }

    deinit {
        let running = lifecycle.withLockedValue { state -> (MultiThreadedEventLoopGroup, any Channel)? in
            if case .running(let group, let channel, _) = state { return (group, channel) }
            return nil
        }
        guard let (group, channel) = running else { return }
        channel.close(promise: nil)
        for connection in store.takeChannels() { connection.close(promise: nil) }
        group.shutdownGracefully { _ in }
    }

    // MARK: Lifecycle

    /// The port the server listens on, 0 when it is not listening.
    public var port: Int {
        lifecycle.withLockedValue { state in
            if case .running(_, _, let port) = state { return port }
            return 0
        }
    }

    /// `http://127.0.0.1:<port>/` (port 0 when the server is not listening).
    public var baseURL: URL {
        // A literal scheme, address and decimal port always make a valid URL.
        URL(string: "http://127.0.0.1:\(port)/") ?? URL(fileURLWithPath: "/")
    }

    /// The URL of `path` on this server (`path` with or without its leading `/`, already percent-encoded
    /// where needed).
    public func url(for path: String) -> URL {
        URL(string: "http://127.0.0.1:\(port)\(Self.normalized(path))") ?? baseURL
    }

    /// Whether the server is listening.
    public var isRunning: Bool { port != 0 }

    /// Starts listening on 127.0.0.1 and returns once the socket is bound (blocks the calling thread that long).
    /// Throws `ServerError.alreadyRunning` when already started, or the bind error. A stopped server may be
    /// started again.
    public func start() throws {
        let (group, bootstrap) = try prepareStart()
        do {
            let channel = try bootstrap.bind(host: "127.0.0.1", port: configuration.port).wait()
            didStart(group: group, channel: channel)
        } catch {
            lifecycle.withLockedValue { $0 = .idle }
            try? group.syncShutdownGracefully()
            throw error
        }
    }

    /// Starts listening on 127.0.0.1 and returns once the socket is bound. Throws like `start()`.
    public func start() async throws {
        let (group, bootstrap) = try prepareStart()
        do {
            let channel = try await bootstrap.bind(host: "127.0.0.1", port: configuration.port).get()
            didStart(group: group, channel: channel)
        } catch {
            lifecycle.withLockedValue { $0 = .idle }
            try? await group.shutdownGracefully()
            throw error
        }
    }

    /// Closes the listener and every open connection (streaming and stalled ones included) and waits for the
    /// event loops to finish. Harmless when not running. Do not call it from inside a server callback.
    public func stop() {
        guard let group = beginStop() else { return }
        if MultiThreadedEventLoopGroup.currentEventLoop != nil {
            group.shutdownGracefully { _ in }
        } else {
            try? group.syncShutdownGracefully()
        }
    }

    /// Closes the listener and every open connection and waits for the event loops to finish, without
    /// blocking a thread. Harmless when not running.
    public func stop() async {
        guard let group = beginStop() else { return }
        try? await group.shutdownGracefully()
    }

    /// The number of client connections currently open.
    public var openConnectionCount: Int { store.openConnectionCount }

    private func prepareStart() throws -> (MultiThreadedEventLoopGroup, ServerBootstrap) {
        try lifecycle.withLockedValue { state in
            switch state {
            case .starting, .running: throw ServerError.alreadyRunning
            case .idle, .stopped: state = .starting
            }
        }
        let group = MultiThreadedEventLoopGroup(numberOfThreads: max(1, configuration.threadCount))
        let store = self.store
        let bootstrap = ServerBootstrap(group: group)
            .serverChannelOption(.backlog, value: 256)
            .serverChannelOption(.socketOption(.so_reuseaddr), value: 1)
            .childChannelOption(.socketOption(.tcp_nodelay), value: 1)
            .childChannelInitializer { channel in
                store.register(channel)
                channel.closeFuture.whenComplete { _ in store.unregister(channel) }
                return channel.eventLoop.makeCompletedFuture {
                    try channel.pipeline.syncOperations.configureHTTPServerPipeline(withErrorHandling: true)
                    try channel.pipeline.syncOperations.addHandler(ImageRequestHandler(store: store))
                }
            }
        return (group, bootstrap)
    }

    private func didStart(group: MultiThreadedEventLoopGroup, channel: any Channel) {
        let port = channel.localAddress?.port ?? configuration.port
        lifecycle.withLockedValue { $0 = .running(group: group, channel: channel, port: port) }
    }

    /// Moves to `.stopped`, closes the sockets and returns the group to shut down (nil when not running).
    private func beginStop() -> MultiThreadedEventLoopGroup? {
        let running = lifecycle.withLockedValue { state -> (MultiThreadedEventLoopGroup, any Channel)? in
            guard case .running(let group, let channel, _) = state else { return nil }
            state = .stopped
            return (group, channel)
        }
        guard let (group, channel) = running else { return nil }
        channel.close(promise: nil)
        for connection in store.takeChannels() { connection.close(promise: nil) }
        return group
    }

    // MARK: Content

    /// Serves `data` at `path` (leading `/` optional; matched against the request path without its query,
    /// not percent-decoded). `contentType` defaults to the type of the path's extension; `lastModified`
    /// defaults to `configuration.defaultLastModified` (whole seconds are sent). The `ETag` is a hash of the
    /// bytes. In-memory images take precedence over files of the served directory.
    public func setImage(_ data: Data, at path: String, contentType: String? = nil, lastModified: Date? = nil) {
        let path = Self.normalized(path)
        let date = lastModified ?? store.defaultLastModified
        let body = ByteBuffer(bytes: data)
        let resource = ServedResource(
            body: body,
            contentType: contentType ?? ContentType.forPath(path),
            lastModified: Date(timeIntervalSince1970: date.timeIntervalSince1970.rounded(.down)),
            bodyHash: ServedResource.hash(body))
        store.setImage(resource, at: path)
    }

    /// Stops serving the in-memory image at `path`.
    public func removeImage(at path: String) {
        store.removeImage(at: Self.normalized(path))
    }

    /// Stops serving every in-memory image.
    public func removeAllImages() {
        store.removeAllImages()
    }

    /// Serves the regular files under `directory` (`nil` stops serving files). Request paths are
    /// percent-decoded; anything that could leave the directory (`..`, `.`, encoded slashes or backslashes,
    /// NUL, symbolic links pointing outside) gets 404. `Last-Modified` is the file's modification time.
    public func serveDirectory(_ directory: URL?) {
        store.setDirectory(directory.map { FileResolver.realPath($0.path) ?? $0.standardizedFileURL.path })
    }

    // MARK: Throttling, faults, validators

    /// The throttle for paths without one of their own (`nil`: full speed). Starts as `configuration.throttle`.
    public func setDefaultThrottle(_ throttle: Throttle?) {
        store.setDefaultThrottle(throttle)
    }

    /// The throttle for `path` (`nil` falls back to the default throttle).
    public func setThrottle(_ throttle: Throttle?, for path: String) {
        store.setThrottle(throttle, for: Self.normalized(path))
    }

    /// Injects `fault` on `path` for requests that begin from now on; `nil` clears it.
    public func setFault(_ fault: Fault?, for path: String) {
        store.setFault(fault, for: Self.normalized(path))
    }

    /// Adds `headers` to every response that serves the resource at `path` (200, 206, 304 and 416), after the
    /// server's own fields: caching headers such as `("Cache-Control", "max-age=60")`, `("Expires", …)` with a
    /// `("Date", …)`, or `("Age", "30")`. The server sends no `Date` of its own. An empty list removes them.
    ///
    /// ```swift
    /// server.setResponseHeaders([("Cache-Control", "max-age=60")], for: "/photo.jpg")
    /// ```
    public func setResponseHeaders(_ headers: [(name: String, value: String)], for path: String) {
        store.setResponseHeaders(headers, for: Self.normalized(path))
    }

    /// Gives the resource at `path` new validators now (`Last-Modified` one second later, a new `ETag`), as if
    /// it had been replaced by an identical copy.
    public func changeValidator(at path: String) {
        store.changeValidator(at: Self.normalized(path))
    }

    // MARK: Request log

    /// Every logged request, oldest first.
    public var allRequests: [RequestRecord] { store.records(for: nil) }

    /// The logged requests for `path` (leading `/` optional), oldest first.
    public func requests(for path: String) -> [RequestRecord] {
        store.records(for: Self.normalized(path))
    }

    /// How many requests for `path` were logged.
    public func requestCount(for path: String) -> Int {
        store.requestCount(for: Self.normalized(path))
    }

    /// Polls `condition` (every 5 ms) until it holds or `timeout` of waiting has passed; returns whether it held.
    /// For tests that must wait for the server side to catch up, e.g.
    /// `await server.waitUntil { $0.requestCount(for: "/a.jpg") == 2 }` or
    /// `await server.waitUntil { $0.openConnectionCount == 0 }`.
    ///
    /// The timeout counts the time the polls took, each capped at 50 ms: a waiter held off its threads (a
    /// starved concurrency pool, where the client it waits for cannot run either) does not see its time run out.
    public func waitUntil(
        timeout: Duration = .seconds(5), _ condition: @Sendable (TIPImageServer) -> Bool
    ) async -> Bool {
        let clock = ContinuousClock()
        let poll = Duration.milliseconds(5)
        var waited = Duration.zero
        while !condition(self) {
            if waited >= timeout { return false }
            let start = clock.now
            try? await Task.sleep(for: poll)
            waited += min(clock.now - start, poll * 10)
        }
        return true
    }

    /// Forgets every logged request (responses still in flight stop updating their old records).
    public func resetLog() {
        store.resetLog()
    }

    private static func normalized(_ path: String) -> String {
        path.hasPrefix("/") ? path : "/" + path
    }
}
