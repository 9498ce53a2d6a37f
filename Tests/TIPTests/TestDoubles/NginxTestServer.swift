import Foundation

@testable import TIP

#if canImport(Glibc)
import Glibc
#endif

/// A real nginx (the system's, e.g. Debian's `nginx` package) serving a temporary directory on a free
/// loopback port, for integration tests of resumable downloads.
///
/// Everything lives in the server's own temporary directory: the config file the server writes, the
/// served files (`documentRoot`), the pid file, the error and access logs and nginx's temp paths. nginx
/// runs in the foreground as a child process (`daemon off; master_process off;`), so it keeps the test
/// process's user (root included: the `user` directive is not used in single-process mode and is left
/// out) and ends with ``stop()``, which every test must call (`defer { server.stop() }`).
///
/// Two locations serve `documentRoot`, both throttled with `limit_rate` so that a download can be
/// cancelled mid-body. With `crawlAfter`, a request without `Range` slows to a crawl after that many bytes,
/// so a client that leaves there lands mid-body however late its callbacks run; resumes stay fast:
/// - `/lm/`: `etag off`, so responses carry only `Last-Modified`;
/// - `/etag/`: nginx's default, both `ETag` and `Last-Modified`.
///
/// The access log records `$status`, `$request_uri`, `$http_range`, `$http_if_range`, `$body_bytes_sent`,
/// `$upstream_cache_status`, `$http_if_none_match` and `$http_if_modified_since` of every request (``accessLog()``).
///
/// `httpDirectives` and `serverDirectives` add configuration of a test's own (an `expires` location, a
/// `proxy_cache_path` and a caching proxy location); `{dir}` in them stands for ``directory``, `{root}` for
/// ``documentRoot`` (with its trailing slash).
final class NginxTestServer: @unchecked Sendable {
    /// One access-log line.
    struct LogLine: Sendable, Equatable {
        var status: Int
        var uri: String
        /// The request's `Range` header (nil when absent).
        var range: String?
        /// The request's `If-Range` header (nil when absent).
        var ifRange: String?
        var bodyBytesSent: Int
        /// `$upstream_cache_status` of a caching location (`MISS`, `HIT`, `EXPIRED`, `REVALIDATED`...); nil elsewhere.
        var cacheStatus: String? = nil
        /// The request's `If-None-Match` header (nil when absent).
        var ifNoneMatch: String? = nil
        /// The request's `If-Modified-Since` header (nil when absent).
        var ifModifiedSince: String? = nil
    }

    enum Failure: Error, CustomStringConvertible {
        case notInstalled
        case couldNotStart(String)

        var description: String {
            switch self {
            case .notInstalled: "nginx is not installed (apt-get install nginx, or run scripts/bootstrap)"
            case .couldNotStart(let why): "nginx did not start: \(why)"
            }
        }
    }

    /// The nginx executable: /usr/sbin/nginx, /usr/local/sbin/nginx, or the first `nginx` on PATH.
    static let executableURL: URL? = {
        var candidates = ["/usr/sbin/nginx", "/usr/local/sbin/nginx"]
        let path = ProcessInfo.processInfo.environment["PATH"] ?? ""
        candidates += path.split(separator: ":").map { "\($0)/nginx" }
        return candidates.first { FileManager.default.isExecutableFile(atPath: $0) }.map { URL(fileURLWithPath: $0) }
    }()

    /// Whether nginx is installed (tests skip when it is not).
    static var isAvailable: Bool { executableURL != nil }

    /// The server's temporary directory (deleted by ``stop()``).
    let directory: URL
    /// The directory both locations serve.
    let documentRoot: URL
    /// Bytes per second each response is limited to.
    let rateLimit: Int
    /// Bytes after which a whole (not `Range`) response slows to ``crawlRate``; nil: never.
    let crawlAfter: Int?
    /// Bytes per second of a whole response past ``crawlAfter``.
    static let crawlRate = 4 * 1024
    /// With a certificate and its key (PEM files), nginx serves https and HTTP/2 (ALPN) instead of http.
    let tls: (certificate: URL, key: URL)?
    /// Extra `http` and `server` block directives (see the type's comment).
    let httpDirectives: String
    let serverDirectives: String

    private let lock = NSLock()
    // Guarded by `lock`.
    private var process: Process?
    private var boundPort: UInt16 = 0

    /// Makes the directories; ``start()`` runs nginx.
    init(
        rateLimit: Int = 200 * 1024, crawlAfter: Int? = nil, tls: (certificate: URL, key: URL)? = nil,
        httpDirectives: String = "", serverDirectives: String = ""
    ) throws {
        guard Self.isAvailable else { throw Failure.notInstalled }
        self.rateLimit = rateLimit
        self.crawlAfter = crawlAfter
        self.tls = tls
        self.httpDirectives = httpDirectives
        self.serverDirectives = serverDirectives
        directory = FileManager.default.temporaryDirectory.appendingPathComponent(
            "tip-nginx-\(UUID().uuidString)", isDirectory: true)
        documentRoot = directory.appendingPathComponent("www", isDirectory: true)
        try FileManager.default.createDirectory(at: documentRoot, withIntermediateDirectories: true)
    }

    deinit {
        stop()
    }

    /// The port nginx listens on (0 before ``start()``).
    var port: UInt16 { lock.withLock { boundPort } }

    /// nginx's process id while it runs (nil before ``start()`` and after ``stop()``).
    var processIdentifier: Int32? { lock.withLock { process?.processIdentifier } }

    /// `http://127.0.0.1:<port>` (`https` with ``tls``).
    var baseURL: URL {
        // A literal with a port number always parses.
        URL(string: "\(tls == nil ? "http" : "https")://127.0.0.1:\(port)")!
    }

    /// The URL of `fileName` under the Last-Modified-only location.
    func lastModifiedURL(_ fileName: String) -> URL {
        baseURL.appendingPathComponent("lm").appendingPathComponent(fileName)
    }

    /// The URL of `fileName` under the ETag location.
    func eTagURL(_ fileName: String) -> URL { baseURL.appendingPathComponent("etag").appendingPathComponent(fileName) }

    var accessLogURL: URL { directory.appendingPathComponent("access.log") }
    var errorLogURL: URL { directory.appendingPathComponent("error.log") }

    /// Writes `data` as `fileName` in the document root with the given modification time (whole
    /// seconds: `Last-Modified` and nginx's `ETag` derive from it).
    func setFile(_ fileName: String, data: Data, modified: Date) throws {
        let url = documentRoot.appendingPathComponent(fileName)
        try data.write(to: url)
        let seconds = modified.timeIntervalSince1970.rounded(.down)
        try FileManager.default.setAttributes(
            [.modificationDate: Date(timeIntervalSince1970: seconds)], ofItemAtPath: url.path)
    }

    /// The `Last-Modified` value nginx sends for a file modified at `date`.
    static func httpDate(_ date: Date) -> String {
        let formatter = DateFormatter()
        formatter.locale = Locale(identifier: "en_US_POSIX")
        formatter.timeZone = TimeZone(identifier: "GMT")
        formatter.dateFormat = "EEE, dd MMM yyyy HH:mm:ss 'GMT'"
        return formatter.string(from: date)
    }

    /// The `ETag` nginx sends for a file: `"<mtime in hex>-<length in hex>"`.
    static func entityTag(modified: Date, length: Int) -> String {
        "\"" + String(Int(modified.timeIntervalSince1970.rounded(.down)), radix: 16) + "-" + String(length, radix: 16)
            + "\""
    }

    /// Starts nginx on a free port and waits until the port accepts connections. Retries with another
    /// port when the one picked was taken meanwhile.
    func start() throws {
        var lastError = "no attempt"
        for _ in 0..<5 {
            let port = try Self.freePort()
            let config = directory.appendingPathComponent("nginx.conf")
            try configuration(port: port).write(to: config, atomically: true, encoding: .utf8)
            let process = Process()
            // Checked by `init`.
            process.executableURL = Self.executableURL!
            process.arguments = ["-p", directory.path + "/", "-c", config.path, "-e", errorLogURL.path]
            process.standardInput = FileHandle.nullDevice
            let output = directory.appendingPathComponent("stderr.txt")
            _ = FileManager.default.createFile(atPath: output.path, contents: nil)
            let outputHandle = try FileHandle(forWritingTo: output)
            process.standardOutput = outputHandle
            process.standardError = outputHandle
            try Self.runWithSignalsUnblocked(process)
            try? outputHandle.close()
            lock.withLock {
                self.process = process
                boundPort = port
            }
            let deadline = Date().addingTimeInterval(5)
            while process.isRunning && Date() < deadline {
                if Self.accepts(port: port) { return }
                usleep(5_000)
            }
            let log = (try? String(contentsOf: errorLogURL, encoding: .utf8)) ?? ""
            let stderr = (try? String(contentsOf: output, encoding: .utf8)) ?? ""
            lastError =
                process.isRunning
                ? "port \(port) did not answer within 5 s" : "exited with \(process.terminationStatus)"
            lastError += "; error log: \(log) \(stderr)"
            terminate()
        }
        throw Failure.couldNotStart(lastError)
    }

    /// Runs `process` from a new thread whose signal mask is empty. A child inherits the mask of the
    /// thread that spawns it, and Dispatch's worker threads (where async tests run) block SIGTERM and
    /// most other signals: nginx started from one would ignore ``stop()``'s SIGTERM.
    private static func runWithSignalsUnblocked(_ process: Process) throws {
        let outcome = Locked<Result<Void, any Error>?>(nil)
        let box = UncheckedBox(process)
        let done = DispatchSemaphore(value: 0)
        let thread = Thread {
            var none = sigset_t()
            sigemptyset(&none)
            pthread_sigmask(SIG_SETMASK, &none, nil)
            let result = Result { try box.value.run() }
            outcome.withLock { $0 = result }
            done.signal()
        }
        thread.start()
        done.wait()
        try outcome.withLock { $0 }?.get()
    }

    /// Stops nginx (SIGTERM, then SIGKILL after 3 s) and deletes the temporary directory. Idempotent.
    func stop() {
        terminate()
        try? FileManager.default.removeItem(at: directory)
    }

    private func terminate() {
        let process: Process? = lock.withLock {
            defer { self.process = nil }
            return self.process
        }
        guard let process else { return }
        if process.isRunning {
            process.terminate()
            let deadline = Date().addingTimeInterval(3)
            while process.isRunning && Date() < deadline { usleep(2_000) }
            if process.isRunning { kill(process.processIdentifier, SIGKILL) }
        }
        process.waitUntilExit()
    }

    /// The access log so far.
    func accessLog() -> [LogLine] {
        guard let text = try? String(contentsOf: accessLogURL, encoding: .utf8) else { return [] }
        return text.split(separator: "\n").compactMap { line in
            let fields = line.split(separator: "|", omittingEmptySubsequences: false).map(String.init)
            guard fields.count == 8, let status = Int(fields[0]) else { return nil }
            func header(_ value: String) -> String? { value == "-" || value.isEmpty ? nil : value }
            return LogLine(
                status: status, uri: fields[1], range: header(fields[2]), ifRange: header(fields[3]),
                bodyBytesSent: Int(fields[4]) ?? -1, cacheStatus: header(fields[5]),
                ifNoneMatch: header(fields[6]), ifModifiedSince: header(fields[7]))
        }
    }

    /// The config: single foreground process, every path inside `directory`.
    private func configuration(port: UInt16) -> String {
        let dir = directory.path
        let root = documentRoot.path + "/"
        return """
            daemon off;
            master_process off;
            worker_processes 1;
            pid \(dir)/nginx.pid;
            error_log \(dir)/error.log warn;
            events { worker_connections 64; }
            http {
                types { image/jpeg jpg; }
                default_type application/octet-stream;
                log_format tip_resume escape=none '$status|$request_uri|$http_range|$http_if_range|$body_bytes_sent|'
                    '$upstream_cache_status|$http_if_none_match|$http_if_modified_since';
                access_log \(dir)/access.log tip_resume;
                client_body_temp_path \(dir)/client_body_temp;
                proxy_temp_path \(dir)/proxy_temp;
                fastcgi_temp_path \(dir)/fastcgi_temp;
                uwsgi_temp_path \(dir)/uwsgi_temp;
                scgi_temp_path \(dir)/scgi_temp;
                map $http_range $tip_rate {
                    "" \(crawlAfter == nil ? rateLimit : Self.crawlRate);
                    default \(rateLimit);
                }
                \(expand(httpDirectives))
                server {
                    listen 127.0.0.1:\(port)\(tls == nil ? "" : " ssl http2");
                    \(tls.map { "ssl_certificate \($0.certificate.path); ssl_certificate_key \($0.key.path);" } ?? "")
                    limit_rate_after \(crawlAfter ?? 0);
                    location /lm/ { alias \(root); etag off; limit_rate $tip_rate; }
                    location /etag/ { alias \(root); limit_rate $tip_rate; }
                    \(expand(serverDirectives))
                }
            }

            """
    }

    private func expand(_ directives: String) -> String {
        directives.replacingOccurrences(of: "{dir}", with: directory.path)
            .replacingOccurrences(of: "{root}", with: documentRoot.path + "/")
    }

    /// Hands a non-Sendable value to the spawning thread, which uses it while `start()` waits.
    private struct UncheckedBox<Value>: @unchecked Sendable {
        let value: Value
        init(_ value: Value) { self.value = value }
    }

    /// A port that was free a moment ago: bind to port 0 on 127.0.0.1, read it, close.
    private static func freePort() throws -> UInt16 {
        let fd = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        guard fd >= 0 else { throw POSIXError(.EIO) }
        defer { close(fd) }
        var address = loopback(port: 0)
        var length = socklen_t(MemoryLayout<sockaddr_in>.size)
        let bound = withUnsafeMutablePointer(to: &address) { pointer in
            pointer.withMemoryRebound(to: sockaddr.self, capacity: 1) { raw in
                bind(fd, raw, length) == 0 && getsockname(fd, raw, &length) == 0
            }
        }
        guard bound else { throw POSIXError(.EADDRINUSE) }
        return UInt16(bigEndian: address.sin_port)
    }

    /// Whether something accepts connections on 127.0.0.1:`port`.
    static func accepts(port: UInt16) -> Bool {
        let fd = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        guard fd >= 0 else { return false }
        defer { close(fd) }
        var address = loopback(port: port)
        return withUnsafePointer(to: &address) { pointer in
            pointer.withMemoryRebound(to: sockaddr.self, capacity: 1) { raw in
                connect(fd, raw, socklen_t(MemoryLayout<sockaddr_in>.size)) == 0
            }
        }
    }

    private static func loopback(port: UInt16) -> sockaddr_in {
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_addr.s_addr = inet_addr("127.0.0.1")
        address.sin_port = port.bigEndian
        return address
    }
}
