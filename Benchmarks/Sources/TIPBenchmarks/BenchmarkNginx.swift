import Foundation

#if canImport(Glibc)
import Glibc
#endif

/// The system's nginx serving a directory on a free loopback port, for the main job: the server a Linux
/// user would put in front of image files (sendfile, keep-alive, no access log). It runs in the foreground as
/// a child (`daemon off; master_process off;`) with a configuration, logs and temporary paths in a private
/// directory, and is stopped with ``stop()``.
final class BenchmarkNginx {
    /// `http://127.0.0.1:<port>/`.
    let baseURL: URL
    private let process: Process
    private let directory: URL

    /// The nginx executable, or nil when nginx is not installed (`scripts/bootstrap` installs it).
    static let executable: String? = ["/usr/sbin/nginx", "/usr/local/sbin/nginx"].first {
        FileManager.default.isExecutableFile(atPath: $0)
    }

    /// Starts nginx serving `root` and waits until it accepts connections.
    init(serving root: URL) throws {
        guard let executable = Self.executable else {
            throw BenchmarkFailure("nginx is not installed (run scripts/bootstrap)")
        }
        directory = FileManager.default.temporaryDirectory.appendingPathComponent(
            "tip-bench-nginx-\(UUID().uuidString)", isDirectory: true)
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        let port = try Self.freePort()
        let path = directory.path
        let configuration = """
            daemon off;
            master_process off;
            worker_processes 1;
            pid \(path)/nginx.pid;
            error_log \(path)/error.log;
            events { worker_connections 512; }
            http {
              access_log off;
              sendfile on;
              tcp_nopush on;
              keepalive_requests 100000;
              client_body_temp_path \(path)/body;
              proxy_temp_path \(path)/proxy;
              fastcgi_temp_path \(path)/fastcgi;
              uwsgi_temp_path \(path)/uwsgi;
              scgi_temp_path \(path)/scgi;
              types { image/jpeg jpg; image/png png; }
              server {
                listen 127.0.0.1:\(port);
                root \(root.path);
              }
            }

            """
        let file = directory.appendingPathComponent("nginx.conf")
        try configuration.write(to: file, atomically: true, encoding: .utf8)
        process = Process()
        process.executableURL = URL(fileURLWithPath: executable)
        process.arguments = ["-p", path + "/", "-c", file.path, "-e", path + "/error.log"]
        process.standardInput = FileHandle.nullDevice
        try process.run()
        baseURL = URL(string: "http://127.0.0.1:\(port)/")!
        let deadline = Date().addingTimeInterval(5)
        while !Self.accepts(port: port) {
            guard process.isRunning, Date() < deadline else {
                stop()
                let log =
                    (try? String(contentsOf: directory.appendingPathComponent("error.log"), encoding: .utf8)) ?? ""
                throw BenchmarkFailure("nginx did not start on port \(port): \(log)")
            }
            usleep(5_000)
        }
    }

    /// Stops nginx and deletes its directory.
    func stop() {
        if process.isRunning {
            process.terminate()
            process.waitUntilExit()
        }
        try? FileManager.default.removeItem(at: directory)
    }

    /// A port nothing listens on now (the kernel's pick for a socket bound to port 0).
    private static func freePort() throws -> UInt16 {
        let fd = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        guard fd >= 0 else { throw BenchmarkFailure("socket() failed") }
        defer { close(fd) }
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_addr.s_addr = inet_addr("127.0.0.1")
        var length = socklen_t(MemoryLayout<sockaddr_in>.size)
        let bound = withUnsafeMutablePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) {
                bind(fd, $0, length) == 0 && getsockname(fd, $0, &length) == 0
            }
        }
        guard bound else { throw BenchmarkFailure("could not find a free port") }
        return UInt16(bigEndian: address.sin_port)
    }

    private static func accepts(port: UInt16) -> Bool {
        let fd = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        guard fd >= 0 else { return false }
        defer { close(fd) }
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_port = port.bigEndian
        address.sin_addr.s_addr = inet_addr("127.0.0.1")
        return withUnsafePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) {
                connect(fd, $0, socklen_t(MemoryLayout<sockaddr_in>.size)) == 0
            }
        }
    }
}
