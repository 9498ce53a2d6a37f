import Foundation

#if canImport(Glibc)
import Glibc
#endif

/// A real nginx serving a temporary directory on a free loopback port: the origin of the integration tests.
///
/// nginx runs in the foreground as a child (`daemon off; master_process off;`), with every path in its own
/// temporary directory, and logs each request's status, URI and `Host` (`originHits(_:)`). `/redirect/NAME` answers 302
/// to `/NAME`; `/fail` answers 500. Call `stop()` when done.
final class OriginServer: @unchecked Sendable {
    enum Failure: Error {
        case notInstalled
        case couldNotStart(String)
    }

    static let executable: String? = ["/usr/sbin/nginx", "/usr/local/sbin/nginx"].first {
        FileManager.default.isExecutableFile(atPath: $0)
    }

    let directory: URL
    let documentRoot: URL
    private(set) var port: UInt16 = 0
    private var process: Process?

    init() throws {
        guard Self.executable != nil else { throw Failure.notInstalled }
        directory = FileManager.default.temporaryDirectory.appendingPathComponent(
            "tip-thumbnails-origin-\(UUID().uuidString)")
        documentRoot = directory.appendingPathComponent("www")
        try FileManager.default.createDirectory(at: documentRoot, withIntermediateDirectories: true)
    }

    /// `http://127.0.0.1:<port>/<name>`.
    func url(_ name: String) -> String { "http://127.0.0.1:\(port)/\(name)" }

    /// Serves `data` as `name`.
    func setFile(_ name: String, data: Data) throws {
        try data.write(to: documentRoot.appendingPathComponent(name))
    }

    /// The `Host` headers of the requests nginx logged for `/name` so far.
    func hostHeaders(_ name: String) -> [String] {
        let log = (try? String(contentsOf: directory.appendingPathComponent("access.log"), encoding: .utf8)) ?? ""
        var hosts: [String] = []
        for line in log.split(separator: "\n") {
            let fields: [Substring] = line.split(separator: "|", omittingEmptySubsequences: false)
            if fields.count == 3, fields[1] == "/\(name)" { hosts.append(String(fields[2])) }
        }
        return hosts
    }

    /// Requests nginx logged for `/name` so far.
    func originHits(_ name: String) -> Int {
        let log = (try? String(contentsOf: directory.appendingPathComponent("access.log"), encoding: .utf8)) ?? ""
        return log.split(separator: "\n").filter { $0.split(separator: "|").dropFirst().first == "/\(name)" }.count
    }

    func start() throws {
        var lastError = ""
        for _ in 0..<5 {
            let port = try LoopbackSocket.freePort()
            let config = directory.appendingPathComponent("nginx.conf")
            let dir = directory.path
            try """
            daemon off;
            master_process off;
            worker_processes 1;
            pid \(dir)/nginx.pid;
            error_log \(dir)/error.log warn;
            events { worker_connections 256; }
            http {
                types { image/jpeg jpg; image/png png; image/webp webp; image/gif gif; }
                default_type application/octet-stream;
                log_format hits '$status|$uri|$http_host';
                access_log \(dir)/access.log hits;
                client_body_temp_path \(dir)/cb; proxy_temp_path \(dir)/pt; fastcgi_temp_path \(dir)/ft;
                uwsgi_temp_path \(dir)/ut; scgi_temp_path \(dir)/st;
                server {
                    listen 127.0.0.1:\(port);
                    root \(documentRoot.path);
                    location /redirect/ { rewrite ^/redirect/(.*)$ /$1 redirect; }
                    location = /fail { return 500; }
                }
            }

            """.write(to: config, atomically: true, encoding: .utf8)
            let process = Process()
            process.executableURL = URL(fileURLWithPath: Self.executable!)
            process.arguments = ["-p", dir + "/", "-c", config.path, "-e", "\(dir)/error.log"]
            process.standardInput = FileHandle.nullDevice
            process.standardOutput = FileHandle.nullDevice
            process.standardError = FileHandle.nullDevice
            try process.run()
            self.process = process
            self.port = port
            let deadline = Date().addingTimeInterval(10)
            while process.isRunning && Date() < deadline {
                if LoopbackSocket.accepts(port: port) { return }
                usleep(5_000)
            }
            lastError = (try? String(contentsOf: directory.appendingPathComponent("error.log"), encoding: .utf8)) ?? ""
            stopProcess()
        }
        throw Failure.couldNotStart(lastError)
    }

    func stop() {
        stopProcess()
        try? FileManager.default.removeItem(at: directory)
    }

    private func stopProcess() {
        guard let process else { return }
        self.process = nil
        // SIGKILL: a test process's threads may block SIGTERM, which the child would inherit.
        if process.isRunning { kill(process.processIdentifier, SIGKILL) }
        process.waitUntilExit()
    }
}
